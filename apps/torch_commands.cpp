// Entry point of the LibTorch sub-commands (info, train, reproduce, eval), called by apps/ through dlopen.
#include "dmlbench/experiments/candidate_scan.hpp"
#include "repository_dir.hpp"
#include "dmlbench/experiments/blas_info.hpp"
#include "dmlbench/experiments/device.hpp"
#include "dmlbench/experiments/heap_policy.hpp"
#include "dmlbench/experiments/reproduction.hpp"
#include "dmlbench/experiments/run_config.hpp"
#include "dmlbench/experiments/training_engine.hpp"
#include "dmlbench/experiments/tuning_plan.hpp"
#include "dmlbench/experiments/atomic_file.hpp"
#include "dmlbench/experiments/folder_lock.hpp"
#include "dmlbench/experiments/process_pool.hpp"
#include "eval_command.hpp"
#include "tune_command.hpp"

#include <nlohmann/json.hpp>

#include <CLI/CLI.hpp>
#include <c10/util/Exception.h>
#include <Eigen/Core>
#include <boost/version.hpp>

#include <chrono>
#include <cmath>
#include <fstream>
#include <exception>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

namespace ex = dmlbench::experiments;
namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

const std::string kRepo = dmlbench::app::repository_dir();

struct ReproduceRequest {
  std::string file, profile = "default", out, variant, tuned;
  std::vector<std::string> set, arms;
  std::vector<std::string> arm_seeds;  // "ARM=N": that arm's seeds 1..N (seeds by arm)
  int seeds = 0;  // 0: the profile's
  int jobs = 0;   // 0: the profile's
  bool resume = false;
  bool reuse = true;                    // a finished run of the same key is read back, not trained again
  std::vector<std::string> reuse_from;  // where else such runs are looked for (besides the committed store)
};

// The stores a reproduction's runs are looked for in: those given, then the committed report's (reports/stages).
std::vector<std::string> run_stores(const std::vector<std::string>& given) {
  auto stores = given;
  stores.push_back(kRepo + "/reports/stages");
  return stores;
}

// The options every run of a reproduction trains under; its work root is the folder its --out lies in (the
// report's work folder, whose stage store writes it ${WORK}).
ex::RunOptions run_options(const ReproduceRequest& q, const std::string& run_dir) {
  ex::RunOptions o{run_dir, q.resume, DMLBENCH_GIT_REV};
  o.reuse_finished = q.reuse;
  o.reuse_from = run_stores(q.reuse_from);
  o.source_dir = kRepo;
  o.work_root = fs::absolute(q.out).lexically_normal().parent_path().string();
  return o;
}

// Each run not yet finished in its own `dmlbench train` process, `jobs` at a time (each trains on one thread as
// before, so a run's numbers do not depend on the job count); its output in <run>/train_log.txt. `metrics` holds the
// runs read back already (null for the others); those run here are filled in. The first failure ends it (once the
// runs still going have finished) with the tail of its log.
void run_as_processes(const ex::Reproduction& r, const std::vector<ex::ReproductionRun>& runs, const ReproduceRequest& q,
                      int jobs, std::vector<json>& metrics, const std::set<std::size_t>& fresh) {
  const std::vector<std::string> argv0 = {fs::read_symlink("/proc/self/exe").string(), "train", "--config", r.config};
  std::vector<ex::PoolJob> pool;
  std::vector<std::size_t> run_of;  // pool job -> run
  std::map<std::size_t, long> job_of;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (!metrics[i].is_null()) continue;
    const auto& run = runs[i];
    // one that starts from another run's weights waits for that run to finish (when that one runs here too)
    const long after = run.depends >= 0 && job_of.count(std::size_t(run.depends)) ? job_of[std::size_t(run.depends)] : -1;
    ex::PoolJob job{argv0, (fs::path(run.dir) / "train_log.txt").string(), false, after, false};
    for (const auto& kv : run.set) job.argv.insert(job.argv.end(), {"--set", kv});
    const auto o = run_options(q, run.dir);
    job.argv.insert(job.argv.end(), {"--out", run.dir, "--work-root", o.work_root});
    if (q.resume) job.argv.push_back("--resume");
    if (!fresh.count(i)) {  // a fresh run trains: it reads back nothing
      if (q.reuse) job.argv.push_back("--reuse-finished");
      for (const auto& d : q.reuse_from) job.argv.insert(job.argv.end(), {"--reuse-from", d});
    }
    job_of[i] = long(pool.size());
    run_of.push_back(i);
    pool.push_back(job);
  }
  ex::PoolOptions o;
  o.jobs = jobs;
  o.stop_on_failure = true;
  o.what = "the reproduction's jobs";
  o.on_start = [&](std::size_t j) {
    const auto& run = runs[run_of[j]];
    std::cerr << "[reproduce] " << r.id << " run " << run_of[j] + 1 << "/" << runs.size() << " started: "
              << (run.variant.empty() ? "" : run.variant + " ") << run.arm << " seed " << run.config.seed
              << " (log " << pool[j].log_path << ")" << std::endl;
  };
  o.progress_text = [](const ex::PoolProgress& p) {
    return "[reproduce] " + std::to_string(p.finished) + "/" + std::to_string(p.total) + " runs trained, " +
           ex::seconds_text(p.seconds) + ", ETA " + ex::seconds_text(p.eta_seconds());
  };
  std::string failure;  // the first run to fail
  o.on_finish = [&](std::size_t j, const ex::JobOutcome& out) {
    if (out.state == ex::JobState::failed && failure.empty())
      failure = "run " + runs[run_of[j]].dir + " failed; its log:\n" + out.log_tail;
  };
  if (!pool.empty()) ex::run_pool(pool, o);
  if (!failure.empty()) throw std::runtime_error(failure);
  for (const std::size_t i : run_of) {
    std::ifstream in(fs::path(runs[i].dir) / "metrics.json");
    if (!in) throw std::runtime_error("run " + runs[i].dir + " finished without metrics.json");
    metrics[i] = json::parse(in);
  }
}

// The runs already finished under their keys, read back in order (`fresh`: those that must train anew, never read
// back, since a run that trains starts from their weights) (a run that starts from another comes after it, so
// its key can name that run's): a run folder's own, or a copy from a store. Null for each run that must train.
std::vector<json> finished_runs(const std::vector<ex::ReproductionRun>& runs, const ReproduceRequest& q,
                                std::set<std::size_t>& fresh) {
  std::vector<json> metrics(runs.size());
  if (!q.reuse) return metrics;
  std::ostringstream quiet;  // the runs' own logs say where each came from; here, a count
  std::size_t read = 0;
  for (std::size_t i = 0; i < runs.size(); ++i)
    if (runs[i].depends < 0 || !metrics[std::size_t(runs[i].depends)].is_null())
      if (auto m = ex::read_finished_run(runs[i].config, run_options(q, runs[i].dir), quiet)) {
        metrics[i] = std::move(*m);
        ++read;
      }
  // a run read back whose dependant trains must leave its weights there: a copy from a store holds none, so that
  // run trains again (the same key gives the same bits), and so on down a chain
  for (bool again = true; again;) {
    again = false;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const long d = runs[i].depends;
      if (!metrics[i].is_null() || d < 0 || metrics[std::size_t(d)].is_null()) continue;
      if (fs::exists(fs::path(runs[std::size_t(d)].dir) / "checkpoint_model.pt")) continue;
      metrics[std::size_t(d)] = json();
      fresh.insert(std::size_t(d));
      fs::remove_all(runs[std::size_t(d)].dir);  // the copy: the run trains into an empty folder
      --read;
      again = true;
      std::cerr << "[reproduce] " << runs[std::size_t(d)].dir << " trains again: " << runs[i].dir
                << " starts from its weights, which its stored copy does not hold\n";
    }
  }
  std::cerr << "[reproduce] " << read << " of " << runs.size() << " runs finished before under the same run key "
            << "(config, trainer code, threads, device): read back, not trained\n";
  std::istringstream lines(quiet.str());  // but a damaged copy is said, one line each
  for (std::string line; std::getline(lines, line);)
    if (line.find("does not match") != std::string::npos || line.find(" is missing") != std::string::npos)
      std::cerr << line << "\n";
  return metrics;
}

// --arm-seeds ARM=N, ... as arm -> N; config_error for anything else.
std::map<std::string, int> parsed_arm_seeds(const std::vector<std::string>& given) {
  std::map<std::string, int> arm_seeds;
  for (const auto& a : given) {
    const auto eq = a.find('=');
    int n = 0;
    try {
      n = eq == std::string::npos ? 0 : std::stoi(a.substr(eq + 1));
    } catch (const std::exception&) {
    }
    if (eq == std::string::npos || eq == 0 || n < 1 || a.substr(eq + 1) != std::to_string(n))
      throw ex::config_error("--arm-seeds " + a + ": give ARM=N, N a whole number >= 1");
    arm_seeds[a.substr(0, eq)] = n;
  }
  return arm_seeds;
}

// Runs every (variant, arm, seed) of a reproduction through the engine, writes <out>/summary.json and prints the
// comparison table (ours next to the paper's numbers, each claim's deciding anytime interval, the verdict).
void reproduce(const ReproduceRequest& q) {
  auto r = ex::read_reproduction(q.file, kRepo);
  if (!q.tuned.empty())  // each arm's best settings of a tuning study
    r = ex::with_tuned_settings(r, ex::read_json_file(q.tuned, "the tuning results"), q.tuned, kRepo);
  if (!r.profiles.count(q.profile))
    throw ex::config_error(q.file + " has no profile \"" + q.profile + "\" (it is not run in that profile)");
  const auto& prof = r.profiles.at(q.profile);
  const int seeds = q.seeds > 0 ? q.seeds : prof.seeds;
  const auto variants = ex::selected_variants(r, q.variant.empty() ? std::vector<std::string>{}
                                                                    : std::vector<std::string>{q.variant});
  const ex::Reproduction rr = ex::with_arms(r, q.arms);
  const auto& arms = rr.arms;
  // resolve every run's config before any training, so a bad key fails before anything is written
  std::vector<std::uint64_t> seed_list;
  for (int k = 1; k <= seeds; ++k) seed_list.push_back(std::uint64_t(k));
  const auto arm_seeds = parsed_arm_seeds(q.arm_seeds);
  const auto runs = ex::plan_reproduction_runs(r, prof, variants, arms, seed_list, q.set, q.out, kRepo, arm_seeds);
  for (const auto& run : runs)
    if (!fs::is_directory(run.config.dataset.data_dir))
      throw ex::config_error("dataset.data_dir " + run.config.dataset.data_dir + " is not a folder (" + r.config +
                             "; scripts/fetch_data.sh fetches the bundled MNIST digits)");
  const auto lock = ex::FolderLock::take(q.out);  // one writer per folder, from before its first write
  std::map<std::string, std::map<std::string, std::vector<json>>> results;  // variant -> arm -> metrics
  std::set<std::size_t> fresh;  // runs another starts from, whose stored copies hold no weights: trained anew
  auto metrics = finished_runs(runs, q, fresh);
  const int jobs = q.jobs > 0 ? q.jobs : prof.jobs;
  if (jobs > 1) run_as_processes(r, runs, q, jobs, metrics, fresh);
  const auto t0 = std::chrono::steady_clock::now();
  std::size_t trained = 0, to_train = 0;
  for (const auto& m : metrics) to_train += m.is_null() ? 1 : 0;
  for (std::size_t i = 0; jobs <= 1 && i < runs.size(); ++i) {
    if (!metrics[i].is_null()) continue;
    const auto& run = runs[i];
    std::cerr << "[reproduce] " << r.id << " run " << i + 1 << "/" << runs.size() << ": "
              << (run.variant.empty() ? "" : run.variant + " ") << run.arm << " seed " << run.config.seed << std::endl;
    auto o = run_options(q, run.dir);
    if (fresh.count(i)) {
      o.reuse_finished = false;
      o.reuse_from.clear();
    }
    metrics[i] = ex::train_run(run.config, o, std::cerr);
    const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ++trained;
    std::cerr << "[reproduce] " << trained << "/" << to_train << " runs trained, " << std::fixed << std::setprecision(0)
              << el << " s, ETA " << el / double(trained) * double(to_train - trained) << " s" << std::endl;
  }
  for (std::size_t i = 0; i < runs.size(); ++i) results[runs[i].variant][runs[i].arm].push_back(metrics[i]);
  json summary =
      ex::reproduction_summary(rr, variants, q.profile, seeds, q.set, runs.front().config.resolved, DMLBENCH_GIT_REV, results);
  if (!arm_seeds.empty()) {  // each arm's seeds as run (an init_from arm raised to its dependants')
    json by_arm = json::object();
    for (const auto& [arm, ks] : ex::seeds_of_arms(arms, seed_list, arm_seeds)) by_arm[arm] = ks.size();
    summary["config"]["seeds_by_arm"] = by_arm;
  }
  ex::write_file_atomically((fs::path(q.out) / "summary.json").string(), summary.dump(2) + "\n");
  std::cout << ex::summary_table_text(summary, rr);
  std::cout << "wrote " << (fs::path(q.out) / "summary.json").string() << "\n";
}

// dmlbench info: the libraries, the BLAS and threads, the device --device auto selects.
void add_info_command(CLI::App& app) {
  auto* info = app.add_subcommand("info", "versions of the libraries, the BLAS and threads in use, and the device "
                                          "--device auto selects");
  info->callback([] {
    std::cout << "dmlbench " << DMLBENCH_VERSION << " (" << DMLBENCH_GIT_REV << ")\n"
              << "Eigen " << EIGEN_WORLD_VERSION << "." << EIGEN_MAJOR_VERSION << "." << EIGEN_MINOR_VERSION
              << ", Boost " << BOOST_VERSION / 100000 << "." << BOOST_VERSION / 100 % 1000 << "\n"
              << ex::describe_torch() << "\n"
              << ex::describe_blas() << "\n"
              << "exact search scan: " << ex::scan_isa_name(ex::fastest_scan_isa()) << " (generic, avx2, avx512: the "
              << "widest this CPU runs; DMLBENCH_SCAN_ISA picks another)\n"
              << "--device auto selects: " << ex::resolve_device("auto") << "\n";
  });
}

// `train mnist-evenodd`: the alias of the [LCC] Table 1 reproduction, with the flags it always had.
CLI::App* add_evenodd_alias(CLI::App& train) {
  auto* eo = train.add_subcommand("mnist-evenodd", "[LCC] Sec 5.1 (alias of `reproduce --file "
                                                    "experiments/reproductions/lcc_table1.json`): triplet vs triplet + "
                                                    "EPS on even/odd labels, Recall@K with digit labels");
  struct EvenOddFlags {
    std::string data_dir, out, sampler = "both", distance = "squared", device = "auto", kernels = "fused";
    int seeds = 5, epochs = 5, samples_per_class = 64;
    double lr = 1e-3, margin = 0.2, holdout = 0.2;
    long max_steps = -1;
    bool normalize = false, resume = false;
  };
  auto f = std::make_shared<EvenOddFlags>();
  eo->add_option("--data-dir", f->data_dir, "MNIST layout folder (prefix train), e.g. data/mnist")->required();
  eo->add_option("--out", f->out, "output folder")->required();
  eo->add_option("--sampler", f->sampler, "random | eps | both")->capture_default_str();
  eo->add_option("--seeds", f->seeds, "number of seeds (1, 2, ...)")->capture_default_str();
  eo->add_option("--epochs", f->epochs)->capture_default_str();
  eo->add_option("--samples-per-class", f->samples_per_class, "batch = 2 x this")->capture_default_str();
  eo->add_option("--lr", f->lr)->capture_default_str();
  eo->add_option("--margin", f->margin, "triplet margin, in units of --distance")->capture_default_str();
  eo->add_option("--distance", f->distance, "squared | euclidean (triplet loss)")->capture_default_str();
  eo->add_flag("--normalize", f->normalize, "L2-normalise the embedding (the unit circle in 2-D)");
  eo->add_option("--holdout", f->holdout, "held-out fraction of digits 0-5")->capture_default_str();
  eo->add_option("--max-steps", f->max_steps, "stop each run after this many steps (smoke runs)")->capture_default_str();
  eo->add_option("--device", f->device, "auto | cpu | cuda")->capture_default_str();
  eo->add_option("--kernels", f->kernels, "fused (ReLU-BN-pool fused on the CPU) | stock (torch::nn modules)")
      ->capture_default_str();
  eo->add_flag("--resume", f->resume, "continue runs from their checkpoints");
  eo->callback([f] {
    if (f->seeds < 1) throw ex::config_error("--seeds must be >= 1");
    if (f->sampler != "random" && f->sampler != "eps" && f->sampler != "both")
      throw ex::config_error("--sampler must be random, eps or both, got '" + f->sampler + "'");
    if (f->distance != "squared" && f->distance != "euclidean")
      throw ex::config_error("--distance must be squared or euclidean, got '" + f->distance + "'");
    ReproduceRequest q;
    q.file = kRepo + "/experiments/reproductions/lcc_table1.json";
    q.out = f->out;
    q.seeds = f->seeds;
    q.resume = f->resume;
    if (f->sampler != "both") q.arms = {f->sampler};
    auto num = [](double v) {
      std::ostringstream o;
      o << std::setprecision(17) << v;
      return o.str();
    };
    q.set = {"dataset.data_dir=" + fs::absolute(f->data_dir).string(), "schedule.epochs=" + std::to_string(f->epochs),
             "batch.per_class=" + std::to_string(f->samples_per_class), "optimizer.lr=" + num(f->lr),
             "loss.margin=" + num(f->margin), "loss.distance=" + f->distance,
             std::string("model.normalize=") + (f->normalize ? "true" : "false"), "dataset.holdout=" + num(f->holdout),
             "schedule.max_steps=" + std::to_string(f->max_steps), "device=" + f->device, "model.kernels=" + f->kernels};
    reproduce(q);
  });
  return eo;
}

// dmlbench train --config FILE [--set key=value ...] --out DIR
void add_train_command(CLI::App& app) {
  auto* train = app.add_subcommand("train", "train one run from a run config (experiments/configs/*.json)");
  train->require_subcommand(0, 1);
  auto config = std::make_shared<std::string>();
  auto sets = std::make_shared<std::vector<std::string>>();
  auto out = std::make_shared<std::string>();
  auto resume = std::make_shared<bool>(false);
  auto max_steps = std::make_shared<long>(-2);
  auto device = std::make_shared<std::string>();
  auto print_schema = std::make_shared<bool>(false);
  auto trace_steps = std::make_shared<long>(0);
  train->add_option("--config", *config, "run config (JSON); its schema: experiments/README.md or --schema");
  train->add_option("--set", *sets, "override a config key: key=value (repeatable), e.g. --set optimizer.lr=1e-4");
  train->add_option("--out", *out, "the run folder (metrics.json, checkpoints, embeddings)");
  train->add_flag("--resume", *resume, "continue from the run folder's checkpoint");
  auto resume_changed = std::make_shared<bool>(false);
  train->add_flag("--resume-changed", *resume_changed, "--resume, also from a checkpoint of another config (e.g. a "
                                                       "lower optimizer.lr after a divergence); what changed is logged "
                                                       "and kept in metrics.json");
  auto reuse_finished = std::make_shared<bool>(false);
  train->add_flag("--reuse-finished", *reuse_finished, "a run that finished under the same run key (resolved config, "
                                                       "trainer code, threads, device) is read back, not trained: the "
                                                       "run folder's own, else a copy from --reuse-from or the committed "
                                                       "store reports/stages (reproduce, sweeps and tune pass it)");
  auto reuse_from = std::make_shared<std::vector<std::string>>();
  train->add_option("--reuse-from", *reuse_from, "with --reuse-finished: a folder of finished runs to copy one of the "
                                                 "same key from (repeatable; reports/stages is always searched)");
  auto work_root = std::make_shared<std::string>();
  train->add_option("--work-root", *work_root, "the folder written ${WORK} in the run's key record (the report's work "
                                               "folder; reproduce passes the folder its --out lies in)");
  train->add_option("--max-steps", *max_steps, "stop after this many steps (smoke runs; = --set schedule.max_steps=N)");
  train->add_option("--device", *device, "auto | cpu | cuda (= --set device=...)");
  train->add_flag("--schema", *print_schema, "print the config schema (Markdown) and exit");
  train->add_option("--trace-steps", *trace_steps, "write the starting weights and the first N steps' batches to "
                                                   "OUT/trace (a reference replays them: bench/glyph_training_bench.py)")
      ->check(CLI::NonNegativeNumber);

  auto* eo = add_evenodd_alias(*train);
  train->callback([=] {
    if (eo->parsed()) return;
    if (*print_schema) {
      std::cout << ex::run_config_schema_markdown();
      return;
    }
    if (config->empty()) throw ex::config_error("train: --config FILE is required (or: train mnist-evenodd ...)");
    if (out->empty()) throw ex::config_error("train: --out DIR is required");
    std::vector<std::string> s = *sets;
    if (*max_steps != -2) s.push_back("schedule.max_steps=" + std::to_string(*max_steps));
    if (!device->empty()) s.push_back("device=" + *device);
    const auto c = ex::load_run_config(*config, s, kRepo);
    if (*resume_changed) *resume = true;
    ex::RunOptions o{*out, *resume, DMLBENCH_GIT_REV, *trace_steps, *resume_changed, true, *reuse_finished};
    o.reuse_from = run_stores(*reuse_from);
    o.source_dir = kRepo;
    o.work_root = *work_root;
    const auto m = ex::train_run(c, o, std::cerr);
    std::cout << m["eval"].dump(2) << "\nwrote " << (fs::path(*out) / "metrics.json").string() << "\n";
  });

}

// dmlbench reproduce --file experiments/reproductions/X.json --profile default --out DIR
void add_reproduce_command(CLI::App& app) {
  auto* rep = app.add_subcommand("reproduce", "run a reproduction file (arms x seeds [x variants]) and judge its "
                                              "claims by the anytime-valid interval over their per-seed differences");
  auto q = std::make_shared<ReproduceRequest>();
  rep->add_option("--file", q->file, "reproduction file, e.g. experiments/reproductions/lcc_table1.json")->required();
  rep->add_option("--profile", q->profile, "quick | default | full")->capture_default_str();
  rep->add_option("--out", q->out, "output folder (one sub-folder per variant, arm and seed)")->required();
  rep->add_option("--variant", q->variant, "run only this variant");
  rep->add_option("--arms", q->arms, "run only these arms");
  rep->add_option("--seeds", q->seeds, "seeds per arm (default: the profile's)");
  rep->add_option("--arm-seeds", q->arm_seeds, "ARM=N: this arm runs seeds 1..N, the others --seeds (repeatable; an "
                                               "arm another starts from runs as many as it); the report's seeds by arm");
  rep->add_option("--jobs", q->jobs, "runs at a time, each its own process (default: the profile's jobs, else 1)");
  rep->add_option("--set", q->set, "override a config key of every run: key=value (repeatable)");
  rep->add_option("--tuned", q->tuned, "train each arm with its best settings of this tuning results file "
                                       "(experiments/tuned/<reproduction>.json; experiments/tuning.md)");
  rep->add_flag("--resume", q->resume, "continue runs from their checkpoints");
  rep->add_flag("!--no-reuse", q->reuse, "train every run, even one that finished before under the same run key "
                                         "(default: such a run is read back, from --out, --reuse-from or reports/stages)");
  rep->add_option("--reuse-from", q->reuse_from, "a folder of finished runs to copy those of the same run key from "
                                                 "(repeatable; the committed store reports/stages is always searched)");
  rep->callback([q] {
    ex::check_profile_name(q->profile, "--profile");
    if (q->seeds < 0) throw ex::config_error("--seeds must be >= 1");
    if (q->jobs < 0) throw ex::config_error("--jobs must be >= 1");
    reproduce(*q);
  });

}

}  // namespace

extern "C" int dmlbench_torch_command(int argc, char** argv) {
  ex::keep_freed_memory_in_heap();
  CLI::App app{"dmlbench LibTorch commands"};
  app.name("dmlbench");
  app.require_subcommand(1);
  add_info_command(app);
  ex::add_eval_command(app);
  ex::add_tune_command(app);
  add_train_command(app);
  add_reproduce_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const c10::Error& e) {
    // LibTorch's errors carry a C++ backtrace after their message: the refusal is its first line
    const std::string what = e.what_without_backtrace();
    std::cerr << "dmlbench: error: LibTorch: " << what.substr(0, what.find('\n')) << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "dmlbench: error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
