// The number at a dotted path of a run's metrics.json: what a reproduction's metric, a tuning objective and early
// stopping read.
#pragma once

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>

namespace dmlbench::experiments {

// The number at a dotted path of a run's metrics.json: each part a key of an object, or a 0-based index of an array
// ("curve.2.eval.test.character.recall_at_k.1"). Throws std::invalid_argument naming the missing part, and
// metric_undefined (a kind of it) where the run wrote null (a quantity with no value in that run); a summary leaves
// such runs out of that metric's mean and test.
struct metric_undefined : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};
double metric_at(const nlohmann::ordered_json& metrics, const std::string& dotted);

}  // namespace dmlbench::experiments
