// One training run from a run config: data, model, loss, miner, optimizer and schedule as the config names
// them; per-epoch atomic checkpoints with a deterministic resume; evaluation per set and label level; metrics.json,
// embeddings.csv and scatter.csv starting with the resolved config, the git revision and the seed.
#pragma once

#include "dmlbench/experiments/run_config.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace dmlbench::experiments {

struct RunOptions {
  std::string out_dir;       // the run folder
  bool resume = false;       // continue from out_dir's checkpoint (written by the same config, max_steps aside)
  std::string git_revision;  // stamped on every output
  long trace_steps = 0;      // write the starting weights and the first N steps' batches to out_dir/trace (benchmarks)
  bool resume_changed = false;  // with resume: a checkpoint of another config is continued too (a lower lr after a
                                // divergence); the keys that changed are logged and kept in metrics.json
  bool refuse_finished = false;  // without resume: refuse a folder that holds a finished run (metrics.json), checked
                                 // under the folder's lock (`train`)
  // A run that finished under the same key (run_key.hpp: its resolved config, the trainer's code, its threads and
  // device) is read back, not trained again: from out_dir, else copied from the first of reuse_from that holds one
  // (reproduce, sweeps, tuning and the report; a report's stage store). A copy whose files do not match their
  // recorded hashes is never reused: one line names the file.
  bool reuse_finished = false;
  std::vector<std::string> reuse_from;
  std::string source_dir;  // the repository, whose trainer code the key hashes; empty: runs are not keyed
  std::string work_root;   // written ${WORK} in the key record's file hashes (the report's work folder), or empty
};

// Trains (or resumes) one run and writes its outputs; returns the contents of metrics.json. Progress lines with an
// ETA go to `log`. Throws config_error for a config the data cannot satisfy (a level or set the dataset lacks), and
// std::runtime_error when training diverges (a non-finite loss: one line with the step, the epoch, the last finite
// loss and the key to lower; the checkpoint of the last full epoch is kept) or an output cannot be written. A loss
// that grows past kLossGrowthFactor times its first step's is noted in the log and in metrics.json's "loss_growth".
inline constexpr double kLossGrowthFactor = 100;

nlohmann::ordered_json train_run(const RunConfig& c, const RunOptions& o, std::ostream& log);

// The run of c that has finished under its key, read back as train_run would with o.reuse_finished (the run folder's
// own, else a copy from o.reuse_from restored into it); nothing where it must train, or where o has no source folder
// to key it by. A damaged copy is said in one line on `log` and never read.
std::optional<nlohmann::ordered_json> read_finished_run(const RunConfig& c, const RunOptions& o, std::ostream& log);

// Reads a value of a metrics.json by a dotted path, e.g. "eval.test_digits.digit.recall_at_k.1"; throws
// std::invalid_argument naming the path when it is missing or not a number.
double metric_value(const nlohmann::ordered_json& metrics, const std::string& dotted_path);

}  // namespace dmlbench::experiments
