// The trimmed loss of [LCC] Sec 5.2.5 (Shen and Sanghavi 2019, iterative trimmed loss minimisation): back-propagate
// only the batch's terms with the lowest current loss, the rest treated as badly labelled.
#pragma once

#include <torch/torch.h>

namespace dmlbench::experiments {

// The mean of the ceil((1 - trim) x T) smallest of the T per-term losses `terms` (1-D); the others get no gradient.
// Equal values at the cut: the lower index is kept (a stable sort). trim = 0: the plain mean. Throws
// std::invalid_argument for trim outside [0, 1), an empty or non-1-D `terms`.
torch::Tensor trimmed_mean(const torch::Tensor& terms, double trim);

}  // namespace dmlbench::experiments
