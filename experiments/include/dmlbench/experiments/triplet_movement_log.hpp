// [XHN] Sec 6.1 / Fig 3: where each mined triplet's dot (S_ap, S_an) moves in one optimiser step, next to the direction
// the isolated-triplet model of [XHN] eqs 9-10 predicts for the same three vectors (theory/triplet_movement.hpp).
#pragma once

#include "dmlbench/experiments/batch_miner.hpp"
#include "dmlbench/theory/triplet_loss_kind.hpp"
#include "dmlbench/theory/triplet_movement.hpp"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <cstdint>
#include <string>

namespace dmlbench::experiments {

// The triplets' cosine similarities (S_ap, S_an) of the rows of `embeddings` (L2-normalised here, in float64 on the CPU).
struct TripletDots {
  torch::Tensor s_ap, s_an;  // float64, one per triplet
};
TripletDots triplet_dots(const torch::Tensor& embeddings, const MinedTriplets& t);

// One step's movements: each triplet's observed quadrant (a change of at most `tolerance` in a coordinate is none) and
// the model's predicted one (delta_s_from_vectors of `model` at a small feature step on the normalised vectors before
// the step); `agree` counts the triplets whose observed and predicted quadrants are the same (both moved), out of
// `compared`.
struct StepMovement {
  theory::MovementCounts observed, predicted;
  std::int64_t agree = 0, compared = 0;
};
StepMovement step_movement(const torch::Tensor& embeddings_before, const TripletDots& after, const MinedTriplets& t,
                           theory::TripletLoss model, double tolerance);

// The model loss a registered training loss declares (its LossSpec::movement_model: triplet -> vanilla_margin, nca ->
// nca_first_order, l2nd -> second_order). Throws std::invalid_argument for a loss that declares none.
theory::TripletLoss movement_model_of(const std::string& loss_name);

// The run's summary of its step rows ([step, epoch, 5 observed counts, 5 predicted counts, agree, compared], in
// Movement order up_right, up_left, down_left, down_right, stationary): counts, each quadrant's share of the quadrant
// moves, its lead (share minus the largest other share: > 0 where it is the most frequent), the stationary share of
// all triplets, the predicted shares, the agreement, and the shares per epoch. Throws std::invalid_argument for a
// malformed row.
nlohmann::ordered_json movement_summary(const nlohmann::ordered_json& rows);

}  // namespace dmlbench::experiments
