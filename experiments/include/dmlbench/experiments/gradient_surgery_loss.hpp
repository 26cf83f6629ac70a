// A loss whose backward is set directly as unit direction x pair weight x triplet weight ([XGS] Sec 3, "gradient
// surgery"), via a custom torch::autograd::Function. The forward value is the NCA triplet loss with the same scale,
// for logging only; the gradient is the composed one. The factors are those of theory/gradient_decomposition.hpp.
#pragma once

#include "dmlbench/experiments/batch_miner.hpp"

#include <torch/torch.h>

namespace dmlbench::experiments {

enum class SurgeryDirection { euclidean, cosine };
enum class SurgeryPairWeight { constant, euclidean, linear, sigmoid };
enum class SurgeryTripletWeight { constant, nca, circle };

struct SurgeryConfig {
  SurgeryDirection direction = SurgeryDirection::cosine;
  SurgeryPairWeight pair = SurgeryPairWeight::constant;
  SurgeryTripletWeight triplet = SurgeryTripletWeight::nca;
  double scale = 16.0;                              // s of P_c and T_NCA; gamma of P_L and T_Circle
  double circle_m = 0.25;                           // Circle loss m
  double alpha = 2.0, beta = 50.0, lambda = 0.5;    // sigmoid (binomial deviance) pair weight
};

// emb: B x d, L2-normalised. The gradient with respect to emb is -(composed descent) / (number of triplets), so
// that the composition of a loss (e.g. cosine x constant(s) x NCA(s)) equals autograd of that loss's mean.
torch::Tensor gradient_surgery_loss(const torch::Tensor& emb, const MinedTriplets& t, const SurgeryConfig& c);

}  // namespace dmlbench::experiments
