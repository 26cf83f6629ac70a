// The margin loss with a learnable beta per class ([LCC] Sec 3, Wu et al. 2017), defined in
// experiments/src/losses/margin_loss.cpp beside its registration.
#pragma once

#include "dmlbench/experiments/batch_miner.hpp"
#include "dmlbench/experiments/embedding_distance.hpp"
#include "dmlbench/experiments/loss_reducers.hpp"

#include <torch/torch.h>

namespace dmlbench::experiments {

// [LCC] Sec 3 margin loss on the mined pairs (a, p) and (a, n): (D_ap - beta + alpha)_+ + (beta - D_an + alpha)_+,
// D the squared distance as in [LCC], beta one learnable scalar per class of the anchor (Wu et al.), initialised to
// beta0 (1.2 in [LCC] Sec 5). Mean over the pairs that are active (> 0), as Wu et al. normalise.
struct MarginLossImpl : torch::nn::Module {
  MarginLossImpl(int num_classes, double alpha = 0.2, double beta0 = 1.2);
  torch::Tensor forward(const torch::Tensor& emb, const torch::Tensor& labels, const MinedTriplets& t);
  torch::Tensor beta;
  double alpha;
};
TORCH_MODULE(MarginLoss);

}  // namespace dmlbench::experiments
