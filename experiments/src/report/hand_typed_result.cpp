// A run's result typed by hand into a scope entry's text.
#include "dmlbench/experiments/hand_typed_result.hpp"

#include <regex>

namespace dmlbench::experiments {

std::string hand_typed_result(const std::string& text, bool outcome_words) {
  static const std::regex result(
      R"(\bp\s*[=<>~]\s*\d|\bp \d|\d\s*\+-\s*\d|\[[-+]?\d+(\.\d+)?, [-+]?\d+(\.\d+)?\]|\d+\.\d+\s*%)"
      R"(|\bWelch\b|\bHolm\b|\bbinomial test\b|\bt-test\b|\bClopper\b)");
  static const std::regex outcome(R"(\b(verified|refuted|inconclusive|not-reproduced|not-reproducible|erratum)\b)");
  std::smatch m;
  if (std::regex_search(text, m, result)) return m.str();
  if (outcome_words && std::regex_search(text, m, outcome)) return m.str();
  return "";
}

}  // namespace dmlbench::experiments
