#include "dmlbench/experiments/batch_miner.hpp"

#include "dmlbench/experiments/embedding_distance.hpp"
#include "dmlbench/experiments/nearest_name.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace dmlbench::experiments {

MinerConfig named_miner(const std::string& n) {
  const auto names = miner_names();
  if (std::find(names.begin(), names.end(), n) == names.end())
    throw std::invalid_argument("unknown miner '" + n + "' (" + joined_names(names) + ")");
  const auto& spec = miner_spec(n);
  MinerConfig c;
  c.positive = spec.positive;
  c.negative = spec.negative;
  return c;
}

namespace {

constexpr double kInf = 1e30;

// Row-wise random choice among the true entries of mask (rows with none give an arbitrary index).
torch::Tensor random_choice(const torch::Tensor& mask, torch::Generator& gen) {
  auto u = torch::rand(mask.sizes(), gen, torch::TensorOptions().dtype(torch::kFloat64)).to(mask.device());
  return torch::where(mask, u, torch::full_like(u, -1.0)).argmax(1);
}

// [XHN] Sec 6.1: triplets over disjoint features. Anchors in a random order (from gen); each picks among the features
// no triplet holds yet, by the same rules as below; rows are small (a batch), so a plain loop on the CPU.
MinedTriplets mine_disjoint_triplets(const torch::Tensor& sim_d, const torch::Tensor& labels_d, const MinerConfig& c,
                                     torch::Generator& gen) {
  if (c.negative == NegativeChoice::distance_weighted)
    throw std::invalid_argument("one triplet per feature: distance-weighted negatives are not offered");
  if (c.positive == PositiveChoice::all)
    throw std::invalid_argument("one triplet per feature: all positives (a triplet per pair) are not offered");
  const auto sim = sim_d.to(torch::kCPU).contiguous();
  const auto labels = labels_d.to(torch::kCPU, torch::kInt64).contiguous();
  const auto B = sim.size(0);
  const auto S = sim.accessor<double, 2>();
  const auto y = labels.accessor<std::int64_t, 1>();
  const auto order = torch::randperm(B, gen, torch::TensorOptions().dtype(torch::kInt64));
  const auto draw = torch::rand({B, 2}, gen, torch::TensorOptions().dtype(torch::kFloat64));
  const auto ord = order.accessor<std::int64_t, 1>();
  const auto u = draw.accessor<double, 2>();
  std::vector<char> used(std::size_t(B), 0);
  std::vector<std::int64_t> A, P, N;
  MinedTriplets out;
  for (std::int64_t k = 0; k < B; ++k) {
    const auto a = ord[k];
    if (used[std::size_t(a)]) continue;
    std::vector<std::int64_t> pos, neg;
    for (std::int64_t j = 0; j < B; ++j) {
      if (j == a || used[std::size_t(j)]) continue;
      (y[j] == y[a] ? pos : neg).push_back(j);
    }
    if (pos.empty()) {
      ++out.skipped_no_positive;
      continue;
    }
    if (neg.empty()) {
      ++out.skipped_no_negative;
      continue;
    }
    auto pick = [&](const std::vector<std::int64_t>& from, bool most_similar, double r) {
      if (r >= 0) return from[std::min(from.size() - 1, std::size_t(r * double(from.size())))];
      std::int64_t best = from[0];
      for (auto j : from)
        if (most_similar ? S[a][j] > S[a][best] : S[a][j] < S[a][best]) best = j;
      return best;
    };
    const auto p = c.positive == PositiveChoice::random ? pick(pos, true, u[k][0])
                                                        : pick(pos, c.positive == PositiveChoice::easy, -1);
    std::int64_t n;
    if (c.negative == NegativeChoice::semi_hard) {  // the most similar negative less similar than the positive
      std::vector<std::int64_t> semi;
      for (auto j : neg)
        if (S[a][j] < S[a][p]) semi.push_back(j);
      n = semi.empty() ? pick(neg, false, -1) : pick(semi, true, -1);
    } else {
      n = c.negative == NegativeChoice::random ? pick(neg, true, u[k][1])
                                               : pick(neg, c.negative == NegativeChoice::hard, -1);
    }
    used[std::size_t(a)] = used[std::size_t(p)] = used[std::size_t(n)] = 1;
    A.push_back(a);
    P.push_back(p);
    N.push_back(n);
  }
  const auto dev = sim_d.device();
  out.anchors = torch::tensor(A, torch::kInt64).to(dev);
  out.positives = torch::tensor(P, torch::kInt64).to(dev);
  out.negatives = torch::tensor(N, torch::kInt64).to(dev);
  return out;
}

// The negative of each triplet: row i of sim and neg_mask is its anchor's, p[i] its positive.
torch::Tensor choose_negatives(const torch::Tensor& sim, const torch::Tensor& neg_mask, const torch::Tensor& p,
                               const MinerConfig& c, torch::Generator& gen) {
  const auto has_neg = neg_mask.any(1);
  torch::Tensor n;
  switch (c.negative) {
    case NegativeChoice::hard: n = torch::where(neg_mask, sim, torch::full_like(sim, -kInf)).argmax(1); break;
    case NegativeChoice::easy: n = torch::where(neg_mask, sim, torch::full_like(sim, kInf)).argmin(1); break;
    case NegativeChoice::random: n = random_choice(neg_mask, gen); break;
    case NegativeChoice::semi_hard: {
      const auto s_ap = sim.gather(1, p.unsqueeze(1));  // rows x 1
      const auto semi = neg_mask.logical_and(sim.lt(s_ap));
      const auto best = torch::where(semi, sim, torch::full_like(sim, -kInf)).argmax(1);
      const auto easiest = torch::where(neg_mask, sim, torch::full_like(sim, kInf)).argmin(1);
      n = torch::where(semi.any(1), best, easiest);
      break;
    }
    case NegativeChoice::distance_weighted: {
      const double dim = c.dw_dim;
      const auto d = unit_sphere_distance(sim).clamp_min(c.dw_cutoff);
      auto logw = -(dim - 2.0) * d.log() - ((dim - 3.0) / 2.0) * (1.0 - 0.25 * d * d).clamp_min(1e-12).log();
      const auto ok = neg_mask.logical_and(d.lt(c.dw_nonzero_loss_cutoff));
      logw = torch::where(ok, logw, torch::full_like(logw, -kInf));
      const auto w = (logw - std::get<0>(logw.max(1, true))).exp() * ok.to(torch::kFloat64);
      // rows with no admissible negative fall back to a uniform choice among all negatives
      const auto usable = ok.any(1).unsqueeze(1);
      auto probs = torch::where(usable, w, neg_mask.to(torch::kFloat64));
      // rows without any negative are dropped below; give them a valid distribution for multinomial
      probs = probs + has_neg.logical_not().unsqueeze(1).to(torch::kFloat64);
      n = torch::multinomial(probs.cpu(), 1, false, gen).squeeze(1).to(sim.device());
      break;
    }
  }
  return n;
}

}  // namespace

MinedTriplets mine_triplets(const torch::Tensor& sim_in, const torch::Tensor& labels_in, const MinerConfig& c,
                            torch::Generator gen) {
  if (sim_in.dim() != 2 || sim_in.size(0) != sim_in.size(1))
    throw std::invalid_argument("mine_triplets: the similarity matrix must be square");
  if (labels_in.dim() != 1 || labels_in.size(0) != sim_in.size(0))
    throw std::invalid_argument("mine_triplets: one label per batch item");
  torch::NoGradGuard no_grad;
  const auto sim = sim_in.detach().to(torch::kFloat64);
  const auto labels = labels_in.to(sim.device());
  const auto B = sim.size(0);
  const auto eye = torch::eye(B, torch::TensorOptions().dtype(torch::kBool).device(sim.device()));
  const auto same = labels.unsqueeze(0).eq(labels.unsqueeze(1));
  const auto pos_mask = same.logical_and(eye.logical_not());
  const auto neg_mask = same.logical_not();
  const auto has_pos = pos_mask.any(1), has_neg = neg_mask.any(1);
  if (c.one_triplet_per_feature) return mine_disjoint_triplets(sim, labels, c, gen);

  const auto idx = torch::arange(B, torch::TensorOptions().dtype(torch::kInt64).device(sim.device()));
  torch::Tensor p, rows = idx;  // rows: each triplet's anchor (every item, or with all positives one per pair)
  switch (c.positive) {
    case PositiveChoice::easy: p = torch::where(pos_mask, sim, torch::full_like(sim, -kInf)).argmax(1); break;
    case PositiveChoice::hard: p = torch::where(pos_mask, sim, torch::full_like(sim, kInf)).argmin(1); break;
    case PositiveChoice::random: p = random_choice(pos_mask, gen); break;
    case PositiveChoice::all: {  // row-major: anchors in order, each anchor's positives in batch order
      const auto pairs = pos_mask.nonzero();
      rows = pairs.select(1, 0).contiguous();
      p = pairs.select(1, 1).contiguous();
      break;
    }
  }
  const bool per_pair = c.positive == PositiveChoice::all;
  const auto n = per_pair ? choose_negatives(sim.index_select(0, rows), neg_mask.index_select(0, rows), p, c, gen)
                          : choose_negatives(sim, neg_mask, p, c, gen);
  MinedTriplets out;
  out.skipped_no_positive = has_pos.logical_not().sum().item<std::int64_t>();
  out.skipped_no_negative = has_pos.logical_and(has_neg.logical_not()).sum().item<std::int64_t>();
  const auto keep = per_pair ? has_neg.index_select(0, rows) : has_pos.logical_and(has_neg);
  out.anchors = rows.masked_select(keep);
  out.positives = p.masked_select(keep);
  out.negatives = n.masked_select(keep);
  return out;
}

void require_triplets(const torch::Tensor& emb, const MinedTriplets& t) {
  if (emb.dim() != 2) throw std::invalid_argument("embeddings must be B x d");
  if (!t.anchors.defined() || t.anchors.numel() == 0)
    throw std::invalid_argument("no triplets in the batch: every class has a single sample, or only one class");
}

}  // namespace dmlbench::experiments
