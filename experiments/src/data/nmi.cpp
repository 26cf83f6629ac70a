#include "dmlbench/experiments/nmi.hpp"

#include <cmath>
#include <map>
#include <stdexcept>

namespace dmlbench::experiments {

double normalized_mutual_information(const std::vector<int>& c, const std::vector<int>& y) {
  if (c.size() != y.size() || c.empty()) throw std::invalid_argument("NMI needs two non-empty lists of equal length");
  const double n = double(c.size());
  std::map<int, double> pc, py;
  std::map<std::pair<int, int>, double> pcy;
  for (std::size_t i = 0; i < c.size(); ++i) {
    pc[c[i]] += 1;
    py[y[i]] += 1;
    pcy[{c[i], y[i]}] += 1;
  }
  auto entropy = [n](const std::map<int, double>& m) {
    double h = 0;
    for (const auto& [k, v] : m) h -= v / n * std::log(v / n);
    return h;
  };
  const double hc = entropy(pc), hy = entropy(py);
  double mi = 0;
  for (const auto& [k, v] : pcy) mi += v / n * std::log(v * n / (pc[k.first] * py[k.second]));
  if (hc + hy == 0) return 1.0;
  return std::max(0.0, 2 * mi / (hc + hy));
}

}  // namespace dmlbench::experiments
