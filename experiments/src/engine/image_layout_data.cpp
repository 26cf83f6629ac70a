// The image layouts of a run config (omniglot, cub200, cars196, sop, inshop, folder; image_dataset.hpp) as training and
// evaluation sets, decoded and transformed on the prefetching loader's threads (image_loader.hpp).
#include "dmlbench/experiments/training_data.hpp"

#include "dmlbench/experiments/image_dataset.hpp"
#include "dmlbench/experiments/image_loader.hpp"
#include "dmlbench/experiments/transform_presets.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <mutex>
#include <numeric>
#include <random>
#include <set>
#include <sstream>
#include <utility>

namespace dmlbench::experiments {

namespace {

constexpr std::int64_t kDecodedCacheBytes = std::int64_t(1) << 30;  // images kept decoded up to 1 GiB a set and transform

}  // namespace

TransformPipeline transform_from_config(const std::string& spec, int image_size, int channels, const std::string& key) {
  const auto s = spec.empty() ? std::string("resize") : spec;
  nlohmann::json steps = nlohmann::json::array();
  if (!s.empty() && s.front() == '[') {
    try {
      steps = nlohmann::json::parse(s);
    } catch (const nlohmann::json::exception& e) {
      throw config_error(key + ": not a JSON list of transforms: " + e.what());
    }
  } else if (const auto* preset = find_transform_preset(s)) {
    if (preset->needs_size && image_size <= 0) throw config_error(key + " = " + s + " needs dataset.image_size > 0");
    steps = preset->steps(image_size);
    if (preset->normalize_rgb && channels == 3) steps.push_back(imagenet_normalize_step());
  } else {
    const auto near = nearest_name(s, transform_preset_names());
    throw config_error(key + " = \"" + s + "\": not a preset (" + joined_names(transform_preset_names()) +
                       ") nor a JSON list of transforms" + (near.empty() ? "" : "; did you mean \"" + near + "\"?"));
  }
  try {
    TransformPipeline p(steps);
    p.check_channels(channels);
    return p;
  } catch (const std::invalid_argument& e) {
    throw config_error(key + ": " + e.what());
  }
}

namespace {

torch::Tensor batch_tensor(Batch& b) {
  return torch::from_blob(b.data.data(), {std::int64_t(b.indices.size()), b.channels, b.rows, b.cols}, torch::kFloat32)
      .clone();
}

// The images of a whole split through a transform that draws nothing, decoded once on the loader's threads and kept
// when they fit in kDecodedCacheBytes: every evaluation (each epoch's curve, the final one) then decodes nothing,
// and neither does training where its transform draws nothing either (the glyph proxy's resize): the same floats as
// decoding each batch, without the loader's threads decoding beside the training's.
class DecodedSplit {
 public:
  DecodedSplit(ImageSource source, std::int64_t n, TransformPipeline tf, LoaderOptions base)
      : source_(std::move(source)), n_(n), tf_(std::move(tf)), base_(std::move(base)) {}
  // The whole split, decoded at the first call; undefined when it is too large to keep.
  torch::Tensor all() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!tried_) {
      tried_ = true;
      all_ = decode();
    }
    return all_;
  }

 private:
  torch::Tensor decode() const {
    constexpr std::int64_t kBatch = 256;
    std::vector<std::vector<int>> plan;
    for (std::int64_t a = 0; a < n_; a += kBatch) {
      plan.emplace_back();
      for (std::int64_t i = a; i < std::min(n_, a + kBatch); ++i) plan.back().push_back(int(i));
    }
    PrefetchLoader loader(source_, std::move(plan), tf_, base_);
    torch::Tensor all;
    Batch b;
    std::int64_t row = 0;
    while (loader.next(b)) {
      if (!all.defined()) {
        const auto bytes = n_ * std::int64_t(b.channels) * b.rows * b.cols * std::int64_t(sizeof(float));
        if (bytes > kDecodedCacheBytes) return {};
        all = torch::empty({n_, b.channels, b.rows, b.cols}, torch::kFloat32);
      }
      all.slice(0, row, row + std::int64_t(b.indices.size())).copy_(batch_tensor(b));
      row += std::int64_t(b.indices.size());
    }
    return all;
  }

  ImageSource source_;
  std::int64_t n_;
  TransformPipeline tf_;
  LoaderOptions base_;
  std::mutex mutex_;
  bool tried_ = false;
  torch::Tensor all_;
};

// A file-backed split: its labels at every level (the reader's dense ids), its images through the loader, or from
// its decoded copy (DecodedSplit) where the transform draws nothing.
LabeledSplit file_split(const ImageSet& set, const std::string& name, const TransformPipeline& train_tf,
                        const TransformPipeline& eval_tf, const LoaderOptions& base) {
  LabeledSplit s;
  s.name = name;
  s.level_names = set.level_names;
  for (const auto& l : set.labels) s.labels.emplace_back(l.begin(), l.end());
  s.size = std::int64_t(set.size());
  s.paths = set.paths;
  const auto source = ImageSource::files(set.paths);
  const auto eval_cache = std::make_shared<DecodedSplit>(source, s.size, eval_tf, base);
  const auto train_cache =
      !train_tf.deterministic()          ? nullptr
      : train_tf.spec() == eval_tf.spec() ? eval_cache
                                          : std::make_shared<DecodedSplit>(source, s.size, train_tf, base);
  // The set decoded through the train or the evaluation transform; undefined where it is not kept.
  auto decoded = [=](bool train) -> torch::Tensor {
    const auto& cache = train ? train_cache : eval_cache;
    return cache ? cache->all() : torch::Tensor();
  };
  s.images = [=](const std::vector<std::int64_t>& idx, bool train, std::uint64_t seed) {
    if (const auto all = decoded(train); all.defined()) return all.index({torch::tensor(idx, torch::kInt64)});
    LoaderOptions o = base;
    o.seed = seed;
    o.prefetch_batches = 1;
    PrefetchLoader loader(source, {std::vector<int>(idx.begin(), idx.end())}, train ? train_tf : eval_tf, o);
    Batch b;
    loader.next(b);
    return batch_tensor(b);
  };
  s.stream = [=](const std::vector<std::vector<std::int64_t>>& plan, std::uint64_t seed, std::uint64_t epoch) {
    if (const auto all = decoded(true); all.defined()) {
      auto next = std::make_shared<std::size_t>(0);
      return BatchStream([all, plan, next]() {
        if (*next >= plan.size()) throw std::logic_error("the epoch's batch plan is exhausted");
        return all.index({torch::tensor(plan[(*next)++], torch::kInt64)});
      });
    }
    LoaderOptions o = base;
    o.seed = seed;
    o.epoch = epoch;
    std::vector<std::vector<int>> p;
    for (const auto& b : plan) p.emplace_back(b.begin(), b.end());
    auto loader = std::make_shared<PrefetchLoader>(source, std::move(p), train_tf, o);
    return BatchStream([loader]() {
      Batch b;
      if (!loader->next(b)) throw std::logic_error("the epoch's batch plan is exhausted");
      return batch_tensor(b);
    });
  };
  return s;
}

// The classes of `set` at its finest level with `holdout` of each class's items (seeded, at least one item left to
// train) moved to a set "heldout": evaluation on the training classes, as mnist-evenodd's train_digits.
std::pair<ImageSet, ImageSet> hold_out(const ImageSet& set, double holdout, std::uint64_t seed) {
  const auto& fine = set.labels.back();
  std::map<int, std::vector<std::size_t>> by;
  for (std::size_t i = 0; i < set.size(); ++i) by[fine[i]].push_back(i);
  std::mt19937_64 rng(seed);
  std::vector<std::size_t> train, held;
  for (auto& [k, v] : by) {
    std::shuffle(v.begin(), v.end(), rng);
    const auto h = std::min(v.size() - 1, std::size_t(std::lround(holdout * double(v.size()))));
    held.insert(held.end(), v.begin(), v.begin() + long(h));
    train.insert(train.end(), v.begin() + long(h), v.end());
  }
  std::sort(train.begin(), train.end());
  std::sort(held.begin(), held.end());
  return {select_items(set, train, "train"), select_items(set, held, "heldout")};
}

// "; trains on level class (11318 classes)": what the run's log line states, as the engine picks the level (the
// config's, else the default); nothing for a level the split lacks, which the engine refuses with its own message.
std::string training_level_note(const LabeledSplit& train, const std::string& level) {
  const auto it = std::find(train.level_names.begin(), train.level_names.end(), level);
  if (it == train.level_names.end()) return "";
  const auto& y = train.labels[std::size_t(it - train.level_names.begin())];
  const std::set<std::int64_t> classes(y.begin(), y.end());
  return "; trains on level " + level + " (" + std::to_string(classes.size()) + " classes)";
}

}  // namespace

TrainingData load_image_layout(const RunConfig& c) {
  const auto& layout = c.dataset.name;
  const bool omniglot = c.dataset.kind == DatasetKind::omniglot;
  const int channels = c.dataset.channels != 0 ? c.dataset.channels : (omniglot ? 1 : 3);
  if (channels == 2) throw config_error("dataset.channels = 2: 1 (gray) or 3 (RGB)");
  if (c.dataset.image_size == 0 && !omniglot)
    throw config_error("dataset.image_size = 0 (the native size) needs images of one size, which the " + layout +
                       " layout does not promise: give the network's input size");
  DatasetSplits splits;
  try {
    splits = read_dataset(c.dataset.kind, c.dataset.data_dir);
  } catch (const std::invalid_argument& e) {
    throw config_error(std::string("dataset.name: ") + e.what());
  }
  const auto train_tf = transform_from_config(c.dataset.transform_train, c.dataset.image_size, channels,
                                              "dataset.transform_train");
  const auto eval_tf = transform_from_config(c.dataset.transform_eval.empty() ? "resize" : c.dataset.transform_eval,
                                             c.dataset.image_size, channels, "dataset.transform_eval");
  LoaderOptions base;
  base.channels = channels;
  base.threads = c.dataset.loader_threads;
  base.prefetch_batches = c.dataset.prefetch;

  // The training split and the evaluation sets: the layout's own class-disjoint splits; a folder tree has one
  // split, whose first half of the classes (sorted names) trains.
  ImageSet train;
  std::vector<ImageSet> others;
  if (c.dataset.kind == DatasetKind::folder) {
    auto halves = split_by_class_fraction(splits.split("all"), "class", 0.5);
    train = std::move(halves.train);
    others.push_back(std::move(halves.test));
  } else {
    for (const auto& s : splits.splits)
      if (s.name == "train")
        train = s;
      else
        others.push_back(s);
  }
  TrainingData d;
  d.channels = channels;
  // the finest level, the class labels: character for Omniglot, class for SOP ([XHN] trains on its 11,318 products),
  // item for In-shop; a config that trains on a coarser level names it (lcc-omniglot-proxy.json: alphabet)
  d.default_train_level = train.level_names.back();
  if (c.dataset.holdout > 0) {
    auto [t, h] = hold_out(train, c.dataset.holdout, c.seed);
    train = std::move(t);
    densify(h);
    d.eval.push_back(file_split(h, "heldout", train_tf, eval_tf, base));
  }
  densify(train);
  d.train = file_split(train, "train", train_tf, eval_tf, base);
  for (const auto& s : others) d.eval.push_back(file_split(s, s.name, train_tf, eval_tf, base));
  if (layout == "inshop") d.query_gallery.emplace_back("query", "gallery");  // the official protocol
  std::ostringstream o;
  o << layout << " from " << splits.root << ": train " << d.train.size;
  for (const auto& s : d.eval) o << ", " << s.name << " " << s.size;
  o << " (" << channels << " channel" << (channels == 1 ? "" : "s") << ", "
    << (c.dataset.image_size > 0 ? std::to_string(c.dataset.image_size) + " px" : std::string("native size")) << ")";
  o << training_level_note(d.train, c.dataset.train_level.empty() ? d.default_train_level : c.dataset.train_level);
  d.description = o.str();
  return d;
}

}  // namespace dmlbench::experiments
