// checkpoint.json of a training run, read with every field checked.
#include "dmlbench/experiments/checkpoint_state.hpp"

#include "dmlbench/experiments/idx_file.hpp"  // data_error

#include <fstream>
#include <limits>

namespace dmlbench::experiments {

namespace {

using json = nlohmann::ordered_json;

const json& field(const json& j, const char* key, json::value_t kind, const std::string& path) {
  const auto it = j.find(key);
  if (it == j.end()) throw data_error(path + ": no \"" + key + "\" (not a complete checkpoint)");
  const bool number = kind == json::value_t::number_float;
  const bool ok = number ? it->is_number()
                         : kind == json::value_t::number_integer ? it->is_number_integer() : it->type() == kind;
  if (!ok) throw data_error(path + ": \"" + key + "\" is " + it->type_name() + ", not the checkpoint's kind");
  return *it;
}

json optional_field(const json& j, const char* key, json::value_t kind, const std::string& path) {
  return j.contains(key) ? field(j, key, kind, path) : json(kind);
}

// A number, or null: nlohmann::json writes a NaN as null, and a run's losses are written as they came.
double number_field(const json& j, const char* key, const std::string& path) {
  const auto it = j.find(key);
  if (it != j.end() && it->is_null()) return std::numeric_limits<double>::quiet_NaN();
  return field(j, key, json::value_t::number_float, path).get<double>();
}

template <class T>
T count_field(const json& j, const char* key, const std::string& path) {
  const json& v = field(j, key, json::value_t::number_integer, path);
  if (v.is_number_unsigned() ? v.get<std::uint64_t>() > std::uint64_t(std::numeric_limits<T>::max())
                             : v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > std::numeric_limits<T>::max())
    throw data_error(path + ": \"" + key + "\" " + v.dump() + " is not a count");
  return v.get<T>();
}

}  // namespace

CheckpointState read_checkpoint_state(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw data_error("cannot read the checkpoint " + path);
  CheckpointState s;
  try {
    s.meta = json::parse(in);
  } catch (const json::exception& e) {
    throw data_error(path + ": not valid JSON (" + e.what() + "): a damaged checkpoint");
  }
  if (!s.meta.is_object()) throw data_error(path + ": not a JSON object: a damaged checkpoint");
  using K = json::value_t;
  s.config = field(s.meta, "config", K::object, path);
  s.epochs_done = count_field<int>(s.meta, "epochs_done", path);
  s.steps = count_field<long>(s.meta, "steps", path);
  s.skipped_anchors = count_field<std::int64_t>(s.meta, "skipped_anchors", path);
  s.first_loss = number_field(s.meta, "first_loss", path);
  s.last_loss = number_field(s.meta, "last_loss", path);
  s.triplet_accuracy_before = number_field(s.meta, "triplet_accuracy_before", path);
  s.scatter = field(s.meta, "scatter", K::array, path);
  s.curve = field(s.meta, "curve", K::array, path);
  s.steps_log = optional_field(s.meta, "steps_log", K::array, path);
  s.active_by_epoch = optional_field(s.meta, "active_by_epoch", K::object, path);
  s.movement = optional_field(s.meta, "movement", K::array, path);
  return s;
}

}  // namespace dmlbench::experiments
