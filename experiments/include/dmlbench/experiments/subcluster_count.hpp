// The sub-clusters that survive inside each class ([LCC] Sec 5.2.6 and Fig 2: EPS keeps an alphabet's letters apart,
// the triplet loss collapses them): single linkage of the fine classes' centroids within each coarse class.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace dmlbench::experiments {

struct SubclusterReport {
  std::int64_t coarse_classes = 0;
  double mean_fine_classes = 0;    // fine classes per coarse class
  double mean_subclusters = 0;     // single-linkage components per coarse class
  double mean_surviving = 0;       // components / fine classes, averaged over the coarse classes (1: all apart)
};

// emb: N x d (rows as evaluated: L2-normalise them first for cosine retrieval); coarse, fine: N labels each, every fine
// class inside one coarse class (else std::invalid_argument naming the fine label). Within a coarse class, fine classes
// f and g are linked when |c_f - c_g| < t, c the centroid, t the mean over the coarse class's fine classes of their
// images' mean distance to their centroid (a letter is merged with another when the two centroids are closer than a
// letter's typical radius); the sub-clusters are the connected components. A coarse class with one fine class counts 1.
SubclusterReport count_subclusters(const torch::Tensor& emb, const std::vector<std::int64_t>& coarse,
                                   const std::vector<std::int64_t>& fine);

}  // namespace dmlbench::experiments
