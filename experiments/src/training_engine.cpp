#include "dmlbench/experiments/training_engine.hpp"

#include "dmlbench/experiments/anchor_neighbour_sampler.hpp"
#include "dmlbench/experiments/atomic_file.hpp"
#include "dmlbench/experiments/batch_miner.hpp"
#include "dmlbench/experiments/class_balanced_sampler.hpp"
#include "dmlbench/experiments/class_tree_json.hpp"
#include "dmlbench/experiments/class_tree_margins.hpp"
#include "dmlbench/experiments/device.hpp"
#include "dmlbench/experiments/embedding_model.hpp"
#include "dmlbench/experiments/embedding_spread.hpp"
#include "dmlbench/experiments/hierarchical_triplet_loss.hpp"
#include "dmlbench/experiments/metric_losses.hpp"
#include "dmlbench/experiments/npy_file.hpp"
#include "dmlbench/experiments/reproduction.hpp"
#include "dmlbench/experiments/retrieval_evaluation.hpp"
#include "dmlbench/experiments/subcluster_count.hpp"
#include "dmlbench/experiments/retrieval_metrics.hpp"
#include "dmlbench/experiments/training_data.hpp"
#include "dmlbench/experiments/trimmed_loss.hpp"
#include "dmlbench/experiments/triplet_movement_log.hpp"
#include "dmlbench/theory/hierarchy_recovery.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>

namespace dmlbench::experiments {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;
namespace F = torch::nn::functional;

double metric_value(const json& metrics, const std::string& dotted) { return metric_at(metrics, dotted); }

namespace {

bool cosine_loss(const RunConfig& c) {
  if (c.loss.name == "htl") return true;  // [HTL]: unit-length features (the tree's thresholds assume them)
  return c.loss.name == "nca" || c.loss.name == "l2nd" || c.loss.name == "ms" ||
         (c.loss.name == "triplet" && c.loss.distance == "cosine");
}

std::vector<std::string> eval_sets(const RunConfig& c, const TrainingData& d);

// Cross-key checks the schema cannot express, and those that need the data: one config_error naming the keys.
void check_config(const RunConfig& c, const TrainingData& d, const std::string& train_level) {
  if (cosine_loss(c) && !c.model.normalize)
    throw config_error("loss.name = " + c.loss.name + (c.loss.name == "triplet" ? " with cosine distance" : "") +
                       " compares cosine similarities of L2-normalised embeddings: set model.normalize = true");
  if (c.loss.ms_positives != "mined" && c.loss.name != "ms")
    throw config_error("loss.ms_positives = " + c.loss.ms_positives + " applies to loss.name = ms only, not " +
                       c.loss.name + " (triplet losses choose positives by miner.name, e.g. eps-trip-sh)");
  if ((c.miner.name == "distance-weighted" || c.miner.name == "eps-distance-weighted") && !c.model.normalize)
    throw config_error("miner.name = " + c.miner.name + " samples by distance on the unit sphere: set "
                       "model.normalize = true");
  if (c.eval.movement) try {
      movement_model_of(c.loss.name);  // the losses whose mined triplets the log can follow
    } catch (const std::invalid_argument& e) {
      throw config_error(std::string("eval.movement: ") + e.what());
    }
  if (c.eval.movement && c.loss.trim > 0)
    throw config_error("eval.movement follows every mined triplet: loss.trim leaves some out of the step; set it to 0");
  if (!c.model.init_run.empty()) {
    if (!c.model.pretrained.empty())
      throw config_error("model.init_run and model.pretrained both name starting weights: name one");
    const fs::path r(c.model.init_run);
    if (!fs::exists(r / "metrics.json") || !fs::exists(r / "checkpoint_model.pt"))
      throw config_error("model.init_run = " + r.string() + " is not a finished run (no metrics.json and "
                         "checkpoint_model.pt there)");
    const json other = json::parse(std::ifstream(r / "checkpoint.json")).at("config").at("model");
    for (const char* k : {"name", "embedding_dim", "normalize", "kernels"})
      if (other.at(k) != c.resolved.at("model").at(k))
        throw config_error("model.init_run = " + r.string() + " trained model." + k + " = " + other.at(k).dump() +
                           ", this run has " + c.resolved.at("model").at(k).dump());
  }
  for (const auto& name : c.eval.curve_sets) d.eval_set(name);
  if (!c.eval.subclusters.empty())
    for (const auto& name : eval_sets(c, d)) {
      d.eval_set(name).level_index(c.eval.subclusters[0]);
      d.eval_set(name).level_index(c.eval.subclusters[1]);
    }
  d.train.level_index(train_level);
  for (const auto& s : c.eval.sets) d.eval_set(s);
  if (!c.eval.triplet_accuracy_set.empty()) d.eval_set(c.eval.triplet_accuracy_set).level_index(train_level);
  if (c.loss.trim > 0 && c.loss.name != "triplet" && c.loss.name != "nca" && c.loss.name != "l2nd")
    throw config_error("loss.trim = " + std::to_string(c.loss.trim) + ": the trimmed loss applies to the triplet "
                       "losses (triplet, nca, l2nd), not to loss.name = " + c.loss.name);
  if (c.loss.name == "htl" && c.loss.distance == "cosine")
    throw config_error("loss.name = htl compares Euclidean distances: loss.distance = euclidean (as [HTL] prints it) or "
                       "squared (the units of its margin), not cosine");
  if (c.batch.sampler == "anchor-neighbour" && c.loss.name != "htl")
    throw config_error("batch.sampler = anchor-neighbour draws neighbours by the class tree of loss.name = htl, not " +
                       c.loss.name);
  if (c.batch.sampler == "anchor-neighbour" && c.loss.htl_update_epochs == 0)
    throw config_error("batch.sampler = anchor-neighbour needs a class tree: loss.htl_update_epochs = 0 never builds one");
  if (!c.eval.tree_groups.empty()) d.train.level_index(c.eval.tree_groups);
  if (c.batch.sampler == "anchor-neighbour") {  // each class must give t distinct images
    std::map<std::int64_t, std::int64_t> count;
    for (auto y : d.train.labels[std::size_t(d.train.level_index(train_level))]) ++count[y];
    for (const auto& [y, n] : count)
      if (n < c.batch.per_class)
        throw config_error("batch.sampler = anchor-neighbour draws batch.per_class = " +
                           std::to_string(c.batch.per_class) + " distinct images per class, but training class " +
                           std::to_string(y) + " has " + std::to_string(n));
  }
  if (c.eval.scatter && c.eval.triplet_accuracy_set.empty())
    throw config_error("eval.scatter logs the set named by eval.triplet_accuracy_set: name one");
  std::set<std::int64_t> classes(d.train.labels[std::size_t(d.train.level_index(train_level))].begin(),
                                 d.train.labels[std::size_t(d.train.level_index(train_level))].end());
  if (c.loss.name == "htl")
    for (auto y : classes)
      if (std::count(d.train.labels[std::size_t(d.train.level_index(train_level))].begin(),
                     d.train.labels[std::size_t(d.train.level_index(train_level))].end(), y) < 2)
        throw config_error("loss.name = htl: training class " + std::to_string(y) +
                           " has one image; the tree's average inner distance s_c needs two");
  if (int(classes.size()) < c.batch.classes)
    throw config_error("batch.classes = " + std::to_string(c.batch.classes) + " but the training split has " +
                       std::to_string(classes.size()) + " classes at level " + train_level);
}

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

// A fixed, seeded set of triplets of the set (each item an anchor with a random positive and a random negative at
// the training level) and the fraction an embedding orders correctly, d(a, p) < d(a, n): scale-free, unlike the
// loss, whose value grows with the embedding's scale.
MinedTriplets fixed_triplets(const torch::Tensor& labels, std::uint64_t seed) {
  auto gen = at::detail::createCPUGenerator(seed * 104729ULL + 17);
  return mine_triplets(torch::zeros({labels.size(0), labels.size(0)}, torch::kFloat64), labels, named_miner("random"),
                       gen);
}

double triplet_accuracy(const torch::Tensor& emb, const MinedTriplets& t) {
  const auto e = emb.to(torch::kFloat64);
  const auto a = e.index({t.anchors}), p = e.index({t.positives}), n = e.index({t.negatives});
  return (a - p).pow(2).sum(1).lt((a - n).pow(2).sum(1)).to(torch::kFloat64).mean().item<double>();
}

std::vector<std::string> levels_of(const RunConfig& c, const LabeledSplit& s) {
  if (c.eval.levels.empty()) return s.level_names;
  for (const auto& l : c.eval.levels) s.level_index(l);
  return c.eval.levels;
}

// The ranking of the configured metric (eval.metric), without clustering; the callers set K.
RetrievalOptions ranking_options(const RunConfig& c) {
  RetrievalOptions o;
  o.similarity = c.eval.metric == "euclidean" ? Similarity::euclidean : Similarity::cosine;
  o.clustering = false;
  return o;
}

// The labels of `levels` of the set, as retrieval_report takes them.
std::vector<LabelLevel> label_levels_of(const LabeledSplit& s, const std::vector<std::string>& levels) {
  std::vector<LabelLevel> out;
  for (const auto& level : levels) out.push_back({level, s.labels[std::size_t(s.level_index(level))]});
  return out;
}

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
                  bool with_ranking = true) {
  const auto levels = levels_of(c, s);
  std::vector<int> ks;
  for (int k : c.eval.ks)
    if (k < s.size) ks.push_back(k);
  RetrievalOptions o = ranking_options(c);
  o.ks = ks.empty() ? std::vector<int>{1} : ks;
  o.ranking_metrics = with_ranking;
  const auto report = s.size >= 2 && (with_ranking || !ks.empty()) ? retrieval_report(emb, label_levels_of(s, levels), o)
                                                                    : RetrievalReport{};
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
      for (const char* key : {"precision_at_1", "r_precision", "map_at_r", "queries_without_positive"}) r[key] = lr[key];
      // [XHN] Problem 1 measured directly: mean cosine similarity of all, same-class and other-class pairs
      const auto spread = embedding_spread(emb, y);
      auto num = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
      r["similarity"] = {{"mean_all", num(spread.mean_all)}, {"mean_same_class", num(spread.mean_same_class)},
                         {"mean_other_class", num(spread.mean_other_class)}};
    }
    if (with_nmi) {
      const auto classes = std::get<0>(at::_unique(y)).size(0);
      r["classes"] = classes;
      r["nmi"] = nmi_of_kmeans(emb, y, int(classes), c.seed);
      const auto kplus = classes * c.eval.nmi_plus_factor;
      r["nmi_plus_k"] = kplus;
      r["nmi_plus"] = kplus <= s.size ? json(nmi_of_kmeans(emb, y, int(kplus), c.seed)) : json(nullptr);
    }
    out[levels[l]] = r;
  }
  return out;
}

std::vector<std::string> eval_sets(const RunConfig& c, const TrainingData& d) {
  return c.eval.sets.empty() ? d.eval_set_names() : c.eval.sets;
}

json without_max_steps(json cfg) {
  cfg["schedule"].erase("max_steps");  // run control, not part of the model: a smoke-stopped run may be continued
  return cfg;
}

std::string fmt_seconds(double s) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(s < 10 ? 1 : 0) << s << " s";
  return o.str();
}

// The [HTL] class tree of the training split's embeddings at the training level (tree parameters from loss.htl_*).
ClassTreeMargins tree_of_training_set(const RunConfig& c, EmbeddingModel& model, const LabeledSplit& train,
                                      const std::string& train_level, torch::Device dev) {
  return class_tree_margins(embed_set(model, train, dev, true), train.labels[std::size_t(train.level_index(train_level))],
                            c.loss.htl_levels, theory::linkage_from_name(c.loss.htl_linkage), c.loss.htl_beta);
}

// Each tree class's group at a coarser level (the majority of its items'; `mixed` counts classes split over groups).
struct KnownGroups {
  std::vector<std::int64_t> of_class;
  int mixed = 0;
};
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
json tree_recovery(const ClassTreeMargins& t, const KnownGroups& k, const std::string& coarse_level,
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

}  // namespace

json train_run(const RunConfig& c, const RunOptions& o, std::ostream& log) {
  if (o.out_dir.empty()) throw config_error("an output folder is required (--out)");
  const auto t0 = std::chrono::steady_clock::now();
  const torch::Device dev(resolve_device(c.device));
  const TrainingData data = load_training_data(c);
  const std::string train_level = c.dataset.train_level.empty() ? data.default_train_level : c.dataset.train_level;
  check_config(c, data, train_level);
  const auto train_y_vec = data.train.labels[std::size_t(data.train.level_index(train_level))];
  const std::vector<int> train_labels(train_y_vec.begin(), train_y_vec.end());
  const auto train_y = torch::tensor(train_y_vec, torch::kInt64);
  const auto num_classes = std::int64_t(std::set<std::int64_t>(train_y_vec.begin(), train_y_vec.end()).size());
  // [HTL]: each training class's position among the sorted distinct labels (the margin table's rows), its items
  const std::vector<std::int64_t> class_labels = [&] {
    const std::set<std::int64_t> u(train_y_vec.begin(), train_y_vec.end());
    return std::vector<std::int64_t>(u.begin(), u.end());
  }();
  std::vector<std::int64_t> class_pos(train_y_vec.size());
  std::vector<std::vector<std::int64_t>> items_by_class(class_labels.size());
  for (std::size_t i = 0; i < train_y_vec.size(); ++i) {
    class_pos[i] = std::lower_bound(class_labels.begin(), class_labels.end(), train_y_vec[i]) - class_labels.begin();
    items_by_class[std::size_t(class_pos[i])].push_back(std::int64_t(i));
  }
  const auto train_class_pos = torch::tensor(class_pos, torch::kInt64);

  torch::manual_seed(c.seed);
  EmbeddingModel model = make_embedding_model(c.model.name, c.model.embedding_dim, c.model.kernels,
                                              data.channels);
  if (!c.model.pretrained.empty()) model.load_pretrained(c.model.pretrained);
  if (!c.model.init_run.empty()) model.load((fs::path(c.model.init_run) / "checkpoint_model.pt").string());
  model.set_freeze_bn(c.model.freeze_bn);
  model.to(dev);
  MarginLoss margin_loss{nullptr};
  if (c.loss.name == "margin") {
    margin_loss = MarginLoss(int(num_classes), c.loss.margin, c.loss.beta0);
    margin_loss->to(dev);
  }
  // parameter groups: the backbone, the embedding head when it has its own learning rate, the margin loss's beta
  std::vector<torch::optim::OptimizerParamGroup> groups;
  std::vector<double> base_lr;
  if (c.optimizer.head_lr > 0) {
    groups.emplace_back(model.backbone_parameters());
    base_lr.push_back(c.optimizer.lr);
    groups.emplace_back(model.head_parameters());
    base_lr.push_back(c.optimizer.head_lr);
  } else {
    groups.emplace_back(model.parameters());
    base_lr.push_back(c.optimizer.lr);
  }
  if (margin_loss) {
    groups.emplace_back(margin_loss->parameters());
    base_lr.push_back(c.loss.beta_lr > 0 ? c.loss.beta_lr : c.optimizer.lr);
  }
  std::unique_ptr<torch::optim::Optimizer> opt;
  if (c.optimizer.name == "adam") {
    auto defaults = torch::optim::AdamOptions(c.optimizer.lr).weight_decay(c.optimizer.weight_decay);
    for (std::size_t g = 0; g < groups.size(); ++g)
      groups[g].set_options(std::make_unique<torch::optim::AdamOptions>(
          torch::optim::AdamOptions(base_lr[g]).weight_decay(c.optimizer.weight_decay)));
    opt = std::make_unique<torch::optim::Adam>(groups, defaults);
  } else {
    auto defaults =
        torch::optim::SGDOptions(c.optimizer.lr).momentum(c.optimizer.momentum).weight_decay(c.optimizer.weight_decay);
    for (std::size_t g = 0; g < groups.size(); ++g)
      groups[g].set_options(std::make_unique<torch::optim::SGDOptions>(
          torch::optim::SGDOptions(base_lr[g]).momentum(c.optimizer.momentum).weight_decay(c.optimizer.weight_decay)));
    opt = std::make_unique<torch::optim::SGD>(groups, defaults);
  }

  fs::create_directories(o.out_dir);
  const fs::path out(o.out_dir), ck_model = out / "checkpoint_model.pt", ck_opt = out / "checkpoint_optim.pt",
                 ck_loss = out / "checkpoint_loss.pt", ck_meta = out / "checkpoint.json",
                 ck_tree = out / "checkpoint_htl_tree.pt";
  const json head = {{"config", c.resolved}, {"git_revision", o.git_revision}, {"seed", c.seed}};
  int epoch0 = 0;
  long steps = 0;
  double first_loss = 0, last_loss = 0, acc_before = 0, train_seconds = 0;
  std::int64_t skipped = 0;
  json scatter_rows = json::array(), curve = json::array(), step_rows = json::array(), active_by_epoch = json::object(),
       movement_rows = json::array();
  // [HTL] Algorithm 1: the margin is loss.margin for every class pair and batches are class-balanced until the first
  // tree; each tree replaces the margin table and the class distances of A-N sampling
  const bool htl = c.loss.name == "htl";
  torch::Tensor htl_margins = torch::full({num_classes, num_classes}, c.loss.margin, torch::kFloat32).to(dev);
  std::vector<double> htl_distances;
  int trees_built = 0, last_tree_epoch = 0;

  const LabeledSplit* acc_set = c.eval.triplet_accuracy_set.empty() ? nullptr : &data.eval_set(c.eval.triplet_accuracy_set);
  MinedTriplets check_triplets;
  torch::Tensor acc_labels;
  if (acc_set) {
    acc_labels = acc_set->level_labels(train_level);
    check_triplets = fixed_triplets(acc_labels, c.seed);
  }
  if (o.resume && fs::exists(ck_meta)) {
    json meta = json::parse(std::ifstream(ck_meta));
    if (without_max_steps(meta["config"]) != without_max_steps(c.resolved))
      throw config_error("--resume: " + ck_meta.string() + " was written by another config: " + meta["config"].dump());
    model.load(ck_model.string());
    torch::load(*opt, ck_opt.string());
    if (margin_loss) torch::load(margin_loss, ck_loss.string());
    epoch0 = meta["epochs_done"];
    steps = meta["steps"];
    first_loss = meta["first_loss"];
    last_loss = meta["last_loss"];
    skipped = meta["skipped_anchors"];
    acc_before = meta["triplet_accuracy_before"];
    scatter_rows = meta["scatter"];
    curve = meta["curve"];
    step_rows = meta.value("steps_log", json::array());
    active_by_epoch = meta.value("active_by_epoch", json::object());
    movement_rows = meta.value("movement", json::array());
    trees_built = meta.value("trees_built", 0);
    last_tree_epoch = meta.value("last_tree_epoch", 0);
    if (htl && trees_built > 0) {
      std::vector<torch::Tensor> tree;
      torch::load(tree, ck_tree.string());
      htl_margins = tree.at(0).to(dev);
      const auto dist = tree.at(1).contiguous();
      htl_distances.assign(dist.data_ptr<double>(), dist.data_ptr<double>() + dist.numel());
    }
    log << "[train] resumed " << o.out_dir << " after epoch " << epoch0 << "\n";
  }
  MinerConfig miner = named_miner(c.miner.name);
  miner.one_triplet_per_feature = c.miner.one_triplet_per_feature;
  const bool mine_cosine = c.miner.similarity == "cosine" ||
                           (c.miner.similarity == "auto" && (cosine_loss(c) || c.miner.name == "distance-weighted"));
  const long batch = long(c.batch.classes) * c.batch.per_class;
  const long per_epoch =
      c.schedule.steps_per_epoch > 0 ? c.schedule.steps_per_epoch : std::max<long>(1, long(data.train.size) / batch);
  if (epoch0 == 0 && acc_set) acc_before = triplet_accuracy(embed_set(model, *acc_set, dev, c.model.normalize), check_triplets);
  log << "[train] " << c.name << " seed " << c.seed << ": " << data.description << "; " << per_epoch
      << " steps per epoch of " << c.batch.classes << " x " << c.batch.per_class << "\n";
  bool stopped = false;
  for (int epoch = epoch0; epoch < c.schedule.epochs && !stopped; ++epoch) {
    int decays = 0;  // step decay: every learning rate times decay_factor after each listed epoch
    for (int d : c.schedule.decay_epochs) decays += d <= epoch ? 1 : 0;
    for (std::size_t g = 0; g < opt->param_groups().size(); ++g)
      opt->param_groups()[g].options().set_lr(base_lr[g] * std::pow(c.schedule.decay_factor, decays));
    ClassBalancedSampler sampler(train_labels, c.batch.classes, c.batch.per_class,
                                 c.seed * 1000003ULL + std::uint64_t(epoch));
    // [HTL] A-N sampling once a tree exists: l' = classes / m anchors, each with its m - 1 nearest classes
    const bool anchor_neighbour = c.batch.sampler == "anchor-neighbour" && !htl_distances.empty();
    std::mt19937_64 an_rng(c.seed * 1000003ULL + std::uint64_t(epoch) + 0x9e3779b97f4a7c15ULL);
    const AnchorNeighbourConfig an{c.batch.classes / c.batch.classes_per_anchor, c.batch.classes_per_anchor,
                                   c.batch.per_class};
    auto next_batch = [&]() -> std::vector<std::int64_t> {
      if (anchor_neighbour) return anchor_neighbour_batch(htl_distances, items_by_class, an, an_rng);
      const auto b = sampler.next_batch();
      return {b.begin(), b.end()};
    };
    // A file-backed training set decodes the epoch's batches ahead on the loader's threads; the plan is drawn up
    // front, which draws the sampler exactly as the loop below would.
    BatchStream stream;
    std::vector<std::vector<std::int64_t>> plan;
    if (data.train.stream) {
      for (long s = 0; s < per_epoch; ++s) plan.push_back(next_batch());
      stream = data.train.stream(plan, c.seed, std::uint64_t(epoch));
    }
    double loss_sum = 0, active_sum = 0;
    long n_steps = 0, active_steps = 0;
    auto last_note = std::chrono::steady_clock::now();
    for (long s = 0; s < per_epoch; ++s) {
      if (c.schedule.max_steps >= 0 && steps >= c.schedule.max_steps) {
        stopped = true;
        break;
      }
      const auto ts = std::chrono::steady_clock::now();
      std::vector<std::int64_t> bi;
      torch::Tensor x;
      if (stream) {
        bi = plan[std::size_t(s)];
        x = stream().to(dev);
      } else {
        bi = next_batch();
        x = data.train.images(bi, true, c.seed * 2654435761ULL + std::uint64_t(steps)).to(dev);
      }
      const auto y = train_y.index({torch::tensor(bi, torch::kInt64)}).to(dev);
      auto e = model.forward(x);
      if (c.model.normalize) e = F::normalize(e, F::NormalizeFuncOptions().dim(1));
      torch::Tensor loss;
      std::optional<double> active;  // the fraction of the loss's triplets that violate their margin
      std::optional<std::pair<torch::Tensor, MinedTriplets>> moved;  // eval.movement: embeddings and triplets
      auto active_of = [](const torch::Tensor& terms) { return terms.detach().gt(0).to(torch::kFloat64).mean().item<double>(); };
      if (c.loss.name == "htl") {  // [HTL] Sec 3.3: all triplets of the batch
        const auto r = hierarchical_triplet_loss_all(e, train_class_pos.index({torch::tensor(bi, torch::kInt64)}).to(dev),
                                                     htl_margins, c.loss.distance == "squared");
        loss = r.loss;
        active = r.active;
      } else if (c.loss.name == "contrastive") {
        loss = contrastive_loss(e, y, c.loss.margin);
      } else if (c.loss.name == "ms") {
        loss = multi_similarity_loss(e, y, c.loss.ms_alpha, c.loss.ms_beta, c.loss.ms_lambda, c.loss.ms_epsilon,
                                     c.loss.ms_positives == "easiest");
      } else {
        auto gen = at::detail::createCPUGenerator(c.seed * 7919ULL + std::uint64_t(steps));
        const auto sim = mine_cosine ? e.matmul(e.t()).detach() : -torch::cdist(e, e).pow(2).detach();
        const auto t = mine_triplets(sim, y, miner, gen);
        if (c.eval.movement) moved = {e.detach(), t};
        skipped += t.skipped_no_positive + t.skipped_no_negative;
        const auto distance = c.loss.distance == "squared"     ? TripletDistance::squared_euclidean
                              : c.loss.distance == "euclidean" ? TripletDistance::euclidean
                                                               : TripletDistance::cosine;
        if (c.loss.trim > 0 && t.anchors.size(0) > 0) {  // [LCC] Sec 5.2.5: the lowest-loss triplets only
          const auto terms = c.loss.name == "triplet" ? triplet_margin_terms(e, t, c.loss.margin, distance)
                             : c.loss.name == "nca"   ? nca_triplet_terms(e, t, c.loss.scale)
                                                      : second_order_triplet_terms(e, t);
          loss = trimmed_mean(terms, c.loss.trim);
          if (c.loss.name == "triplet") active = active_of(terms);
        } else if (c.loss.name == "triplet") {
          const auto terms = triplet_margin_terms(e, t, c.loss.margin, distance);  // triplet_margin_loss's terms
          loss = terms.mean();
          active = active_of(terms);
        } else if (c.loss.name == "nca")
          loss = nca_triplet_loss(e, t, c.loss.scale);
        else if (c.loss.name == "l2nd")
          loss = second_order_triplet_loss(e, t);
        else
          loss = margin_loss->forward(e, y, t);
      }
      opt->zero_grad();
      loss.backward();
      opt->step();
      if (moved && moved->second.anchors.size(0) > 0) {
        // [XHN] Sec 6.1: the same images through the updated network, in the same mode (batch statistics), the
        // batch-norm running statistics put back so that the log does not change the training
        torch::NoGradGuard no_grad;
        std::vector<torch::Tensor> kept;
        for (const auto& b : model.module().buffers()) kept.push_back(b.clone());
        auto e1 = model.forward(x);
        {
          std::size_t i = 0;
          for (auto& b : model.module().buffers()) b.copy_(kept[i++]);
        }
        const auto m = step_movement(moved->first, triplet_dots(e1, moved->second), moved->second,
                                     movement_model_of(c.loss.name), c.eval.movement_tolerance);
        json row = {steps + 1, epoch + 1};
        for (const auto* counts : {&m.observed, &m.predicted})
          for (auto n : counts->count) row.push_back(n);
        row.push_back(m.agree);
        row.push_back(m.compared);
        movement_rows.push_back(row);
      }
      const double lv = loss.item<double>();
      if (!std::isfinite(lv))
        throw std::runtime_error("training diverged: loss " + std::to_string(lv) + " at step " + std::to_string(steps));
      train_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - ts).count();
      loss_sum += lv;
      ++n_steps;
      ++steps;
      if (active) {
        active_sum += *active;
        ++active_steps;
      }
      step_rows.push_back({steps, epoch + 1, lv, active ? json(*active) : json(nullptr)});
      if (std::chrono::duration<double>(std::chrono::steady_clock::now() - last_note).count() > 30) {
        last_note = std::chrono::steady_clock::now();
        const double el = std::chrono::duration<double>(last_note - t0).count();
        const double done = double(epoch - epoch0) * double(per_epoch) + double(s + 1);
        log << "[train]   epoch " << epoch + 1 << ", step " << s + 1 << "/" << per_epoch << ", loss "
            << std::setprecision(4) << loss_sum / double(n_steps) << ", ETA "
            << fmt_seconds(el / done * (double(c.schedule.epochs - epoch0) * double(per_epoch) - done)) << std::endl;
      }
    }
    if (n_steps == 0) break;
    const double mean_loss = loss_sum / double(n_steps);
    if (epoch == 0) first_loss = mean_loss;
    last_loss = mean_loss;
    // stopped by schedule.max_steps inside the epoch: no tree, curve point or checkpoint of a partial epoch (a resumed
    // run redoes the epoch from its start, as after a kill)
    if (n_steps < per_epoch) break;
    if (active_steps > 0) active_by_epoch[std::to_string(epoch + 1)] = active_sum / double(active_steps);
    if (htl && c.loss.htl_update_epochs > 0 && (epoch + 1) % c.loss.htl_update_epochs == 0) {
      // [HTL] Algorithm 1 step 7: the tree of the current model's training embeddings, for the epochs that follow
      const auto tree = tree_of_training_set(c, model, data.train, train_level, dev);
      htl_margins = tree.margins.to(dev, torch::kFloat32);
      htl_distances = tree.distance_table;
      ++trees_built;
      last_tree_epoch = epoch + 1;
      write_file_atomically((out / "htl_tree.json").string(),
                            class_tree_json(tree.distances, tree.tree,
                                            {{"run", c.name}, {"seed", c.seed}, {"after_epoch", epoch + 1},
                                             {"level", train_level}, {"levels", c.loss.htl_levels},
                                             {"linkage", c.loss.htl_linkage}, {"beta", c.loss.htl_beta}})
                                    .dump(1) + "\n");
      log << "[train]   class tree " << trees_built << ": " << tree.distances.classes.size() << " classes, d_0 = "
          << std::setprecision(3) << tree.distances.d0 << ", nodes per level";
      for (int l = 0; l <= tree.tree.levels(); ++l) log << " " << tree.tree.nodes(l);
      log << "\n";
    }
    if (c.eval.scatter) {  // [XHN] Fig 6: each anchor's easiest positive and hardest negative, cosine similarity
      const auto h = F::normalize(embed_set(model, *acc_set, dev, c.model.normalize), F::NormalizeFuncOptions().dim(1));
      auto sim = h.matmul(h.t());
      const auto& y = acc_labels;
      const auto same = y.unsqueeze(0).eq(y.unsqueeze(1));
      sim.fill_diagonal_(-2.0);
      const auto sap = torch::where(same, sim, torch::full_like(sim, -2.0)).amax(1);
      const auto san = torch::where(same.logical_not(), sim, torch::full_like(sim, -2.0)).amax(1);
      const long stride = std::max<long>(1, long(h.size(0)) / 500);  // at most 500 points per epoch in the log
      for (long i = 0; i < h.size(0); i += stride)
        scatter_rows.push_back({epoch + 1, sap[i].item<double>(), san[i].item<double>()});
    }
    if (c.eval.every_epoch) {  // a Recall@K curve ([LCC] Fig 5a): no NMI, no MAP@R
      json point = {{"epoch", epoch + 1}, {"step", steps}, {"loss", mean_loss}, {"eval", json::object()}};
      if (active_steps > 0) point["active_triplets"] = active_sum / double(active_steps);
      for (const auto& name : c.eval.curve_sets.empty() ? eval_sets(c, data) : c.eval.curve_sets) {
        const auto& s = data.eval_set(name);
        point["eval"][name] = evaluate_set(c, embed_set(model, s, dev, c.model.normalize), s, false, false);
      }
      curve.push_back(point);
    }
    // checkpoint: model, optimizer (and the margin loss's beta), then the meta file that marks the checkpoint complete
    model.save(ck_model.string() + ".tmp");
    fs::rename(ck_model.string() + ".tmp", ck_model);
    torch::save(*opt, ck_opt.string() + ".tmp");
    fs::rename(ck_opt.string() + ".tmp", ck_opt);
    if (margin_loss) {
      torch::save(margin_loss, ck_loss.string() + ".tmp");
      fs::rename(ck_loss.string() + ".tmp", ck_loss);
    }
    if (htl && trees_built > 0) {
      torch::save(std::vector<torch::Tensor>{htl_margins.cpu(), torch::tensor(htl_distances, torch::kFloat64)},
                  ck_tree.string() + ".tmp");
      fs::rename(ck_tree.string() + ".tmp", ck_tree);
    }
    write_file_atomically(ck_meta.string(), json{{"config", c.resolved}, {"epochs_done", epoch + 1}, {"steps", steps},
                                                 {"first_loss", first_loss}, {"last_loss", last_loss},
                                                 {"skipped_anchors", skipped}, {"triplet_accuracy_before", acc_before},
                                                 {"scatter", scatter_rows}, {"curve", curve},
                                                 {"steps_log", step_rows}, {"active_by_epoch", active_by_epoch},
                                                 {"movement", movement_rows},
                                                 {"trees_built", trees_built}, {"last_tree_epoch", last_tree_epoch}}
                                                .dump());
    const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    log << "[train] " << c.name << " " << c.miner.name << " seed " << c.seed << ": epoch " << epoch + 1 << "/"
        << c.schedule.epochs << ", step " << steps << ", loss " << std::setprecision(4) << mean_loss << ", "
        << std::setprecision(3) << el << " s, ETA " << el / double(epoch + 1 - epoch0) * double(c.schedule.epochs - epoch - 1)
        << " s" << std::endl;
  }

  // final evaluation of every set, its embeddings written for `dmlbench eval` and the figures
  json metrics = head;
  metrics["steps"] = steps;
  metrics["first_loss"] = first_loss;
  metrics["last_loss"] = last_loss;
  metrics["skipped_anchors"] = skipped;
  if (!active_by_epoch.empty()) {  // [HTL] Sec 3.1: the triplets that still violate their margin, per epoch
    metrics["active_triplets"] = {{"first_epoch", active_by_epoch.begin().value()},
                                  {"last_epoch", (--active_by_epoch.end()).value()}, {"by_epoch", active_by_epoch}};
  }
  if (htl) metrics["htl"] = {{"trees_built", trees_built}, {"last_tree_epoch", last_tree_epoch}};
  if (c.eval.movement) {  // [XHN] Sec 6.1 / Fig 3
    metrics["movement"] = movement_summary(movement_rows);
    metrics["movement"]["tolerance"] = c.eval.movement_tolerance;
    metrics["movement"]["model"] = theory::name(movement_model_of(c.loss.name));
  }
  if (!c.eval.tree_groups.empty()) {  // beyond [HTL]: does the tree of the final embeddings recover a known grouping?
    const auto tree = tree_of_training_set(c, model, data.train, train_level, dev);
    const auto known = known_groups(tree, data.train, train_level, c.eval.tree_groups);
    metrics["tree"] = tree_recovery(tree, known, c.eval.tree_groups, c.seed);
    auto tj = class_tree_json(tree.distances, tree.tree,
                              {{"run", c.name}, {"seed", c.seed}, {"from", "final training embeddings"},
                               {"level", train_level}, {"levels", c.loss.htl_levels}, {"linkage", c.loss.htl_linkage},
                               {"groups", c.eval.tree_groups}});
    tj["known_groups"] = {{"level", c.eval.tree_groups}, {"of_class", known.of_class}};
    write_file_atomically((out / "class_tree.json").string(), tj.dump(1) + "\n");
  }
  json ev = json::object();
  std::ostringstream csv;
  csv << "# " << head.dump() << "\nsplit";
  const auto& all_levels = data.eval.front().level_names;
  for (const auto& l : all_levels) csv << "," << l;
  const bool two_d = c.model.embedding_dim <= 2;
  if (two_d) csv << ",x,y";
  csv << "\n";
  std::map<std::string, torch::Tensor> embedded;
  for (const auto& name : eval_sets(c, data)) {
    const auto& s = data.eval_set(name);
    const auto emb = embed_set(model, s, dev, c.model.normalize);
    embedded[name] = emb;
    ev[name] = evaluate_set(c, emb, s, c.eval.nmi);
    if (!c.eval.subclusters.empty()) {  // as retrieval sees the rows: unit vectors for cosine
      const auto& lv = c.eval.subclusters;
      const auto rows = c.eval.metric == "cosine" ? F::normalize(emb, F::NormalizeFuncOptions().dim(1)) : emb;
      const auto sc = count_subclusters(rows, s.labels[std::size_t(s.level_index(lv[0]))],
                                        s.labels[std::size_t(s.level_index(lv[1]))]);
      ev[name]["subclusters"] = {{"coarse", lv[0]}, {"fine", lv[1]}, {"coarse_classes", sc.coarse_classes},
                                 {"mean_fine_classes", sc.mean_fine_classes}, {"mean_subclusters", sc.mean_subclusters},
                                 {"mean_surviving", sc.mean_surviving}};
    }
    if (acc_set == &s) {
      metrics["heldout_triplet_accuracy"] = {{"set", name}, {"level", train_level}, {"before", acc_before},
                                             {"after", triplet_accuracy(emb, check_triplets)},
                                             {"triplets", check_triplets.anchors.size(0)}};
    }
    const auto e32 = emb.to(torch::kFloat32).contiguous();
    write_npy_float32((out / "embeddings" / (name + ".npy")).string(), e32.data_ptr<float>(), e32.size(0), e32.size(1));
    std::ostringstream lab;
    for (std::size_t l = 0; l < s.level_names.size(); ++l) lab << (l ? "," : "") << s.level_names[l];
    lab << "\n";
    for (std::int64_t i = 0; i < s.size; ++i) {
      for (std::size_t l = 0; l < s.level_names.size(); ++l) lab << (l ? "," : "") << s.labels[l][std::size_t(i)];
      lab << "\n";
    }
    write_file_atomically((out / "embeddings" / (name + "_labels.csv")).string(), lab.str());
    if (!s.paths.empty()) {  // the image of each row, for nearest-neighbour figures
      std::ostringstream files;
      for (const auto& p : s.paths) files << p << "\n";
      write_file_atomically((out / "embeddings" / (name + "_files.txt")).string(), files.str());
    }
    if (two_d && s.level_names == all_levels)
      for (std::int64_t i = 0; i < emb.size(0); ++i) {
        csv << name;
        for (std::size_t l = 0; l < s.level_names.size(); ++l) csv << "," << s.labels[l][std::size_t(i)];
        csv << "," << emb[i][0].item<float>() << "," << (emb.size(1) > 1 ? emb[i][1].item<float>() : 0.0f) << "\n";
      }
  }
  for (const auto& [query, gallery] : data.query_gallery)
    if (embedded.count(query) && embedded.count(gallery))
      ev[query + "_to_" + gallery] = evaluate_query_gallery(c, embedded[query], data.eval_set(query),
                                                            embedded[gallery], data.eval_set(gallery));
  metrics["eval"] = ev;
  if (!curve.empty()) metrics["curve"] = curve;
  metrics["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  metrics["train_seconds"] = train_seconds;
  metrics["torch_threads"] = torch::get_num_threads();
  metrics["device"] = dev.str();
  if (two_d) write_file_atomically((out / "embeddings.csv").string(), csv.str());
  if (c.eval.scatter) {
    std::ostringstream sc;
    json h = head;
    h["figure"] = "XHN Fig 6: easiest positive, hardest negative";
    sc << "# " << h.dump() << "\nepoch,s_ap,s_an\n";
    for (const auto& row : scatter_rows) sc << row[0] << "," << row[1].get<double>() << "," << row[2].get<double>() << "\n";
    write_file_atomically((out / "scatter.csv").string(), sc.str());
  }
  {
    std::ostringstream st;  // per step: the loss and the fraction of active triplets ([HTL] Sec 3.1)
    st << "# " << head.dump() << "\nstep,epoch,loss,active_triplets\n";
    for (const auto& r : step_rows)
      st << r[0] << "," << r[1] << "," << std::setprecision(9) << r[2].get<double>() << ","
         << (r[3].is_null() ? std::string() : std::to_string(r[3].get<double>())) << "\n";
    write_file_atomically((out / "train_steps.csv").string(), st.str());
  }
  if (c.eval.movement) {
    std::ostringstream mv;  // per step: where the triplets' dots moved, and where the isolated-triplet model says
    mv << "# " << head.dump() << "\nstep,epoch";
    for (const char* side : {"", "predicted_"})
      for (const char* q : {"up_right", "up_left", "down_left", "down_right", "stationary"}) mv << "," << side << q;
    mv << ",agree,compared\n";
    for (const auto& r : movement_rows) {
      for (std::size_t i = 0; i < r.size(); ++i) mv << (i ? "," : "") << r[i].get<std::int64_t>();
      mv << "\n";
    }
    write_file_atomically((out / "movement.csv").string(), mv.str());
  }
  write_file_atomically((out / "metrics.json").string(), metrics.dump(2) + "\n");
  return metrics;
}

}  // namespace dmlbench::experiments
