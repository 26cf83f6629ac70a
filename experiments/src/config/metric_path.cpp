// The number at a dotted path of a run's metrics.json (metric_path.hpp).
#include "dmlbench/experiments/metric_path.hpp"

#include <sstream>

namespace dmlbench::experiments {

using json = nlohmann::ordered_json;

double metric_at(const json& metrics, const std::string& dotted) {
  const json* node = &metrics;
  std::stringstream ss(dotted);
  for (std::string part; std::getline(ss, part, '.');) {
    if (node->is_array()) {
      const bool digits = !part.empty() && part.find_first_not_of("0123456789") == std::string::npos;
      if (!digits || std::stoull(part) >= node->size())
        throw std::invalid_argument("metric " + dotted + ": \"" + part + "\" is not an index of an array of " +
                                    std::to_string(node->size()));
      node = &(*node)[std::stoull(part)];
      continue;
    }
    if (!node->is_object() || !node->contains(part))
      throw std::invalid_argument("metric " + dotted + ": no \"" + part + "\" in the run's metrics");
    node = &(*node)[part];
  }
  if (node->is_null()) throw metric_undefined("metric " + dotted + " is undefined in this run (null)");
  if (!node->is_number()) throw std::invalid_argument("metric " + dotted + " is not a number (" + node->dump() + ")");
  return node->get<double>();
}

}  // namespace dmlbench::experiments
