// Normalized mutual information of a clustering against labels, NMI = 2 I(C; Y) / (H(C) + H(Y)) (arithmetic
// normalisation, as in [LCC] Sec 5 and scikit-learn's default). Torch-free.
#pragma once

#include <vector>

namespace dmlbench::experiments {

// Throws std::invalid_argument for different lengths or an empty input. Both entropies 0 (one cluster, one label):
// 1 by convention (identical partitions).
double normalized_mutual_information(const std::vector<int>& clusters, const std::vector<int>& labels);

}  // namespace dmlbench::experiments
