// checkpoint.json of a training run: the progress a resume restores, written last so that it marks a complete
// checkpoint (engine/training_checkpoint.cpp). Torch-free, so that it is fuzzed.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace dmlbench::experiments {

struct CheckpointState {
  nlohmann::ordered_json meta;  // the whole file: a loss's own checkpoint fields are read from it by the loss
  nlohmann::ordered_json config;
  int epochs_done = 0;
  long steps = 0;
  double first_loss = 0, last_loss = 0, triplet_accuracy_before = 0;
  std::int64_t skipped_anchors = 0;
  nlohmann::ordered_json scatter, curve, steps_log, active_by_epoch, movement;
};

// Throws data_error naming the file and the key: not JSON, not an object, a field missing or of another type, a
// negative count. steps_log, active_by_epoch and movement may be absent (older checkpoints).
CheckpointState read_checkpoint_state(const std::string& path);

}  // namespace dmlbench::experiments
