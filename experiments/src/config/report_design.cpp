// The report's design of looks from its one file: first look, cap, e-BH's planned share and the minimax g of the looks.
#include "dmlbench/experiments/report_design.hpp"

#include "dmlbench/experiments/anytime_prior_variance.hpp"
#include "dmlbench/experiments/config_key.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

namespace dmlbench::experiments {

using json = nlohmann::ordered_json;

namespace {

template <class T>
T required(const json& j, const char* key, const std::string& path) {
  if (!j.contains(key)) throw config_error(path + ": \"" + key + "\" is required (the report's design of looks)");
  try {
    return j.at(key).get<T>();
  } catch (const json::exception&) {
    throw config_error(path + ": \"" + key + "\" must be a number");
  }
}

}  // namespace

ReportDesign read_report_design(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw config_error("cannot read the report's design " + path);
  std::ostringstream s;
  s << in.rdbuf();
  ReportDesign d;
  d.file = path;
  d.text = s.str();
  json j;
  try {
    j = json::parse(d.text);
  } catch (const json::exception& e) {
    throw config_error(path + ": not valid JSON (" + e.what() + ")");
  }
  if (!j.is_object()) throw config_error(path + ": the design must be a JSON object");
  d.alpha = j.contains("alpha") ? required<double>(j, "alpha", path) : 0.05;
  if (!(d.alpha > 0 && d.alpha < 1)) throw config_error(path + ": alpha must lie in (0, 1)");
  d.first_look = required<int>(j, "first_look", path);
  d.cap = required<int>(j, "cap", path);
  d.planned_selected_share = required<double>(j, "planned_selected_share", path);
  d.g = required<double>(j, "g", path);
  if (d.first_look < 2 || d.cap < d.first_look)
    throw config_error(path + ": the looks need 2 <= first_look <= cap, got first_look " +
                       std::to_string(d.first_look) + ", cap " + std::to_string(d.cap));
  if (!(d.planned_selected_share > 0 && d.planned_selected_share <= 1))
    throw config_error(path + ": planned_selected_share must lie in (0, 1], got " +
                       std::to_string(d.planned_selected_share));
  const double minimax = minimax_anytime_g(d.alpha * d.planned_selected_share, std::size_t(d.first_look),
                                           std::size_t(d.cap));
  if (!(std::abs(d.g - minimax) <= 5e-3 * minimax))  // the file's 3 significant digits
    throw config_error(path + ": g " + std::to_string(d.g) + " is not the minimax g of its looks (" +
                       std::to_string(minimax) + " for first_look " + std::to_string(d.first_look) + ", cap " +
                       std::to_string(d.cap) + ", level alpha x share); g follows the looks");
  return d;
}

}  // namespace dmlbench::experiments
