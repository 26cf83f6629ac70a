// Text pieces shared by the report's Markdown tables: a safe table cell and a number with one decimal.
#include "report_text.hpp"

#include <iomanip>
#include <sstream>

namespace dmlbench::experiments {

std::string markdown_cell(std::string s) {
  for (auto& ch : s)
    if (ch == '\n') ch = ' ';
  std::string o;
  for (char ch : s) o += ch == '|' ? std::string("\\|") : std::string(1, ch);
  return o.empty() ? "-" : o;
}

std::string fixed1(double v) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(1) << v;
  return o.str();
}

std::string sci1(const nlohmann::ordered_json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (!v.is_number()) return "n/a";
  std::ostringstream o;
  o << std::scientific << std::setprecision(1) << v.get<double>();
  return o.str();
}

std::string signed_sci1(const nlohmann::ordered_json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (!v.is_number()) return "n/a";
  std::ostringstream o;
  o << std::showpos << std::scientific << std::setprecision(1) << v.get<double>();
  return o.str();
}

std::string signed_fixed1(const nlohmann::ordered_json& v) {
  if (!v.is_number()) return "n/a";
  std::ostringstream o;
  o << std::fixed << std::showpos << std::setprecision(1) << v.get<double>();
  return o.str();
}

}  // namespace dmlbench::experiments
