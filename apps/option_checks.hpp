// Checks of numeric command-line options that name the option and print the value as the user typed it.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace dmlbench::app {

// A --threads value where 0 means every core: the value itself, else the machine's cores (at least 1).
inline int threads_or_all_cores(int threads) {
  return threads > 0 ? threads : int(std::max(1u, std::thread::hardware_concurrency()));
}

// The shortest text that reads back as v (0.3, not the 0.29999999999999999 of 17 digits), for a value the user did not
// type: nlohmann's dump writes the shortest round-trip form; "1.0" loses its ".0".
inline std::string shortest_text(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::string s = nlohmann::json(v).dump();
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s;
}

enum class Bound { open, closed, none };

// A number option checked as it is parsed, against an interval written in the message as desc ("(0, 1]", "> 0"):
// CLI11 reports "--margin: must be > 0, got -0.1", which main prints as one line. Applies to every value of a list.
inline CLI::Validator number_in(double lo, Bound lo_bound, double hi, Bound hi_bound, const std::string& desc) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        char* end = nullptr;
        errno = 0;
        const double v = std::strtod(text.c_str(), &end);
        if (end == text.c_str() || *end != '\0') return "expected a number, got '" + text + "'";
        const bool lo_ok = lo_bound == Bound::none || (lo_bound == Bound::open ? v > lo : v >= lo);
        const bool hi_ok = hi_bound == Bound::none || (hi_bound == Bound::open ? v < hi : v <= hi);
        if (!std::isfinite(v) || !lo_ok || !hi_ok) return "must be " + desc + ", got " + text;
        return std::string();
      },
      "", "number_in");
}

// A number that must be > 0 (a margin, a learning rate).
inline CLI::Validator positive_number() { return number_in(0, Bound::open, 0, Bound::none, "a number > 0"); }

// An integer option (or each value of a list) that must be at least lo: "--classes: must be an integer >= 2, got 0".
inline CLI::Validator integer_at_least(long long lo) {
  return CLI::Validator(
      [lo](std::string& text) -> std::string {
        char* end = nullptr;
        errno = 0;
        const long long v = std::strtoll(text.c_str(), &end, 10);
        if (end == text.c_str() || *end != '\0' || errno == ERANGE || v < lo)
          return "must be an integer >= " + std::to_string(lo) + ", got " + text;
        return std::string();
      },
      "", "integer_at_least");
}

// The old spelling of a renamed option: parsed only to be refused with one line, the message (naming the new one).
inline void refuse_renamed_option(CLI::App* cmd, const std::string& old_name, const std::string& message) {
  cmd->add_option_function<std::vector<std::string>>(
         old_name, [message](const std::vector<std::string>&) { throw std::invalid_argument(message); }, "")
      ->group("");
}

}  // namespace dmlbench::app
