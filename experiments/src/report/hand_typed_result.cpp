// A run's result typed by hand into a scope entry's text.
#include "dmlbench/experiments/hand_typed_result.hpp"

#include <regex>

namespace dmlbench::experiments {

// The last three lines: a result attributed to a one-off computation that no command of the bench repeats (an audit's
// run or computation, a recomputation in numpy or python, a sim phase run quoted in parentheses).
std::string hand_typed_result(const std::string& text, bool outcome_words) {
  static const std::regex result(
      R"(\bp\s*[=<>~]\s*\d|\bp \d|\d\s*\+-\s*\d|\[[-+]?\d+(\.\d+)?, [-+]?\d+(\.\d+)?\]|\d+\.\d+\s*%)"
      R"(|\bWelch\b|\bHolm\b|\bbinomial test\b|\bt-test\b|\bClopper\b)"
      R"(|\b[Aa]udit(?:'s)? runs?\b|\b[Aa]udit computation\b|\b[Ff]or this audit\b|\b[Pp]ython check\b)"
      R"(|\b(?:[Oo]wn|[Nn]umpy|[Pp]ython) recomputation\b|\b[Rr]ecomputed with (?:numpy|python)\b)"
      R"(|\(sim phase\)|\bsim phase \()");
  static const std::regex outcome(R"(\b(verified|refuted|inconclusive|not-reproduced|not-reproducible|erratum)\b)");
  std::smatch m;
  if (std::regex_search(text, m, result)) return m.str();
  if (outcome_words && std::regex_search(text, m, outcome)) return m.str();
  return "";
}

}  // namespace dmlbench::experiments
