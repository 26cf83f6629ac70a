// One key of the run-config schema and the error a bad config raises; the schema's core (run_config.cpp) and the
// registered losses, miners and samplers (loss_spec.hpp, miner_spec.hpp, batch_sampler_spec.hpp) declare keys with it.
// Torch-free.
#pragma once

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "dmlbench/experiments/data_error.hpp"  // one_line

namespace dmlbench::experiments {

// A bad config: the message names the key (dotted path), what it got and what is allowed (and, for an unknown key,
// the nearest valid name).
struct config_error : std::invalid_argument {
  explicit config_error(const std::string& message) : std::invalid_argument(one_line(message)) {}
};

// One key of the schema: dotted path, JSON type (string | number | integer | boolean | integer-list | number-list |
// string-list), its default (null: required or "unset"), allowed values or a range, and one line of documentation.
struct ConfigKey {
  std::string path, type;
  nlohmann::ordered_json default_value;
  std::vector<std::string> choices;        // allowed strings (string, string-list), empty: any
  double min = -1e300, max = 1e300;        // inclusive range of numbers (and each list element)
  bool min_exclusive = false, max_exclusive = false;
  std::string doc;
  bool owner_only = false;  // a key of one loss, miner or sampler that is an error under another (not a silent no-op)
};

// A key with its type, default, documentation and (for strings) allowed values.
ConfigKey config_key(std::string path, std::string type, nlohmann::ordered_json default_value, std::string doc,
                     std::vector<std::string> choices = {});
// The same key with a range [lo, hi] (an open end where lo_open / hi_open).
ConfigKey ranged(ConfigKey k, double lo, double hi, bool lo_open = false, bool hi_open = false);

}  // namespace dmlbench::experiments
