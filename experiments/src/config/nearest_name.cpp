#include "dmlbench/experiments/nearest_name.hpp"

#include <algorithm>

namespace dmlbench::experiments {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string nearest_name(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t bd = std::string::npos;
  for (const auto& c : candidates) {
    const auto d = edit_distance(word, c);
    if (d < bd) {
      bd = d;
      best = c;
    }
  }
  return bd <= word.size() / 3 + 2 ? best : std::string();
}

std::string joined_names(const std::vector<std::string>& names) {
  std::string all;
  for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
  return all;
}

}  // namespace dmlbench::experiments
