// A training run's evaluation (training_evaluation.cpp): embeddings of a set, retrieval and clustering metrics per
// level, the held-out triplet accuracy, and the [HTL] class tree of the final embeddings. Internal to experiments/.
#pragma once

#include "dmlbench/experiments/phase_clock.hpp"

#include "dmlbench/experiments/batch_miner.hpp"
#include "class_tree_margins.hpp"
#include "dmlbench/experiments/embedding_model.hpp"
#include "dmlbench/experiments/run_config.hpp"
#include "dmlbench/experiments/training_data.hpp"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <string>
#include <vector>

namespace dmlbench::experiments {

// The rows of a set through the model in eval mode, L2-normalised when `normalize`, on the CPU.
torch::Tensor embed_set(EmbeddingModel& model, const LabeledSplit& s, torch::Device dev, bool normalize);
// A fixed, seeded set of triplets of the set (each item an anchor with a random positive and a random negative at the
// training level), and the fraction an embedding orders correctly, d(a, p) < d(a, n).
MinedTriplets fixed_triplets(const torch::Tensor& labels, std::uint64_t seed);
double triplet_accuracy(const torch::Tensor& emb, const MinedTriplets& t);
// Recall@K, precision@1, R-precision, MAP@R (with_ranking) and k-means NMI / NMI+ (with_nmi) of one set at each
// configured level; a curve point (with_ranking false) has Recall@K alone.
// Each part's wall time goes to `clock` (if any) under `phase_prefix` + "ranking", "NMI", "NMI+", "similarity spread".
nlohmann::ordered_json evaluate_set(const RunConfig& c, const torch::Tensor& emb, const LabeledSplit& s, bool with_nmi,
                                    bool with_ranking = true, PhaseClock* clock = nullptr,
                                    const std::string& phase_prefix = "");
// The queries of set q ranked against the gallery set g (In-shop's protocol) at each level both have; no clustering.
nlohmann::ordered_json evaluate_query_gallery(const RunConfig& c, const torch::Tensor& qe, const LabeledSplit& q,
                                              const torch::Tensor& ge, const LabeledSplit& g);
// eval.sets, or every evaluation set when it names none.
std::vector<std::string> eval_sets(const RunConfig& c, const TrainingData& d);

// The [HTL] class tree of the training split's embeddings at the training level (tree parameters from loss.htl_*).
ClassTreeMargins tree_of_training_set(const RunConfig& c, EmbeddingModel& model, const LabeledSplit& train,
                                      const std::string& train_level, torch::Device dev);
// Each tree class's group at a coarser level (the majority of its items'; `mixed` counts classes split over groups).
struct KnownGroups {
  std::vector<std::int64_t> of_class;
  int mixed = 0;
};
KnownGroups known_groups(const ClassTreeMargins& t, const LabeledSplit& train, const std::string& train_level,
                         const std::string& coarse_level);
// How well the tree's level closest in node count to the known groups recovers them (purity, NMI), next to the same
// level against the groups shuffled over the classes (pinned seed): the chance reference.
nlohmann::ordered_json tree_recovery_of(const ClassTreeMargins& t, const KnownGroups& k, const std::string& coarse_level,
                                        std::uint64_t seed);

}  // namespace dmlbench::experiments
