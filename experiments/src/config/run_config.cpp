#include "dmlbench/experiments/run_config.hpp"

#include "dmlbench/experiments/batch_sampler_spec.hpp"
#include "dmlbench/experiments/loss_spec.hpp"
#include "dmlbench/experiments/miner_spec.hpp"
#include "dmlbench/experiments/transform_presets.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace dmlbench::experiments {

using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

ConfigKey config_key(std::string path, std::string type, json def, std::string doc, std::vector<std::string> choices) {
  ConfigKey k;
  k.path = std::move(path);
  k.type = std::move(type);
  k.default_value = std::move(def);
  k.doc = std::move(doc);
  k.choices = std::move(choices);
  return k;
}

ConfigKey ranged(ConfigKey k, double lo, double hi, bool lo_open, bool hi_open) {
  k.min = lo;
  k.max = hi;
  k.min_exclusive = lo_open;
  k.max_exclusive = hi_open;
  return k;
}

namespace {

const json kRequired = nullptr;

}  // namespace

namespace {

// "name (doc) | name (doc) ..." of registered specs, for a key's documentation.
template <class Specs>
std::string docs_of(const Specs& specs) {
  std::string out;
  for (const auto& s : specs) out += (out.empty() ? "" : " | ") + s.name + " (" + s.doc + ")";
  return out;
}

std::vector<ConfigKey> run_and_model_keys() {
  return {
      config_key("name", "string", "", "the run family, named for the paper experiment it reproduces"),
      config_key("paper", "string", "", "the paper section, table or figure the run reproduces"),
      ranged(config_key("seed", "integer", 1, "seeds the model's initialisation, the split, the sampler and the miner"), 0,
             9.007199254740992e15),
      config_key("device", "string", "auto", "auto (CUDA when present) | cpu | cuda", {"auto", "cpu", "cuda"}),
      config_key("dataset.name", "string", kRequired,
          "mnist-evenodd ([LCC] Sec 5.1) | mnist | fashion-mnist (idx, classes 0-4 train, 5-9 test) | omniglot | "
          "cub200 | cars196 | sop | inshop | folder (the official layouts)",
          dataset_kinds().names()),
      config_key("dataset.data_dir", "string", kRequired, "the dataset's folder in its official layout (relative: to the "
                                                   "repository)"),
      config_key("dataset.train_level", "string", "", "the label level that trains (empty: the dataset's default: "
                                               "parity for mnist-evenodd, the finest level, the class labels, of an "
                                               "image layout, e.g. character for omniglot)"),
      ranged(config_key("dataset.holdout", "number", 0.2, "fraction of each training class held out for evaluation on "
                                                   "train classes"), 0, 1, true, true),
      ranged(config_key("dataset.image_size", "integer", 0, "file-backed datasets: the network's input size in pixels "
                                                     "(0: the native size, Omniglot only)"), 0, 4096),
      ranged(config_key("dataset.channels", "integer", 0, "1 (gray) or 3 (RGB); 0: the dataset's own"), 0, 3),
      config_key("dataset.transform_train", "string", "", "file-backed datasets: a preset (" + transform_presets_help() +
                                                   ") or a JSON list of transforms (empty: resize)"),
      config_key("dataset.transform_eval", "string", "", "file-backed datasets: as transform_train (empty: resize)"),
      ranged(config_key("dataset.loader_threads", "integer", 0, "decoding threads of the prefetching loader (0: the "
                                                        "trainer's thread)"), 0, 256),
      ranged(config_key("dataset.prefetch", "integer", 4, "batches decoded ahead"), 1, 1024),
      ranged(config_key("dataset.folds", "integer", 0, "tuning: deal the training classes at "
                                                "dataset.fold_level into this many class-disjoint folds; fold "
                                                "dataset.fold becomes the only evaluation set, validation, and the "
                                                "others train (0: no folds, every split as the dataset has it)"),
             0, 20),
      ranged(config_key("dataset.fold", "integer", 0, "dataset.folds: the held-out fold (0-based)"), 0, 19),
      config_key("dataset.fold_level", "string", "", "dataset.folds: the level whose classes are dealt into folds "
                                              "(empty: the training level)"),
      ranged(config_key("dataset.fold_seed", "integer", 0, "dataset.folds: seeds the shuffle of the classes before "
                                                    "they are dealt (the same folds for every run seed)"),
             0, 9.007199254740992e15),
      config_key("model.name", "string", kRequired,
          "lcc-mnist ([LCC] App. C) | small-conv | resnet18 | resnet50 (torchvision layout)",
          model_archs().names()),
      ranged(config_key("model.embedding_dim", "integer", 128, "embedding size"), 1, 65536),
      config_key("model.normalize", "boolean", false, "L2-normalise the embedding"),
      config_key("model.kernels", "string", "fused", "lcc-mnist: fused CPU kernels or the stock torch::nn modules",
          {"fused", "stock"}),
      config_key("model.pretrained", "string", "", "weights written by scripts/export_torchvision_weights.py (empty: "
                                            "random initialisation)"),
      config_key("model.freeze_bn", "boolean", false, "keep batch-norm statistics frozen (eval mode) while training"),
      config_key("model.init_run", "string", "", "a finished run's folder (same model keys) whose final weights start this run, "
                                          "e.g. [XHN] Sec 6.1's later phase (empty: model.pretrained or random)"),
  };
}

// loss.name, the keys several losses share, every registered loss's own keys, and the trimmed reducer.
std::vector<ConfigKey> loss_keys() {
  std::vector<ConfigKey> k = {
      config_key("loss.name", "string", "triplet", "the training loss: " + docs_of(loss_specs()), loss_names()),
      ranged(config_key("loss.margin", "number", 0.2, "the margin of the losses that have one (triplet margin, margin-loss "
                                               "alpha, contrastive alpha, htl's margin until its first tree)"),
             0, 1e6, true),
      config_key("loss.distance", "string", "squared", "triplet loss distance: squared | euclidean | cosine (htl: euclidean "
                                                "as [HTL] prints it, or squared)",
          distances().names()),
  };
  for (const auto& spec : loss_specs()) k.insert(k.end(), spec.settings.begin(), spec.settings.end());
  k.push_back(ranged(config_key("loss.trim", "number", 0.0, "the trimmed reducer ([LCC] Sec 5.2.5 trimmed loss): the "
                                                     "fraction of each batch's triplets with the highest loss left out "
                                                     "of the gradient (losses that are a mean of triplet terms)"),
                     0, 1, false, true));
  return k;
}

std::vector<ConfigKey> miner_and_batch_keys() {
  return {
      config_key("miner.name", "string", "EPHN", "the triplet miner: " + docs_of(miner_specs()), miner_names()),
      config_key("miner.similarity", "string", "auto",
          "what the miner ranks by: auto (cosine for cosine-based losses and distance-weighted, otherwise minus the "
          "squared distance) | cosine | neg-squared-distance",
          miner_similarities().names()),
      config_key("miner.one_triplet_per_feature", "boolean", false, "each feature in at most one triplet of the batch "
                                                             "([XHN] Sec 6.1: triplets that do not move each other)"),
      ranged(config_key("batch.classes", "integer", 2, "classes per batch (c)"), 2, 1e6),
      ranged(config_key("batch.per_class", "integer", 64, "images per class in a batch (n)"), 2, 1e6),
      config_key("batch.sampler", "string", "class-balanced", "how a batch is drawn: " + docs_of(sampler_specs()),
          sampler_names()),
  };
}

std::vector<ConfigKey> training_and_eval_keys() {
  return {
      config_key("optimizer.name", "string", "adam", "adam | sgd (with momentum)", optimizer_kinds().names()),
      ranged(config_key("optimizer.lr", "number", 1e-3, "learning rate"), 0, 1e3, true),
      ranged(config_key("optimizer.head_lr", "number", 0.0, "learning rate of the embedding head (0: the same as lr)"), 0,
             1e3),
      ranged(config_key("optimizer.momentum", "number", 0.9, "sgd momentum"), 0, 1, false, true),
      ranged(config_key("optimizer.weight_decay", "number", 0.0, "L2 weight decay"), 0, 1),
      ranged(config_key("schedule.epochs", "integer", 5, "epochs"), 1, 1e6),
      ranged(config_key("schedule.steps_per_epoch", "integer", 0, "steps per epoch (0: training images / batch size)"), 0,
             1e9),
      ranged(config_key("schedule.decay_epochs", "integer-list", json::array(),
                 "multiply every learning rate by decay_factor after each of these epochs ([XHN] Sec 6: 20, 30)"),
             1, 1e6),
      ranged(config_key("schedule.decay_factor", "number", 0.1, "step decay factor"), 0, 1, true),
      ranged(config_key("schedule.max_steps", "integer", -1, "stop after this many steps in all (smoke runs); -1: no "
                                                      "limit"), -1, 1e12),
      ranged(config_key("schedule.patience", "integer", 0, "early stopping: stop once this many curve points in a row "
                                                    "bring no better schedule.stop_metric (0: never; needs "
                                                    "eval.every_epoch)"),
             0, 1e6),
      config_key("schedule.stop_metric", "string", "", "early stopping: a dotted path into a curve point's eval, larger "
                                                "is better (validation.character.map_at_r needs eval.curve_ranking)"),
      config_key("eval.sets", "string-list", json::array(), "evaluation sets (the dataset's split names, the training "
                                                     "split's included when named; empty: all but the training split)"),
      config_key("eval.levels", "string-list", json::array(), "label levels to evaluate at (empty: every level)"),
      ranged(config_key("eval.ks", "integer-list", json::array({1, 2, 4, 8}), "Recall@K"), 1, 1e6),
      config_key("eval.metric", "string", "cosine", "cosine | euclidean (retrieval and the scatter log)",
          similarities().names()),
      ranged(config_key("eval.nmi_plus_factor", "integer", 10, "NMI+ clusters per class"), 1, 1e6),
      config_key("eval.nmi", "boolean", true, "k-means NMI and NMI+ at the end of the run"),
      config_key("eval.every_epoch", "boolean", false, "Recall@K (alone) of every set and level after each epoch (a "
                                            "curve)"),
      config_key("eval.curve_ranking", "boolean", false, "every_epoch: each curve point also has P@1, R-precision and "
                                                  "MAP@R (tuning's objective; costs a ranking per point)"),
      config_key("eval.curve_sets", "string-list", json::array(), "every_epoch: the sets of the curve (empty: every "
                                                           "evaluation set)"),
      config_key("eval.subclusters", "string-list", json::array(),
          "two levels, coarse then fine (e.g. alphabet, character): per coarse class, how many of its fine classes stay "
          "apart (single linkage of their centroids; empty: not measured)"),
      config_key("eval.triplet_accuracy_set", "string", "", "a set whose held-out triplets (train level, random positive "
                                                     "and negative) are scored before and after (empty: none)"),
      config_key("eval.tree_groups", "string", "", "a coarser label level (e.g. alphabet): build the [HTL] class tree of the "
                                            "final training embeddings and score the level closest to it in node count "
                                            "by purity and NMI against it (empty: not measured)"),
      config_key("eval.scatter", "boolean", false, "log each epoch's easiest-positive / hardest-negative similarities on "
                                            "the triplet-accuracy set ([XHN] Fig 6)"),
      config_key("eval.movement", "boolean", false, "[XHN] Sec 6.1: after each step, embed the batch again and count where each "
                                             "mined triplet's dot (S_ap, S_an) moved (quadrant), next to the direction "
                                             "the isolated-triplet model predicts (triplet, nca, l2nd)"),
      ranged(config_key("eval.movement_tolerance", "number", 1e-6, "eval.movement: a cosine change at most this large counts "
                                                            "as none (float32 embeddings resolve about 1e-7)"),
             0, 1),
  };
}

}  // namespace

const std::vector<ConfigKey>& run_config_schema() {
  static const std::vector<ConfigKey> s = [] {
    std::vector<ConfigKey> all = run_and_model_keys();
    for (auto part : {loss_keys(), miner_and_batch_keys()}) all.insert(all.end(), part.begin(), part.end());
    for (const auto& spec : sampler_specs()) all.insert(all.end(), spec.settings.begin(), spec.settings.end());
    const auto tail = training_and_eval_keys();
    all.insert(all.end(), tail.begin(), tail.end());
    return all;
  }();
  return s;
}

namespace {

std::string describe(const json& v) {
  const std::string s = v.dump();
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

std::string range_text(const ConfigKey& k) {
  std::ostringstream o;
  o << (k.min_exclusive ? "(" : "[") << k.min << ", " << k.max << (k.max_exclusive ? ")" : "]");
  return o.str();
}

void check_number(const ConfigKey& k, double v, const std::string& where) {
  if (!std::isfinite(v)) throw config_error(where + ": " + k.path + " must be a finite number");
  const bool lo = k.min_exclusive ? v > k.min : v >= k.min;
  const bool hi = k.max_exclusive ? v < k.max : v <= k.max;
  if (!lo || !hi)
    throw config_error(where + ": " + k.path + " = " + describe(json(v)) + " is out of range " + range_text(k));
}

void check_choice(const ConfigKey& k, const std::string& v, const std::string& where) {
  if (k.choices.empty() || std::find(k.choices.begin(), k.choices.end(), v) != k.choices.end()) return;
  const auto near = nearest_name(v, k.choices);
  throw config_error(where + ": " + k.path + " = \"" + v + "\" is not one of " + joined_names(k.choices) +
                     (near.empty() ? "" : " (did you mean \"" + near + "\"?)"));
}

// Checks one value against its key's type and range; returns it normalised (an integer-valued number as integer).
json checked(const ConfigKey& k, const json& v, const std::string& where) {
  auto type_error = [&] {
    return config_error(where + ": " + k.path + " must be " +
                        (k.type == "integer-list" || k.type == "number-list" || k.type == "string-list"
                             ? "a list of " + k.type.substr(0, k.type.find('-')) + "s"
                             : "a " + k.type) +
                        ", got " + describe(v));
  };
  if (k.type == "string") {
    if (!v.is_string()) throw type_error();
    check_choice(k, v.get<std::string>(), where);
    return v;
  }
  if (k.type == "boolean") {
    if (!v.is_boolean()) throw type_error();
    return v;
  }
  if (k.type == "number") {
    if (!v.is_number()) throw type_error();
    check_number(k, v.get<double>(), where);
    return v;
  }
  if (k.type == "integer") {
    if (!v.is_number()) throw type_error();
    const double d = v.get<double>();
    if (std::floor(d) != d) throw type_error();
    check_number(k, d, where);
    return json(static_cast<std::int64_t>(d));
  }
  // lists
  if (!v.is_array()) throw type_error();
  json out = json::array();
  for (const auto& e : v) {
    ConfigKey el = k;
    el.type = k.type.substr(0, k.type.find('-'));
    try {
      out.push_back(checked(el, e, where));
    } catch (const config_error&) {
      throw type_error();
    }
  }
  if (k.type == "integer-list" || k.type == "number-list")
    for (const auto& e : out) check_number(k, e.get<double>(), where);
  return out;
}

// "value" of --set key=value in the key's type: strings as they are, lists as "a,b" or a JSON array, the rest as JSON.
json parse_override_value(const ConfigKey& k, const std::string& text, const std::string& where) {
  if (k.type == "string") return text;
  const bool list = k.type.find("-list") != std::string::npos;
  if (list && (text.empty() || text.front() != '[')) {
    json a = json::array();
    std::stringstream ss(text);
    for (std::string item; std::getline(ss, item, ',');) {
      if (k.type == "string-list") {
        a.push_back(item);
        continue;
      }
      try {
        a.push_back(json::parse(item));
      } catch (const json::exception&) {
        throw config_error(where + ": " + k.path + " must be a list of numbers, got \"" + text + "\"");
      }
    }
    return a;
  }
  try {
    return json::parse(text);
  } catch (const json::exception&) {
    throw config_error(where + ": " + k.path + " must be a " + k.type + ", got \"" + text + "\"");
  }
}

std::vector<std::string> all_paths() {
  std::vector<std::string> p;
  for (const auto& k : run_config_schema()) p.push_back(k.path);
  return p;
}

const ConfigKey* find_key(const std::string& path) {
  for (const auto& k : run_config_schema())
    if (k.path == path) return &k;
  return nullptr;
}

[[noreturn]] void unknown_key(const std::string& path, const std::string& where) {
  const auto near = nearest_name(path, all_paths());
  // also try the last component among the keys of the same section (a typo in "lr" of "optimizer.lr")
  throw config_error(where + ": unknown key \"" + path + "\"" +
                     (near.empty() ? " (see the config schema in experiments/README.md)" : " (did you mean \"" + near + "\"?)"));
}

// Flattens the user's nested JSON into dotted paths; a section that is not an object, or an unknown key, is an error.
void flatten(const json& j, const std::string& prefix, std::map<std::string, json>& out, const std::string& where) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string path = prefix.empty() ? it.key() : prefix + "." + it.key();
    if (find_key(path)) {
      out[path] = it.value();
      continue;
    }
    bool is_section = false;
    for (const auto& k : run_config_schema()) is_section = is_section || k.path.rfind(path + ".", 0) == 0;
    if (!is_section) unknown_key(path, where);
    if (!it.value().is_object()) throw config_error(where + ": " + path + " must be an object (a section), got " +
                                                    describe(it.value()));
    flatten(it.value(), path, out, where);
  }
}

json set_path(json root, const std::string& path, const json& v) {
  json* node = &root;
  std::stringstream ss(path);
  std::vector<std::string> parts;
  for (std::string p; std::getline(ss, p, '.');) parts.push_back(p);
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    if (!node->contains(parts[i])) (*node)[parts[i]] = json::object();
    node = &(*node)[parts[i]];
  }
  (*node)[parts.back()] = v;
  return root;
}

std::string resolve_path(const std::string& p, const std::string& root) {
  if (p.empty()) return p;
  const fs::path q(p);
  return (q.is_absolute() ? q : fs::path(root) / q).lexically_normal().string();
}

}  // namespace

namespace {

// The typed view of the resolved values, each field filled by its key's name.
RunConfig typed_view(const std::map<std::string, json>& value) {
  auto v = [&](const char* p) -> const json& { return value.at(p); };
  auto text = [&](const char* p) { return value.at(p).get<std::string>(); };
  RunConfig c;
  c.name = text("name");
  c.paper = text("paper");
  c.seed = v("seed").get<std::uint64_t>();
  c.device = text("device");
  auto& d = c.dataset;
  d.name = text("dataset.name");
  d.kind = dataset_kinds().named(d.name);
  d.data_dir = text("dataset.data_dir");
  d.train_level = text("dataset.train_level");
  d.holdout = v("dataset.holdout");
  d.image_size = v("dataset.image_size");
  d.channels = v("dataset.channels");
  d.transform_train = text("dataset.transform_train");
  d.transform_eval = text("dataset.transform_eval");
  d.loader_threads = v("dataset.loader_threads");
  d.prefetch = v("dataset.prefetch");
  d.folds = v("dataset.folds");
  d.fold = v("dataset.fold");
  d.fold_level = text("dataset.fold_level");
  d.fold_seed = v("dataset.fold_seed").get<std::uint64_t>();
  auto& m = c.model;
  m.name = text("model.name");
  m.arch = model_archs().named(m.name);
  m.kernels = text("model.kernels");
  m.pretrained = text("model.pretrained");
  m.embedding_dim = v("model.embedding_dim");
  m.normalize = v("model.normalize");
  m.freeze_bn = v("model.freeze_bn");
  m.init_run = text("model.init_run");
  c.loss.name = text("loss.name");
  c.loss.distance = text("loss.distance");
  c.loss.distance_kind = distances().named(c.loss.distance);
  c.loss.margin = v("loss.margin");
  c.loss.trim = v("loss.trim");
  c.loss.settings = json::object();
  for (const auto& spec : loss_specs())
    for (const auto& k : spec.settings) c.loss.settings[k.path.substr(5)] = v(k.path.c_str());
  c.miner.name = text("miner.name");
  c.miner.similarity = text("miner.similarity");
  c.miner.ranking = miner_similarities().named(c.miner.similarity);
  c.miner.one_triplet_per_feature = v("miner.one_triplet_per_feature");
  c.batch.classes = v("batch.classes");
  c.batch.per_class = v("batch.per_class");
  c.batch.sampler = text("batch.sampler");
  c.batch.classes_per_anchor = v("batch.classes_per_anchor");
  auto& o = c.optimizer;
  o.name = text("optimizer.name");
  o.kind = optimizer_kinds().named(o.name);
  o.lr = v("optimizer.lr");
  o.head_lr = v("optimizer.head_lr");
  o.momentum = v("optimizer.momentum");
  o.weight_decay = v("optimizer.weight_decay");
  auto& s = c.schedule;
  s.epochs = v("schedule.epochs");
  s.steps_per_epoch = v("schedule.steps_per_epoch");
  s.decay_epochs = v("schedule.decay_epochs").get<std::vector<int>>();
  s.decay_factor = v("schedule.decay_factor");
  s.max_steps = v("schedule.max_steps");
  s.patience = v("schedule.patience");
  s.stop_metric = text("schedule.stop_metric");
  auto& e = c.eval;
  e.sets = v("eval.sets").get<std::vector<std::string>>();
  e.levels = v("eval.levels").get<std::vector<std::string>>();
  e.ks = v("eval.ks").get<std::vector<int>>();
  e.metric = text("eval.metric");
  e.similarity = similarities().named(e.metric);
  e.nmi_plus_factor = v("eval.nmi_plus_factor");
  e.every_epoch = v("eval.every_epoch");
  e.curve_ranking = v("eval.curve_ranking");
  e.nmi = v("eval.nmi");
  e.curve_sets = v("eval.curve_sets").get<std::vector<std::string>>();
  e.subclusters = v("eval.subclusters").get<std::vector<std::string>>();
  e.triplet_accuracy_set = text("eval.triplet_accuracy_set");
  e.scatter = v("eval.scatter");
  e.tree_groups = text("eval.tree_groups");
  e.movement = v("eval.movement");
  e.movement_tolerance = v("eval.movement_tolerance");
  return c;
}

}  // namespace

RunConfig parse_run_config(const json& j, const std::vector<std::string>& overrides, const std::string& path_root,
                           const std::string& origin) {
  if (!j.is_object()) throw config_error(origin + ": a run config is a JSON object");
  std::map<std::string, json> given;
  flatten(j, "", given, origin);
  for (const auto& o : overrides) {
    const auto eq = o.find('=');
    if (eq == std::string::npos || eq == 0) throw config_error("--set " + o + ": expected key=value");
    const std::string path = o.substr(0, eq);
    const ConfigKey* k = find_key(path);
    if (!k) unknown_key(path, "--set");
    given[path] = parse_override_value(*k, o.substr(eq + 1), "--set");
  }
  json resolved = json::object();
  std::map<std::string, json> value;
  for (const auto& k : run_config_schema()) {
    const auto it = given.find(k.path);
    json v;
    if (it != given.end()) {
      v = checked(k, it->second, origin);
    } else {
      if (k.default_value.is_null()) throw config_error(origin + ": " + k.path + " is required (" + k.doc + ")");
      v = k.default_value;
    }
    value[k.path] = v;
  }
  value["dataset.data_dir"] = resolve_path(value["dataset.data_dir"].get<std::string>(), path_root);
  value["model.pretrained"] = resolve_path(value["model.pretrained"].get<std::string>(), path_root);
  value["model.init_run"] = resolve_path(value["model.init_run"].get<std::string>(), path_root);
  for (const auto& k : run_config_schema()) resolved = set_path(resolved, k.path, value[k.path]);

  RunConfig c = typed_view(value);
  c.resolved = resolved;
  check_cross_key_rules(c, origin);
  return c;
}

RunConfig load_run_config(const std::string& file, const std::vector<std::string>& overrides,
                          const std::string& path_root) {
  std::ifstream in(file);
  if (!in) throw config_error("cannot read the config file " + file);
  json j;
  try {
    j = json::parse(in, nullptr, true, /*ignore_comments=*/true);
  } catch (const json::exception& e) {
    throw config_error(file + ": not valid JSON (" + e.what() + ")");
  }
  return parse_run_config(j, overrides, path_root, file);
}

namespace {

// A table cell's text: '|' written as "\\|" so that it does not end the cell.
std::string escaped_bars(const std::string& text) {
  std::string out;
  for (char ch : text) out += ch == '|' ? std::string("\\|") : std::string(1, ch);
  return out;
}

}  // namespace

std::string run_config_schema_markdown() {
  std::ostringstream o;
  o << "| key | type | default | allowed | what |\n|---|---|---|---|---|\n";
  for (const auto& k : run_config_schema()) {
    std::string allowed;
    for (const auto& c : k.choices) allowed += (allowed.empty() ? "" : ", ") + c;
    if (allowed.empty() && (k.type == "number" || k.type == "integer" || k.type.find("list") != std::string::npos) &&
        k.type != "string-list")
      allowed = range_text(k);
    o << "| `" << k.path << "` | " << k.type << " | "
      << (k.default_value.is_null() ? std::string("required") : "`" + k.default_value.dump() + "`") << " | "
      << allowed << " | " << escaped_bars(k.doc) << " |\n";
  }
  return o.str();
}

}  // namespace dmlbench::experiments

namespace dmlbench::experiments {

const nlohmann::ordered_json& RunConfig::Loss::setting(const std::string& key) const {
  if (!settings.contains(key))
    throw std::invalid_argument("loss." + key + " is not a setting of any registered loss (loss_spec.hpp)");
  return settings.at(key);
}

}  // namespace dmlbench::experiments

namespace dmlbench::experiments {

const ConfigKey& run_config_key(const std::string& path, const std::string& where) {
  if (const ConfigKey* k = find_key(path)) return *k;
  unknown_key(path, where);
}

}  // namespace dmlbench::experiments
