#include "eval_command.hpp"

#include "option_checks.hpp"
#include "dmlbench/experiments/atomic_file.hpp"
#include "dmlbench/experiments/blas_info.hpp"
#include "dmlbench/experiments/device.hpp"
#include "dmlbench/experiments/embedding_file.hpp"
#include "dmlbench/experiments/retrieval_evaluation.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <functional>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <thread>

namespace dmlbench::experiments {

namespace {

using json = nlohmann::ordered_json;

struct EvalRequest {
  std::string embeddings, labels, query_embeddings, query_labels, out, metric = "cosine", device = "auto";
  std::vector<std::string> levels;
  std::vector<int> ks = {1, 2, 4, 8};
  int nmi_plus_factor = -1;  // -1: kDefaultNmiPlusFactor up to kNmiPlusDefaultRows rows, else none
  std::uint64_t kmeans_seed = 0;
  bool no_nmi = false;
  int threads = 0, kmeans_iterations = 100;
  std::int64_t query_block = 0, gallery_tile = 0;
};

constexpr int kDefaultNmiPlusFactor = 10;
// Above this many rows NMI+ is off unless asked for: k-means with 10 x classes clusters (10,000 for 1,000 classes) costs
// 2 N k d flops per Lloyd iteration and k passes of k-means++ bookkeeping (at 300,000 x 128 about 8 TFLOP per
// iteration: minutes per iteration on 2 cores).
constexpr std::int64_t kNmiPlusDefaultRows = 100000;

// Progress on stderr: the search's queries every 10 s with an ETA, and each k-means as it starts.
std::function<void(const std::string&, std::int64_t, std::int64_t)> stderr_progress() {
  using Clock = std::chrono::steady_clock;
  auto start = std::make_shared<Clock::time_point>(Clock::now());
  auto last = std::make_shared<Clock::time_point>(Clock::now());
  return [start, last](const std::string& stage, std::int64_t done, std::int64_t total) {
    const auto now = Clock::now();
    if (stage != "search") {
      std::cerr << "[eval] " << stage << " ..." << std::endl;
      return;
    }
    if (done < total && now - *last < std::chrono::seconds(10)) return;
    *last = now;
    const double el = std::chrono::duration<double>(now - *start).count();
    std::cerr << "[eval] search: " << done << "/" << total << " queries, " << std::fixed << std::setprecision(0) << el
              << " s, ETA " << (done > 0 ? el / double(done) * double(total - done) : 0.0) << " s" << std::endl;
    std::cerr.unsetf(std::ios::floatfield);
  };
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// The requested levels of a label file whose rows must match an embedding file's.
std::vector<LabelLevel> load_levels(const std::string& labels_path, const std::string& embeddings_path,
                                    std::int64_t rows, const std::vector<std::string>& wanted) {
  const auto table = read_label_file(labels_path);
  if (std::int64_t(table.rows()) != rows)
    throw std::invalid_argument(labels_path + " has " + std::to_string(table.rows()) + " rows of labels for the " +
                                std::to_string(rows) + " embeddings of " + embeddings_path);
  std::vector<LabelLevel> out;
  const auto names = wanted.empty() ? table.level_names : wanted;
  for (const auto& name : names) {
    const auto it = std::find(table.level_names.begin(), table.level_names.end(), name);
    if (it == table.level_names.end())
      throw std::invalid_argument("--level " + name + ": " + labels_path + " has the levels " + join(table.level_names));
    out.push_back({name, table.labels[std::size_t(it - table.level_names.begin())]});
  }
  return out;
}

torch::Tensor to_tensor(EmbeddingMatrix& m, const std::string& device) {
  return torch::from_blob(m.values.data(), {m.rows, m.cols}, torch::kFloat32).to(torch::Device(device));
}

// The search and clustering options of the request (its --metric parsed by run_eval), checked.
RetrievalOptions retrieval_options(const EvalRequest& q, Similarity similarity) {
  RetrievalOptions o;
  o.ks = q.ks;
  o.similarity = similarity;
  o.nmi_plus_factor = q.nmi_plus_factor < 0 ? kDefaultNmiPlusFactor : q.nmi_plus_factor;
  o.kmeans_seed = q.kmeans_seed;
  o.kmeans_iterations = q.kmeans_iterations;
  if (q.query_block < 0 || q.gallery_tile < 0)
    throw std::invalid_argument("--query-block and --gallery-tile must be >= 0 (0: automatic)");
  o.block = q.query_block;
  o.gallery_tile = q.gallery_tile;
  o.clustering = !q.no_nmi;
  o.progress = stderr_progress();
  return o;
}

// The embeddings and their labels: the gallery, and the separate queries (In-shop) when given.
struct EvalInputs {
  EmbeddingMatrix gallery, queries;
  std::vector<LabelLevel> gallery_levels, query_levels;
  bool separate = false;  // queries apart from the gallery
};

// Reads and checks every input file (rows, dimensions, the same levels) before any work.
EvalInputs read_eval_inputs(const EvalRequest& q) {
  EvalInputs in;
  in.gallery = read_embedding_file(q.embeddings);
  in.gallery_levels = load_levels(q.labels, q.embeddings, in.gallery.rows, q.levels);
  in.separate = !q.query_embeddings.empty();
  if (in.separate) {
    in.queries = read_embedding_file(q.query_embeddings);
    if (in.queries.cols != in.gallery.cols)
      throw std::invalid_argument(q.query_embeddings + " has " + std::to_string(in.queries.cols) + " dimensions, " +
                                  q.embeddings + " " + std::to_string(in.gallery.cols));
    std::vector<std::string> names;
    for (const auto& l : in.gallery_levels) names.push_back(l.name);
    in.query_levels = load_levels(q.query_labels, q.query_embeddings, in.queries.rows, names);
  }
  return in;
}

// The report's config: what was evaluated and how (the same for the same inputs and options).
json eval_config(const EvalRequest& q, const EvalInputs& in, const std::string& device) {
  std::vector<std::string> level_names;
  for (const auto& l : in.gallery_levels) level_names.push_back(l.name);
  return {{"command", "eval"},
          {"embeddings", q.embeddings},
          {"labels", q.labels},
          {"query_embeddings", in.separate ? json(q.query_embeddings) : json(nullptr)},
          {"query_labels", in.separate ? json(q.query_labels) : json(nullptr)},
          {"levels", level_names},
          {"k", q.ks},
          {"metric", q.metric},
          {"nmi", !in.separate && !q.no_nmi},
          {"nmi_plus_factor", q.nmi_plus_factor},
          {"kmeans_seed", q.kmeans_seed},
          {"kmeans_iterations", q.kmeans_iterations},
          {"device", device},
          {"threads", torch::get_num_threads()},
          {"tie_rule", kRetrievalTieRule},
          {"queries_without_positive_rule", kQueriesWithoutPositiveRule}};
}

// What the search and each k-means cost on this machine.
json eval_cost(const RetrievalReport& report) {
  const auto& st = report.search;
  json cost = {{"search_seconds", st.seconds},
               {"gemm_seconds", st.gemm_seconds},
               {"select_seconds", st.select_seconds},
               {"scan", st.scan},
               {"search_gflop_per_second", st.seconds > 0 ? st.flops / st.seconds / 1e9 : 0.0},
               {"query_blocks", st.query_blocks},
               {"tiles", st.tiles},
               {"tile_bytes", st.tile_bytes},
               {"peak_candidate_bytes", st.peak_candidate_bytes},
               {"blas", describe_blas()}};
  json kmeans_cost = json::array();
  for (const auto& [k, c] : report.clustering_cost)
    kmeans_cost.push_back({{"k", k},
                           {"seeding", c.seeding},
                           {"candidates", c.candidates},
                           {"seeding_rows_read", c.rows_read},
                           {"iterations", c.iterations},
                           {"converged", c.converged},
                           {"seeding_seconds", c.seeding_seconds},
                           {"seconds_per_iteration", c.seconds_per_iteration},
                           {"gflop_per_iteration", c.flops_per_iteration / 1e9}});
  cost["kmeans"] = kmeans_cost;
  return cost;
}

// One line of metrics per level on stdout, then the search's and each k-means' cost on stderr.
void print_eval_summary(const RetrievalReport& report, const json& cost) {
  for (const auto& l : report.levels) {
    std::ostringstream line;
    line << std::fixed << std::setprecision(4) << "level " << l.level << ":";
    for (std::size_t i = 0; i < l.ks.size(); ++i) line << " R@" << l.ks[i] << " " << l.recall_at_k[i];
    auto value = [&line](const char* name, const std::optional<double>& v) {
      line << " " << name << " ";
      if (v) line << *v; else line << "n/a";
    };
    value("P@1", l.precision_at_1);
    value("R-prec", l.r_precision);
    value("MAP@R", l.map_at_r);
    if (l.nmi) line << " NMI " << *l.nmi;
    if (l.nmi_plus) line << " NMI+(k=" << l.nmi_plus_k << ") " << *l.nmi_plus;
    line << " (" << l.queries << " queries, " << l.queries_without_positive << " without a positive)";
    std::cout << line.str() << "\n";
  }
  const auto& st = report.search;
  std::cerr << std::setprecision(3) << "search: " << st.seconds << " s (" << cost["search_gflop_per_second"].get<double>()
            << " GFLOP/s counting 2 x queries x gallery x dims; GEMM " << st.gemm_seconds << " s, selection "
            << st.select_seconds << " s summed over the threads, scan " << st.scan << "); " << describe_blas() << "\n";
  for (const auto& [k, c] : report.clustering_cost)
    std::cerr << "k-means k = " << k << ": " << c.seeding << " seeding " << c.seeding_seconds << " s, " << c.iterations
              << (c.converged ? " iterations (converged)" : " iterations (the cap)") << " of "
              << c.seconds_per_iteration << " s (" << c.flops_per_iteration / 1e9 << " GFLOP each)\n";
}

void run_eval(const EvalRequest& q) {
  Similarity similarity = Similarity::cosine;  // parsed once, here
  try {
    similarity = similarities().named(q.metric);
  } catch (const std::invalid_argument&) {
    throw std::invalid_argument("--metric must be cosine or euclidean, got '" + q.metric + "'");
  }
  if (q.query_embeddings.empty() != q.query_labels.empty())
    throw std::invalid_argument("--query-embeddings and --query-labels go together");
  const auto device = resolve_device(q.device);
  if (q.threads < 0) throw std::invalid_argument("--threads must be >= 1 (0: all cores), got " + std::to_string(q.threads));
  // the selection and k-means on LibTorch's threads, the GEMMs on OpenBLAS's
  set_compute_threads(app::threads_or_all_cores(q.threads));
  RetrievalOptions o = retrieval_options(q, similarity);
  // read and check every input before any work, and write nothing until everything succeeded
  EvalInputs in = read_eval_inputs(q);
  if (q.nmi_plus_factor < 0 && !q.no_nmi && !in.separate && in.gallery.rows > kNmiPlusDefaultRows) {
    o.nmi_plus_factor = 0;
    std::cerr << "[eval] NMI+ off by default above " << kNmiPlusDefaultRows << " rows (" << in.gallery.rows
              << " here): k-means into " << kDefaultNmiPlusFactor << " x the classes costs 2 N k d flops per "
              << "iteration; --nmi-plus-factor " << kDefaultNmiPlusFactor << " runs it" << std::endl;
  }
  const auto report = in.separate ? retrieval_report(to_tensor(in.queries, device), in.query_levels,
                                                     to_tensor(in.gallery, device), in.gallery_levels, o)
                                  : retrieval_report(to_tensor(in.gallery, device), in.gallery_levels, o);
  EvalRequest resolved = q;  // the config states the NMI+ factor that ran
  resolved.nmi_plus_factor = o.nmi_plus_factor;
  const json config = eval_config(resolved, in, device), cost = eval_cost(report);
  // the result first (the same bytes for the same inputs), then what it cost on this machine
  const json out = {{"config", config}, {"git_revision", DMLBENCH_GIT_REV}, {"result", report}, {"cost", cost}};
  if (q.out.empty()) {
    std::cout << out.dump(2) << "\n";
    return;
  }
  write_file_atomically(q.out, out.dump(2) + "\n");
  print_eval_summary(report, cost);
  std::cout << "wrote " << q.out << "\n";
}

}  // namespace

void add_eval_command(CLI::App& app) {
  auto q = std::make_shared<EvalRequest>();
  auto* sub = app.add_subcommand(
      "eval", "Recall@K, precision@1, R-precision, MAP@R and NMI of embeddings made elsewhere (CSV, .npy, idx)");
  sub->add_option("--embeddings", q->embeddings, "N x d embeddings (the gallery when --query-embeddings is given)")
      ->required();
  sub->add_option("--labels", q->labels, "their labels: one integer per line, CSV with a header naming the levels, "
                                         ".npy int32/int64 or idx")
      ->required();
  sub->add_option("--level", q->levels, "label levels to evaluate (default: all of the label file)");
  sub->add_option("--k", q->ks, "K of Recall@K")->capture_default_str();
  sub->add_option("--metric", q->metric, "cosine | euclidean")->capture_default_str();
  sub->add_option("--nmi-plus-factor", q->nmi_plus_factor,
                  "NMI+ clusters into this many x the classes (0: none; default 10 up to 100,000 rows, none above)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--kmeans-seed", q->kmeans_seed, "seed of the k-means++ seeding")->capture_default_str();
  sub->add_option("--kmeans-iterations", q->kmeans_iterations, "at most this many Lloyd iterations")
      ->capture_default_str();
  sub->add_flag("--no-nmi", q->no_nmi, "skip the k-means NMI and NMI+");
  sub->add_option("--query-embeddings", q->query_embeddings, "separate queries (In-shop): no NMI, nothing excluded");
  sub->add_option("--query-labels", q->query_labels, "labels of --query-embeddings, with the same levels");
  sub->add_option("--device", q->device, "auto | cpu | cuda")->capture_default_str();
  sub->add_option("--query-block", q->query_block, "queries per block of the search (0: automatic)")
      ->capture_default_str();
  sub->add_option("--gallery-tile", q->gallery_tile, "gallery rows per tile of distances (0: automatic)")
      ->capture_default_str();
  sub->add_option("--threads", q->threads, "CPU threads of the search, the GEMMs (OpenBLAS) and k-means (default: "
                                           "all the machine has)");
  sub->add_option("--out", q->out, "write the JSON report here (default: print it)");
  sub->callback([q] { run_eval(*q); });
}

}  // namespace dmlbench::experiments
