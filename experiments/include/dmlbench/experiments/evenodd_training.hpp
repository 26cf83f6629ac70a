// The MNIST even/odd run of [LCC] Sec 5.1, Table 1, Fig 2: train the App. C network on digits 0-5 with parity labels
// (triplet loss, random vs easy positive sampling), evaluate Recall@K with digit labels on held-out digits 0-5 and on
// digits 6-9; checkpoints each epoch (atomic), resumable to the same result.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace dmlbench::experiments {

struct EvenOddConfig {
  std::string data_dir;         // official MNIST layout (prefix train), e.g. data/mnist from scripts/fetch_data.sh
  std::string out_dir;          // run folder: checkpoint, metrics.json, embeddings.csv, scatter.csv
  std::string sampler = "eps";  // random: trip-sh (random positive); eps: eps-trip-sh (easy positive)
  std::uint64_t seed = 1;
  int epochs = 5;
  int samples_per_class = 64;   // batch = 2 parity classes x this
  double lr = 1e-3;             // Adam
  double margin = 0.2;          // triplet margin, in units of `distance`
  std::string distance = "squared";  // squared | euclidean: the triplet loss's distance (and the miner's ranking)
  bool normalize = false;       // L2-normalise the embedding (points on the unit circle for embedding_dim 2)
  double holdout = 0.2;         // fraction of digits 0-5 held out for evaluation
  int embedding_dim = 2;
  long max_steps = -1;          // stop after this many steps in all (smoke runs); -1: no limit
  std::string device = "auto";
  std::string kernels = "fused";  // the network's kernels: fused (CPU) | stock (mnist_embedding_net.hpp)
  bool resume = false;          // continue from out_dir/checkpoint.pt if present
  void validate() const;
};

struct EvenOddResult {
  std::vector<int> ks = {1, 5, 10};
  std::vector<double> recall_train_digits, recall_test_digits;  // Recall@K with digit labels
  double nmi_train_digits = 0, nmi_test_digits = 0;             // k-means with k = number of digits
  // held-out digits 0-5 against their parity labels: NMI with k = 2 clusters, and NMI+ with 10 x 2 = 20 ([LCC]
  // Table 2's NMI+ takes 10 clusters per class), which sub-clusters inside a parity class do not penalise
  double nmi_parity = 0, nmi_plus_parity = 0;
  double first_loss = 0, last_loss = 0;                         // mean training loss of the first and last epoch
  // fraction of a fixed, seeded set of held-out parity triplets (random positive and negative) with d(a, p) < d(a, n),
  // for the untrained and the trained network: scale-free, where the loss grows with the embedding's scale
  double triplet_accuracy_before = 0, triplet_accuracy_after = 0;
  long steps = 0;
  double seconds = 0;
  double train_seconds = 0;  // time inside the training steps alone (no evaluation, logging or checkpoints)
  std::int64_t skipped_anchors = 0;
};

// Runs (or resumes) one training run and writes its outputs into c.out_dir; progress lines with ETA go to `log`.
EvenOddResult train_evenodd(const EvenOddConfig& c, std::ostream& log);

}  // namespace dmlbench::experiments
