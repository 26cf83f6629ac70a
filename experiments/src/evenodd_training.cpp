#include "dmlbench/experiments/evenodd_training.hpp"

#include "dmlbench/experiments/atomic_file.hpp"
#include "dmlbench/experiments/batch_miner.hpp"
#include "dmlbench/experiments/class_balanced_sampler.hpp"
#include "dmlbench/experiments/device.hpp"
#include "dmlbench/experiments/evenodd_split.hpp"
#include "dmlbench/experiments/idx_file.hpp"
#include "dmlbench/experiments/metric_losses.hpp"
#include "dmlbench/experiments/mnist_embedding_net.hpp"
#include "dmlbench/experiments/retrieval_metrics.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <stdexcept>

namespace dmlbench::experiments {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

void EvenOddConfig::validate() const {
  if (data_dir.empty()) throw std::invalid_argument("--data-dir is required");
  if (out_dir.empty()) throw std::invalid_argument("--out is required");
  if (sampler != "random" && sampler != "eps") throw std::invalid_argument("--sampler must be random or eps, got '" + sampler + "'");
  if (epochs < 1) throw std::invalid_argument("--epochs must be >= 1");
  if (samples_per_class < 2) throw std::invalid_argument("--samples-per-class must be >= 2 (a positive needs a second sample)");
  if (!(lr > 0)) throw std::invalid_argument("--lr must be > 0");
  if (!(margin > 0)) throw std::invalid_argument("--margin must be > 0");
  if (distance != "squared" && distance != "euclidean")
    throw std::invalid_argument("--distance must be squared or euclidean, got '" + distance + "'");
  if (!(holdout > 0 && holdout < 1)) throw std::invalid_argument("--holdout must lie in (0, 1)");
  if (embedding_dim < 1) throw std::invalid_argument("--embedding-dim must be >= 1");
  parse_net_kernels(kernels);
}

namespace {

json config_json(const EvenOddConfig& c) {
  return {{"experiment", "mnist-evenodd"}, {"paper", "LCC Sec 5.1, Table 1, Fig 2, App. C"},
          {"sampler", c.sampler}, {"miner", c.sampler == "eps" ? "eps-trip-sh" : "trip-sh"},
          {"seed", c.seed}, {"epochs", c.epochs}, {"samples_per_class", c.samples_per_class}, {"lr", c.lr},
          {"optimizer", "Adam"}, {"loss", c.distance == "squared" ? "triplet, squared Euclidean" : "triplet, Euclidean"},
          {"margin", c.margin}, {"normalize", c.normalize},
          {"holdout", c.holdout}, {"embedding_dim", c.embedding_dim}, {"kernels", c.kernels}, {"max_steps", c.max_steps},
          {"data_dir", fs::absolute(c.data_dir).string()}};
}

torch::Tensor images_of(const LabeledImages& d, const std::vector<int>& idx) {
  const auto n = static_cast<std::int64_t>(idx.size());
  auto all = torch::from_blob(const_cast<std::uint8_t*>(d.images.data.data()),
                              {static_cast<std::int64_t>(d.images.count()), 1, d.rows, d.cols}, torch::kUInt8);
  return all.index({torch::tensor(std::vector<std::int64_t>(idx.begin(), idx.end()))}).to(torch::kFloat32).div(255.0)
      .reshape({n, 1, d.rows, d.cols});
}

// the trained embedding: the network's output, L2-normalised when the config asks for it
torch::Tensor forward(MnistEmbeddingNet& model, const torch::Tensor& x, bool normalize) {
  const auto e = model->forward(x);
  return normalize ? torch::nn::functional::normalize(e, torch::nn::functional::NormalizeFuncOptions().dim(1)) : e;
}

torch::Tensor embed(MnistEmbeddingNet& model, const torch::Tensor& x, torch::Device dev, bool normalize) {
  torch::NoGradGuard no_grad;
  model->eval();
  std::vector<torch::Tensor> parts;
  for (std::int64_t s = 0; s < x.size(0); s += 1024)
    parts.push_back(forward(model, x.slice(0, s, s + 1024).to(dev), normalize).cpu());
  model->train();
  return torch::cat(parts);
}

// A fixed, seeded set of held-out parity triplets (each held-out image an anchor with a random positive and a random
// negative) and the fraction an embedding orders correctly, d(a, p) < d(a, n): scale-free, unlike the triplet loss,
// whose value grows with the embedding's scale as training spreads the points.
MinedTriplets fixed_triplets(const std::vector<std::int64_t>& parity, std::uint64_t seed) {
  const auto y = torch::tensor(parity);
  auto gen = at::detail::createCPUGenerator(seed * 104729ULL + 17);
  return mine_triplets(torch::zeros({y.size(0), y.size(0)}, torch::kFloat64), y, named_miner("random"), gen);
}

double triplet_accuracy(const torch::Tensor& emb, const MinedTriplets& t) {
  const auto e = emb.to(torch::kFloat64);
  const auto a = e.index({t.anchors}), p = e.index({t.positives}), n = e.index({t.negatives});
  return (a - p).pow(2).sum(1).lt((a - n).pow(2).sum(1)).to(torch::kFloat64).mean().item<double>();
}

}  // namespace

EvenOddResult train_evenodd(const EvenOddConfig& c, std::ostream& log) {
  c.validate();
  const auto t0 = std::chrono::steady_clock::now();
  const torch::Device dev(resolve_device(c.device));
  const auto data = read_mnist_layout(c.data_dir, "train");
  const auto split = evenodd_split(data.labels, c.holdout, c.seed);
  std::vector<int> parity;
  for (int i : split.train) parity.push_back(parity_label(data.labels[std::size_t(i)]));
  const auto train_x = images_of(data, split.train);
  const auto train_y = torch::tensor(std::vector<std::int64_t>(parity.begin(), parity.end()));

  torch::manual_seed(c.seed);
  MnistEmbeddingNet model(c.embedding_dim, parse_net_kernels(c.kernels));
  model->to(dev);
  torch::optim::Adam opt(model->parameters(), torch::optim::AdamOptions(c.lr));
  fs::create_directories(c.out_dir);
  const fs::path out(c.out_dir), ck_model = out / "checkpoint_model.pt", ck_opt = out / "checkpoint_optim.pt",
      ck_meta = out / "checkpoint.json";
  int epoch0 = 0;
  EvenOddResult r;
  const auto heldout_x = images_of(data, split.heldout_train_digits);
  std::vector<std::int64_t> heldout_parity;
  for (int i : split.heldout_train_digits) heldout_parity.push_back(parity_label(data.labels[std::size_t(i)]));
  const auto check_triplets = fixed_triplets(heldout_parity, c.seed);
  json scatter_rows = json::array();
  if (c.resume && fs::exists(ck_meta)) {
    json meta = json::parse(std::ifstream(ck_meta));
    json want = config_json(c), have = meta["config"];
    want.erase("max_steps");  // run control, not part of the model: a smoke-stopped run may be continued
    have.erase("max_steps");
    if (have != want)
      throw std::invalid_argument("--resume: " + ck_meta.string() + " was written by another config: " + meta["config"].dump());
    torch::load(model, ck_model.string());
    torch::load(opt, ck_opt.string());
    epoch0 = meta["epochs_done"];
    r.steps = meta["steps"];
    r.first_loss = meta["first_loss"];
    r.last_loss = meta["last_loss"];
    r.skipped_anchors = meta["skipped_anchors"];
    r.triplet_accuracy_before = meta["triplet_accuracy_before"];
    scatter_rows = meta["scatter"];
    log << "[train] resumed " << c.out_dir << " after epoch " << epoch0 << "\n";
  }
  const MinerConfig miner = named_miner(c.sampler == "eps" ? "eps-trip-sh" : "trip-sh");
  const long per_epoch = std::max<long>(1, long(split.train.size()) / (2 * c.samples_per_class));
  if (epoch0 == 0) r.triplet_accuracy_before = triplet_accuracy(embed(model, heldout_x, dev, c.normalize), check_triplets);
  bool stopped = false;
  for (int epoch = epoch0; epoch < c.epochs && !stopped; ++epoch) {
    ClassBalancedSampler sampler(parity, 2, c.samples_per_class, c.seed * 1000003ULL + std::uint64_t(epoch));
    double loss_sum = 0;
    long n_steps = 0;
    for (long s = 0; s < per_epoch; ++s) {
      if (c.max_steps >= 0 && r.steps >= c.max_steps) {
        stopped = true;
        break;
      }
      const auto ts = std::chrono::steady_clock::now();
      const auto b = sampler.next_batch();
      const auto bi = torch::tensor(std::vector<std::int64_t>(b.begin(), b.end()));
      const auto x = train_x.index({bi}).to(dev), y = train_y.index({bi}).to(dev);
      const auto e = forward(model, x, c.normalize);
      auto gen = at::detail::createCPUGenerator(c.seed * 7919ULL + std::uint64_t(r.steps));
      const auto t = mine_triplets(-torch::cdist(e, e).pow(2).detach(), y, miner, gen);
      r.skipped_anchors += t.skipped_no_positive + t.skipped_no_negative;
      const auto loss = triplet_margin_loss(
          e, t, c.margin, c.distance == "squared" ? TripletDistance::squared_euclidean : TripletDistance::euclidean);
      opt.zero_grad();
      loss.backward();
      opt.step();
      const double lv = loss.item<double>();
      if (!std::isfinite(lv)) throw std::runtime_error("training diverged: loss " + std::to_string(lv) + " at step " + std::to_string(r.steps));
      r.train_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - ts).count();
      loss_sum += lv;
      ++n_steps;
      ++r.steps;
    }
    if (n_steps == 0) break;
    const double mean_loss = loss_sum / double(n_steps);
    if (epoch == 0) r.first_loss = mean_loss;
    r.last_loss = mean_loss;
    // [XHN] Fig 6: each held-out anchor's easiest positive and hardest negative (parity labels), cosine similarity
    {
      const auto h = torch::nn::functional::normalize(embed(model, heldout_x, dev, c.normalize), torch::nn::functional::NormalizeFuncOptions().dim(1));
      auto sim = h.matmul(h.t());
      const auto y = torch::tensor(heldout_parity);
      const auto same = y.unsqueeze(0).eq(y.unsqueeze(1));
      sim.fill_diagonal_(-2.0);
      const auto sap = torch::where(same, sim, torch::full_like(sim, -2.0)).amax(1);
      const auto san = torch::where(same.logical_not(), sim, torch::full_like(sim, -2.0)).amax(1);
      const long stride = std::max<long>(1, long(h.size(0)) / 500);  // at most 500 points per epoch in the log
      for (long i = 0; i < h.size(0); i += stride)
        scatter_rows.push_back({epoch + 1, sap[i].item<double>(), san[i].item<double>()});
    }
    // checkpoint: model and optimizer, then the meta file that marks the checkpoint complete
    torch::save(model, (ck_model.string() + ".tmp"));
    fs::rename(ck_model.string() + ".tmp", ck_model);
    torch::save(opt, (ck_opt.string() + ".tmp"));
    fs::rename(ck_opt.string() + ".tmp", ck_opt);
    write_file_atomically(ck_meta.string(), json{{"config", config_json(c)}, {"epochs_done", epoch + 1}, {"steps", r.steps},
                                        {"first_loss", r.first_loss}, {"last_loss", r.last_loss},
                                        {"skipped_anchors", r.skipped_anchors},
                                        {"triplet_accuracy_before", r.triplet_accuracy_before},
                                        {"scatter", scatter_rows}}.dump());
    const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    log << "[train] " << c.sampler << " seed " << c.seed << ": epoch " << epoch + 1 << "/" << c.epochs << ", step "
        << r.steps << ", loss " << std::setprecision(4) << mean_loss << ", " << std::setprecision(3) << el
        << " s, ETA " << el / double(epoch + 1 - epoch0) * double(c.epochs - epoch - 1) << " s" << std::endl;
  }

  // evaluation with digit labels
  const auto test_x = images_of(data, split.test_digits);
  const auto eh = embed(model, heldout_x, dev, c.normalize), et = embed(model, test_x, dev, c.normalize);
  std::vector<std::int64_t> dh, dt;
  for (int i : split.heldout_train_digits) dh.push_back(data.labels[std::size_t(i)]);
  for (int i : split.test_digits) dt.push_back(data.labels[std::size_t(i)]);
  r.recall_train_digits = recall_at_k(eh, torch::tensor(dh), r.ks, Similarity::euclidean);
  r.recall_test_digits = recall_at_k(et, torch::tensor(dt), r.ks, Similarity::euclidean);
  r.triplet_accuracy_after = triplet_accuracy(eh, check_triplets);
  r.nmi_train_digits = nmi_of_kmeans(eh, torch::tensor(dh), 6, c.seed);
  r.nmi_test_digits = nmi_of_kmeans(et, torch::tensor(dt), 4, c.seed);
  r.nmi_parity = nmi_of_kmeans(eh, torch::tensor(heldout_parity), 2, c.seed);
  r.nmi_plus_parity = nmi_of_kmeans(eh, torch::tensor(heldout_parity), 20, c.seed);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::ostringstream csv;
  csv << "# " << json{{"config", config_json(c)}}.dump() << "\nsplit,digit,x,y\n";
  for (auto [name, e, d] : {std::tuple{"train_digits", eh, dh}, {"test_digits", et, dt}})
    for (std::int64_t i = 0; i < e.size(0); ++i)
      csv << name << "," << d[std::size_t(i)] << "," << e[i][0].item<float>() << ","
          << (e.size(1) > 1 ? e[i][1].item<float>() : 0.0f) << "\n";
  write_file_atomically((out / "embeddings.csv").string(), csv.str());
  std::ostringstream sc;
  sc << "# " << json{{"config", config_json(c)}, {"figure", "XHN Fig 6: easiest positive, hardest negative"}}.dump()
     << "\nepoch,s_ap,s_an\n";
  for (const auto& row : scatter_rows) sc << row[0] << "," << row[1].get<double>() << "," << row[2].get<double>() << "\n";
  write_file_atomically((out / "scatter.csv").string(), sc.str());
  write_file_atomically((out / "metrics.json").string(),
                        json{{"config", config_json(c)}, {"steps", r.steps}, {"first_loss", r.first_loss},
                             {"last_loss", r.last_loss}, {"skipped_anchors", r.skipped_anchors},
                             {"heldout_triplet_accuracy", {{"before", r.triplet_accuracy_before},
                                                           {"after", r.triplet_accuracy_after},
                                                           {"triplets", check_triplets.anchors.size(0)}}},
                             {"ks", r.ks},
                             {"recall_train_digits", r.recall_train_digits}, {"recall_test_digits", r.recall_test_digits},
                             {"nmi_train_digits", r.nmi_train_digits}, {"nmi_test_digits", r.nmi_test_digits},
                             {"nmi_parity", {{"k", 2}, {"nmi", r.nmi_parity}}},
                             {"nmi_plus_parity", {{"k", 20}, {"nmi", r.nmi_plus_parity}}},
                             {"seconds", r.seconds}, {"train_seconds", r.train_seconds},
                             {"torch_threads", torch::get_num_threads()}}.dump(2));
  return r;
}

}  // namespace dmlbench::experiments
