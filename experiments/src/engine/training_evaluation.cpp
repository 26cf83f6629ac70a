// A training run's evaluation: a set's embeddings, Recall@K and the ranking metrics by the exact kNN engine, k-means
// NMI / NMI+, the held-out triplet accuracy, and how the [HTL] class tree of the final embeddings recovers a known
// grouping (eval.tree_groups).
#include "class_tree_margins.hpp"
#include "dmlbench/experiments/embedding_distance.hpp"
#include "dmlbench/experiments/embedding_spread.hpp"
#include "../config/ranking_metrics.hpp"
#include "dmlbench/experiments/retrieval_evaluation.hpp"
#include "dmlbench/experiments/retrieval_metrics.hpp"
#include "dmlbench/theory/hierarchy_recovery.hpp"
#include "training_evaluation.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <random>

namespace dmlbench::experiments {

using json = nlohmann::ordered_json;
namespace F = torch::nn::functional;

torch::Tensor embed_set(EmbeddingModel& model, const LabeledSplit& s, torch::Device dev, bool normalize) {
  torch::NoGradGuard no_grad;
  model.eval();
  std::vector<torch::Tensor> parts;
  for (std::int64_t a = 0; a < s.size; a += 1024) {
    std::vector<std::int64_t> idx;
    for (std::int64_t i = a; i < std::min(s.size, a + 1024); ++i) idx.push_back(i);
    auto e = model.forward(s.images(idx, false, 0).to(dev));
    if (normalize) e = F::normalize(e, F::NormalizeFuncOptions().dim(1));
    parts.push_back(e.cpu());
  }
  model.train();
  return torch::cat(parts);
}

MinedTriplets fixed_triplets(const torch::Tensor& labels, std::uint64_t seed) {
  auto gen = at::detail::createCPUGenerator(seed * 104729ULL + 17);
  return mine_triplets(torch::zeros({labels.size(0), labels.size(0)}, torch::kFloat64), labels, named_miner("random"),
                       gen);
}

double triplet_accuracy(const torch::Tensor& emb, const MinedTriplets& t) {
  const auto e = emb.to(torch::kFloat64);
  const auto a = e.index({t.anchors}), p = e.index({t.positives}), n = e.index({t.negatives});
  return paired_distance(a, p, Distance::squared_euclidean)
      .lt(paired_distance(a, n, Distance::squared_euclidean))
      .to(torch::kFloat64)
      .mean()
      .item<double>();
}

namespace {

std::vector<std::string> levels_of(const RunConfig& c, const LabeledSplit& s) {
  if (c.eval.levels.empty()) return s.level_names;
  for (const auto& l : c.eval.levels) s.level_index(l);
  return c.eval.levels;
}

// The ranking of the configured metric (eval.metric), without clustering; the callers set K.
RetrievalOptions ranking_options(const RunConfig& c) {
  RetrievalOptions o;
  o.similarity = c.eval.similarity;
  o.clustering = false;
  return o;
}

// The labels of `levels` of the set, as retrieval_report takes them.
std::vector<LabelLevel> label_levels_of(const LabeledSplit& s, const std::vector<std::string>& levels) {
  std::vector<LabelLevel> out;
  for (const auto& level : levels) out.push_back({level, s.labels[std::size_t(s.level_index(level))]});
  return out;
}

}  // namespace

// The queries of set q ranked against the gallery set g (In-shop's protocol): Recall@K, precision@1, R-precision and
// MAP@R at each configured level both sets have (retrieval_report, ties by gallery index); no clustering.
json evaluate_query_gallery(const RunConfig& c, const torch::Tensor& qe, const LabeledSplit& q, const torch::Tensor& ge,
                            const LabeledSplit& g) {
  RetrievalOptions o = ranking_options(c);
  o.ks.clear();
  for (int k : c.eval.ks)
    if (k <= g.size) o.ks.push_back(k);
  const auto levels = levels_of(c, q);
  json out = json::object();
  for (const auto& r : retrieval_report(qe, label_levels_of(q, levels), ge, label_levels_of(g, levels), o).levels) {
    json j = r;
    for (const char* key : {"nmi", "nmi_k", "nmi_plus", "nmi_plus_k"}) j.erase(key);
    out[r.level] = j;
  }
  return out;
}

// Recall@K, precision@1, R-precision and MAP@R and, at the end of the run, k-means NMI / NMI+ of one set at each
// configured level: one ranking by the exact kNN engine for every level and metric (ties by gallery index,
// kRetrievalTieRule); NMI is nmi_of_kmeans on the embeddings as the model gives them. A curve point (with_ranking
// false) has Recall@K alone.
json evaluate_set(const RunConfig& c, const torch::Tensor& emb, const LabeledSplit& s, bool with_nmi,
                  bool with_ranking, PhaseClock* clock, const std::string& phase_prefix) {
  const auto levels = levels_of(c, s);
  std::vector<int> ks;
  for (int k : c.eval.ks)
    if (k < s.size) ks.push_back(k);
  RetrievalOptions o = ranking_options(c);
  o.ks = ks.empty() ? std::vector<int>{1} : ks;
  o.ranking_metrics = with_ranking;
  std::optional<PhaseClock::Lap> lap(std::in_place, clock, phase_prefix + "ranking");
  const auto report = s.size >= 2 && (with_ranking || !ks.empty()) ? retrieval_report(emb, label_levels_of(s, levels), o)
                                                                    : RetrievalReport{};
  lap.reset();
  const auto& retrieval = report.levels;
  json out = json::object();
  for (std::size_t l = 0; l < levels.size(); ++l) {
    const auto y = s.level_labels(levels[l]);
    json r = json::object();
    json rk = json::object(), ties = json::object();
    for (std::size_t i = 0; i < ks.size(); ++i) {
      rk[std::to_string(ks[i])] = retrieval[l].recall_at_k[i];
      ties[std::to_string(ks[i])] = report.recall_ties_at_k[i];
    }
    r["recall_at_k"] = rk;
    if (with_ranking && !ks.empty()) {
      // the queries whose K-th and (K+1)-th nearest tie: another tie rule moves Recall@K by at most this / queries
      r["queries"] = report.queries;
      r["recall_ties_at_k"] = ties;
    }
    if (!retrieval.empty() && with_ranking) {
      const json lr = retrieval[l];
      for (const auto& key : ranking_metric_keys()) r[key] = lr[key];
      r["queries_without_positive"] = lr["queries_without_positive"];
      // [XHN] Problem 1 measured directly: mean cosine similarity of all, same-class and other-class pairs
      lap.emplace(clock, phase_prefix + "similarity spread");
      const auto spread = embedding_spread(emb, y);
      lap.reset();
      auto num = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
      r["similarity"] = {{"mean_all", num(spread.mean_all)}, {"mean_same_class", num(spread.mean_same_class)},
                         {"mean_other_class", num(spread.mean_other_class)}};
    }
    if (with_nmi) {
      const auto classes = std::get<0>(at::_unique(y)).size(0);
      r["classes"] = classes;
      lap.emplace(clock, phase_prefix + "NMI");
      r["nmi"] = nmi_of_kmeans(emb, y, int(classes), c.seed);
      const auto kplus = classes * c.eval.nmi_plus_factor;
      r["nmi_plus_k"] = kplus;
      lap.emplace(clock, phase_prefix + "NMI+");
      r["nmi_plus"] = kplus <= s.size ? json(nmi_of_kmeans(emb, y, int(kplus), c.seed)) : json(nullptr);
      lap.reset();
    }
    out[levels[l]] = r;
  }
  return out;
}

std::vector<std::string> eval_sets(const RunConfig& c, const TrainingData& d) {
  return c.eval.sets.empty() ? d.eval_set_names() : c.eval.sets;
}

ClassTreeMargins tree_of_training_set(const RunConfig& c, EmbeddingModel& model, const LabeledSplit& train,
                                      const std::string& train_level, torch::Device dev) {
  return class_tree_margins(embed_set(model, train, dev, true), train.labels[std::size_t(train.level_index(train_level))],
                            c.loss.setting("htl_levels").get<int>(),
                            theory::linkage_from_name(c.loss.setting("htl_linkage").get<std::string>()),
                            c.loss.setting("htl_beta").get<double>());
}

KnownGroups known_groups(const ClassTreeMargins& t, const LabeledSplit& train, const std::string& train_level,
                         const std::string& coarse_level) {
  const auto& fine = train.labels[std::size_t(train.level_index(train_level))];
  const auto& coarse = train.labels[std::size_t(train.level_index(coarse_level))];
  std::map<std::int64_t, std::map<std::int64_t, int>> votes;  // class -> coarse label -> items
  for (std::size_t i = 0; i < fine.size(); ++i) ++votes[fine[i]][coarse[i]];
  KnownGroups k;
  for (auto y : t.distances.classes) {
    const auto& v = votes.at(y);
    k.of_class.push_back(
        std::max_element(v.begin(), v.end(), [](auto& a, auto& b) { return a.second < b.second; })->first);
    k.mixed += v.size() > 1;
  }
  return k;
}

// How well the tree's level closest in node count to the known groups recovers them (purity, NMI), and the same
// level against the groups shuffled over the classes (pinned seed): the chance reference.
json tree_recovery_of(const ClassTreeMargins& t, const KnownGroups& k, const std::string& coarse_level,
                   std::uint64_t seed) {
  const auto r = theory::closest_level_agreement(t.tree.node, k.of_class);
  auto shuffled = k.of_class;
  std::mt19937_64 rng(seed * 6364136223846793005ULL + 1442695040888963407ULL);
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  const auto& level = t.tree.node[std::size_t(r.level)];
  const auto chance = theory::partition_agreement(std::vector<std::int64_t>(level.begin(), level.end()), shuffled);
  return {{"groups", coarse_level}, {"group_count", r.agreement.groups_b}, {"classes", k.of_class.size()},
          {"classes_in_several_groups", k.mixed}, {"level", r.level}, {"nodes", r.nodes},
          {"threshold", t.tree.threshold[std::size_t(r.level)]}, {"purity", r.agreement.purity},
          {"inverse_purity", r.agreement.inverse_purity}, {"nmi", r.agreement.nmi},
          {"nmi_shuffled_groups", chance.nmi}, {"purity_shuffled_groups", chance.purity}};
}


}  // namespace dmlbench::experiments
