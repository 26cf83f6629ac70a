// One training run from a run config, in pieces: set-up (training_setup.cpp), the epochs of
// steps (training_step.cpp) with the registered batch sampler, each epoch's logs and checkpoint
// (training_checkpoint.cpp), and the final evaluation and files (training_outputs.cpp).
#include "dmlbench/experiments/training_engine.hpp"

#include "dmlbench/experiments/batch_sampler_spec.hpp"
#include "dmlbench/experiments/blas_info.hpp"
#include "dmlbench/experiments/folder_lock.hpp"
#include "dmlbench/experiments/metric_path.hpp"
#include "dmlbench/experiments/device.hpp"
#include "dmlbench/experiments/run_key.hpp"
#include "training_run.hpp"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <optional>
#include <sstream>

namespace dmlbench::experiments {

namespace fs = std::filesystem;
namespace F = torch::nn::functional;
using json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

double metric_value(const json& metrics, const std::string& dotted) { return metric_at(metrics, dotted); }

namespace {

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string fmt_seconds(double s) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(s < 10 ? 1 : 0) << s << " s";
  return o.str();
}

// [XHN] Fig 6: each anchor's easiest positive and hardest negative on the triplet-accuracy set, cosine similarity.
void log_scatter(const RunConfig& c, TrainingSetup& s, TrainingProgress& p, int epoch) {
  const auto h = F::normalize(embed_set(*s.model, *s.accuracy_set, s.device, c.model.normalize),
                              F::NormalizeFuncOptions().dim(1));
  auto sim = h.matmul(h.t());
  const auto& y = s.accuracy_labels;
  const auto same = y.unsqueeze(0).eq(y.unsqueeze(1));
  sim.fill_diagonal_(-2.0);
  const auto sap = torch::where(same, sim, torch::full_like(sim, -2.0)).amax(1);
  const auto san = torch::where(same.logical_not(), sim, torch::full_like(sim, -2.0)).amax(1);
  const long stride = std::max<long>(1, long(h.size(0)) / 500);  // at most 500 points per epoch in the log
  for (long i = 0; i < h.size(0); i += stride)
    p.scatter.push_back({epoch + 1, sap[i].item<double>(), san[i].item<double>()});
}

// The batches of one epoch from the registered sampler. A file-backed training set decodes them ahead on the loader's
// threads: the plan is drawn up front, which draws the sampler exactly as the steps would.
struct EpochBatches {
  BatchSource next;
  BatchStream stream;
  std::vector<std::vector<std::int64_t>> plan;
};
EpochBatches epoch_batches(const RunConfig& c, TrainingSetup& s, int epoch) {
  EpochBatches b;
  b.next = sampler_spec(c.batch.sampler)
               .make(SamplerContext{c, s.train_labels_int, s.items_by_class, loss_class_distances(*s.loss), epoch});
  if (s.data.train.stream) {
    for (long k = 0; k < s.per_epoch; ++k) b.plan.push_back(b.next());
    b.stream = s.data.train.stream(b.plan, c.seed, std::uint64_t(epoch));
  }
  return b;
}

// The step decay: every learning rate times decay_factor after each listed epoch.
void set_learning_rates(const RunConfig& c, TrainingSetup& s, int epoch) {
  int decays = 0;
  for (int d : c.schedule.decay_epochs) decays += d <= epoch ? 1 : 0;
  auto& groups = s.optimizer->param_groups();
  for (std::size_t g = 0; g < groups.size(); ++g)
    groups[g].options().set_lr(s.base_lr[g] * std::pow(c.schedule.decay_factor, decays));
}

// The one line a non-finite loss ends the run with: the step, the epoch, the last finite loss, what to lower, and
// whether a checkpoint is there to continue from.
std::string divergence_text(const RunConfig& c, const TrainingProgress& p, int epoch, long k, double loss,
                            const std::string& out_dir) {
  std::ostringstream o;
  o << std::setprecision(6) << "training diverged at step " << p.steps + 1 << " (epoch " << epoch + 1 << ", step "
    << k + 1 << " of the epoch): the loss is " << (std::isnan(loss) ? std::string("nan") : loss > 0 ? "inf" : "-inf");
  if (!p.step_rows.empty())
    o << "; the last finite loss was " << p.step_rows.back()[2].get<double>() << " at step "
      << p.step_rows.back()[0].get<long>();
  o << "; lower optimizer.lr (now " << c.optimizer.lr << ")";
  if (p.epochs_done > 0)
    o << " and continue from the checkpoint of epoch " << p.epochs_done << " in " << out_dir
      << " with --resume-changed, or start again";
  else
    o << " and start again (no epoch finished, so there is no checkpoint)";
  return o.str();
}

// The first time a step's loss exceeds kLossGrowthFactor times the first step's: one note in the log.
void note_growth(TrainingProgress& p, double loss, std::ostream& log) {
  if (p.growth_noted || p.step_rows.empty()) return;
  const double first = p.step_rows.front()[2].get<double>();
  if (!loss_grown(first, loss)) return;
  p.growth_noted = true;
  log << "[train] note: the loss grew past " << kLossGrowthFactor << " x its first step's (" << std::setprecision(4)
      << loss << " at step " << p.steps << " against " << first
      << "): the run may be diverging (metrics.json: loss_growth); a lower optimizer.lr may help" << std::endl;
}

struct EpochSums {
  double loss = 0, active = 0;
  long steps = 0, active_steps = 0;
};

// The steps of one epoch (fewer where schedule.max_steps stops the run); progress with an ETA every 30 s.
EpochSums run_epoch(const RunConfig& c, TrainingSetup& s, TrainingProgress& p, int epoch, int first_epoch,
                    Clock::time_point started, const RunOptions& o, std::ostream& log) {
  auto batches = epoch_batches(c, s, epoch);
  EpochSums sums;
  auto last_note = Clock::now();
  for (long k = 0; k < s.per_epoch; ++k) {
    if (c.schedule.max_steps >= 0 && p.steps >= c.schedule.max_steps) break;
    const auto ts = Clock::now();
    std::optional<PhaseClock::Lap> lap(std::in_place, &p.clock, "data");
    const auto batch = batches.stream ? batches.plan[std::size_t(k)] : batches.next();
    const auto x = (batches.stream ? batches.stream()
                                   : s.data.train.images(batch, true, c.seed * 2654435761ULL + std::uint64_t(p.steps)))
                       .to(s.device);
    lap.reset();
    if (p.steps < o.trace_steps) write_trace_batch(s, p.steps, batch, x, o.out_dir);
    const auto r = train_step(c, s, p, batch, x, epoch);
    if (!std::isfinite(r.loss)) throw std::runtime_error(divergence_text(c, p, epoch, k, r.loss, o.out_dir));
    if (p.steps < o.trace_steps) write_trace_update(s, p.steps, o.out_dir);
    p.train_seconds += seconds_since(ts);
    sums.loss += r.loss;
    ++sums.steps;
    ++p.steps;
    if (r.active) {
      sums.active += *r.active;
      ++sums.active_steps;
    }
    p.step_rows.push_back({p.steps, epoch + 1, r.loss, r.active ? json(*r.active) : json(nullptr)});
    note_growth(p, r.loss, log);
    if (seconds_since(last_note) > 30) {
      last_note = Clock::now();
      const double done = double(epoch - first_epoch) * double(s.per_epoch) + double(k + 1);
      log << "[train]   epoch " << epoch + 1 << ", step " << k + 1 << "/" << s.per_epoch << ", loss "
          << std::setprecision(4) << sums.loss / double(sums.steps) << ", ETA "
          << fmt_seconds(seconds_since(started) / done *
                         (double(c.schedule.epochs - first_epoch) * double(s.per_epoch) - done))
          << std::endl;
    }
  }
  return sums;
}

}  // namespace

void end_epoch(const RunConfig& c, TrainingSetup& s, TrainingProgress& p, int epoch, double mean_loss,
               std::optional<double> mean_active, const std::string& out_dir, std::ostream& log) {
  if (mean_active) p.active_by_epoch[std::to_string(epoch + 1)] = *mean_active;
  {
    PhaseClock::Lap lap(&p.clock, "epoch end (loss)");
    if (auto* state = capability<EpochState>(*s.loss))
      state->end_epoch({epoch + 1, [&] { return embed_set(*s.model, s.data.train, s.device, true); }, s.train_labels,
                        s.train_level, out_dir, log});
  }
  if (c.eval.scatter) {
    PhaseClock::Lap lap(&p.clock, "scatter log");
    log_scatter(c, s, p, epoch);
  }
  if (c.eval.every_epoch) {  // a Recall@K curve ([LCC] Fig 5a): no NMI; MAP@R with eval.curve_ranking
    json point = {{"epoch", epoch + 1}, {"step", p.steps}, {"loss", mean_loss}, {"eval", json::object()}};
    if (mean_active) point["active_triplets"] = *mean_active;
    std::map<std::string, torch::Tensor> embedded;
    for (const auto& name : c.eval.curve_sets.empty() ? eval_sets(c, s.data) : c.eval.curve_sets) {
      const auto& set = s.data.eval_set(name);
      std::optional<PhaseClock::Lap> lap(std::in_place, &p.clock, "curve embedding");
      embedded[name] = embed_set(*s.model, set, s.device, c.model.normalize);
      lap.reset();
      point["eval"][name] = evaluate_set(c, embedded[name], set, false, c.eval.curve_ranking, &p.clock, "curve ");
    }
    p.curve.push_back(point);
    // the final evaluation's rows (the same weights) after the last epoch or the last one early stopping allows
    if (epoch + 1 == c.schedule.epochs || stops_early(c, p.curve).stop) p.last_curve_embeddings = std::move(embedded);
  }
}

EarlyStop stops_early(const RunConfig& c, const json& curve) {
  EarlyStop e;
  if (c.schedule.patience <= 0 || curve.empty()) return e;
  for (std::size_t i = 0; i < curve.size(); ++i) {
    double v = 0;
    try {
      v = metric_at(curve[i]["eval"], c.schedule.stop_metric);
    } catch (const std::invalid_argument& err) {
      throw config_error("schedule.stop_metric = " + c.schedule.stop_metric + " is not a number of the curve (" +
                         err.what() + ")");
    }
    if (i == 0 || v > e.best) {  // the first best point: a tie is no improvement
      e.best = v;
      e.best_index = i;
    }
  }
  e.stop = curve.size() - 1 - e.best_index >= std::size_t(c.schedule.patience);
  return e;
}

namespace {

// The key of this run as it trains here (its threads and device); none without a source folder to hash.
std::optional<RunKey> key_of(const RunConfig& c, const RunOptions& o) {
  if (o.source_dir.empty()) return std::nullopt;
  return run_key(c.resolved, torch::get_num_threads(), resolve_device(c.device), o.source_dir);
}

// With reuse_finished, a run that finished under this key is read back, not trained again: the run folder's own, else
// a copy from o.reuse_from restored into it. Under the folder's lock; nothing when the run must train.
std::optional<json> finished_run(const RunKey& k, const RunOptions& o, std::ostream& log) {
  const auto lock = FolderLock::take(o.out_dir);
  const auto here = check_run(o.out_dir, k.key, o.source_dir);
  if (!here.damage.empty()) log << "[train] " << here.damage << "\n";
  std::string from;
  if (!here.reusable) {
    std::vector<std::string> damaged;
    const auto found = RunStore(o.reuse_from).find(k.key, o.source_dir, &damaged);
    for (const auto& d : damaged) log << "[train] " << d << "\n";
    if (!found) return std::nullopt;
    from = *found;
    restore_run(from, o.out_dir, o.work_root, o.source_dir);
    if (const auto copy = check_run(o.out_dir, k.key, o.source_dir); !copy.reusable) {
      log << "[train] " << (copy.damage.empty() ? o.out_dir + ": the copy of " + from + " does not check" : copy.damage)
          << "\n";
      clear_run_folder(o.out_dir);
      return std::nullopt;
    }
  }
  std::ifstream in(fs::path(o.out_dir) / "metrics.json");
  const json j = json::parse(in);
  log << "[train] " << o.out_dir << (from.empty() ? "" : " (a copy of " + from + ")")
      << " has finished under this run key: its metrics.json is read\n";
  return j;
}

// The JSON of a file, or null where it is missing or unreadable.
json json_or_null(const fs::path& f) {
  try {
    std::ifstream in(f);
    if (in) return json::parse(in);
  } catch (const std::exception&) {
  }
  return json();
}

// A folder whose run or checkpoint has this run's config but another key (other trainer code, threads or device; a
// checkpoint that records no key was written by code that kept none) starts again, emptied first, so that nothing
// trained by other code is resumed or left beside the new outputs. Another config is left to restore_checkpoint
// (refused, or continued under --resume-changed).
void clear_other_key(const RunConfig& c, const RunKey& k, const RunOptions& o, std::ostream& log) {
  if (o.resume_changed) return;
  const fs::path dir(o.out_dir);
  const json rec = json_or_null(dir / kRunKeyFile), ckpt = json_or_null(dir / "checkpoint.json");
  const auto other_key = [&](const json& r) {
    return r.is_object() && r.value("config_hash", "") == k.config_hash && r.value("key", "") != k.key;
  };
  const bool ckpt_other = ckpt.is_object() && (ckpt.contains("run_key") ? other_key(ckpt["run_key"])
                                                                          : ckpt.value("config", json()) == c.resolved);
  if (!other_key(rec) && !ckpt_other) return;
  log << "[train] " << o.out_dir << " holds a run of this config under another key (the trainer's code, threads or "
      << "device changed): it trains again from the start\n";
  clear_run_folder(o.out_dir);
}

}  // namespace

std::optional<json> read_finished_run(const RunConfig& c, const RunOptions& o, std::ostream& log) {
  const auto key = key_of(c, o);
  if (!key || o.out_dir.empty()) return std::nullopt;
  return finished_run(*key, o, log);
}

json train_run(const RunConfig& c, const RunOptions& o, std::ostream& log) {
  if (o.out_dir.empty()) throw config_error("an output folder is required (--out)");
  const auto key = key_of(c, o);
  if (key && o.reuse_finished)
    if (auto done = finished_run(*key, o, log)) return *done;
  const auto started = Clock::now();
  // OpenBLAS's own pool as large as LibTorch's intra-op threads: its idle workers spin (sched_yield) beside the run's
  // threads and, with two runs at a time on two cores, took a quarter of the CPU (as the run profile showed)
  set_compute_threads(torch::get_num_threads());
  TrainingSetup s;
  TrainingProgress p;
  std::optional<PhaseClock::Lap> lap(std::in_place, &p.clock, "setup");
  set_up_training(c, s);
  // one run per folder, from before the first write (a config the data refuses writes nothing); the check
  // for a finished run comes after it, so that no second run slips in between
  const auto lock = FolderLock::take(o.out_dir);
  if (o.refuse_finished && !o.resume && fs::exists(fs::path(o.out_dir) / "metrics.json"))
    throw config_error("--out " + o.out_dir + " already holds a finished run (metrics.json): choose another folder, or "
                       "--resume");
  if (key) {
    clear_other_key(c, *key, o, log);
    p.run_key = *key;
  }
  if (o.resume && restore_checkpoint(c, s, p, o.out_dir, o.resume_changed, log))
    log << "[train] resumed " << o.out_dir << " after epoch " << p.epochs_done << "\n";
  const int first_epoch = p.epochs_done;
  if (o.trace_steps > 0 && p.steps == 0) write_trace_start(c, s, o.out_dir);
  lap.emplace(&p.clock, "triplet accuracy");
  if (first_epoch == 0 && s.accuracy_set)
    p.triplet_accuracy_before = triplet_accuracy(embed_set(*s.model, *s.accuracy_set, s.device, c.model.normalize),
                                                 s.accuracy_triplets);
  lap.reset();
  log << "[train] " << c.name << " seed " << c.seed << ": " << s.data.description << "; " << s.per_epoch
      << " steps per epoch of " << c.batch.classes << " x " << c.batch.per_class << "\n";
  const bool stopped = stops_early(c, p.curve).stop;  // a resumed run that had stopped early trains no further
  for (int epoch = first_epoch; !stopped && epoch < c.schedule.epochs; ++epoch) {
    set_learning_rates(c, s, epoch);
    const auto sums = run_epoch(c, s, p, epoch, first_epoch, started, o, log);
    if (sums.steps == 0) break;
    const double mean_loss = sums.loss / double(sums.steps);
    if (epoch == 0) p.first_loss = mean_loss;
    p.last_loss = mean_loss;
    // stopped by schedule.max_steps inside the epoch: no tree, curve point or checkpoint of a partial epoch (a resumed
    // run redoes the epoch from its start, as after a kill)
    if (sums.steps < s.per_epoch) break;
    const auto mean_active =
        sums.active_steps > 0 ? std::optional<double>(sums.active / double(sums.active_steps)) : std::nullopt;
    end_epoch(c, s, p, epoch, mean_loss, mean_active, o.out_dir, log);
    p.epochs_done = epoch + 1;
    lap.emplace(&p.clock, "checkpoint");
    save_checkpoint(c, s, p, o.out_dir);
    lap.reset();
    if (const auto stop = stops_early(c, p.curve); stop.stop) {
      log << "[train] early stop after epoch " << epoch + 1 << ": " << c.schedule.stop_metric << " best "
          << stop.best << " at epoch " << stop.best_index + 1 << ", none better in " << c.schedule.patience
          << " epochs since" << std::endl;
      break;
    }
    const double el = seconds_since(started);
    log << "[train] " << c.name << " " << c.miner.name << " seed " << c.seed << ": epoch " << epoch + 1 << "/"
        << c.schedule.epochs << ", step " << p.steps << ", loss " << std::setprecision(4) << mean_loss << ", "
        << std::setprecision(3) << el << " s, ETA "
        << el / double(epoch + 1 - first_epoch) * double(c.schedule.epochs - epoch - 1) << " s" << std::endl;
  }
  return finish_run(c, s, p, o, started);
}

}  // namespace dmlbench::experiments
