// The first steps of a run as data (`train --trace-steps N`): the starting weights and each step's input batch, so a
// reference written elsewhere (bench/glyph_training_bench.py, PyTorch's Python front end) replays the same steps and
// its losses and parameters can be set beside the run's (train_steps.csv, parameters_<step>.npy).
#include "dmlbench/experiments/atomic_file.hpp"
#include "dmlbench/experiments/npy_file.hpp"
#include "training_run.hpp"

#include <filesystem>

namespace dmlbench::experiments {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

// A tensor as a float32 .npy of rows = its first dimension (1 for a scalar); its shape goes in the index.
json write_tensor(const fs::path& dir, const std::string& name, const torch::Tensor& t) {
  const auto cpu = t.detach().to(torch::kCPU, torch::kFloat32).contiguous();
  const std::int64_t rows = cpu.dim() == 0 ? 1 : cpu.size(0);
  write_npy_float32((dir / (name + ".npy")).string(), cpu.data_ptr<float>(), rows, rows == 0 ? 0 : cpu.numel() / rows);
  return {{"file", name + ".npy"}, {"shape", cpu.sizes().vec()}};
}

}  // namespace

void write_trace_start(const RunConfig& c, TrainingSetup& s, const std::string& out_dir) {
  const fs::path dir = fs::path(out_dir) / "trace";
  fs::create_directories(dir);
  json weights = json::object();
  for (const auto& kv : s.model->module().named_parameters()) weights[kv.key()] = write_tensor(dir, kv.key(), kv.value());
  for (const auto& kv : s.model->module().named_buffers())
    if (kv.value().is_floating_point()) weights[kv.key()] = write_tensor(dir, kv.key(), kv.value());
  const json index = {{"config", c.resolved}, {"weights", weights}};
  write_file_atomically((dir / "trace.json").string(), index.dump(2) + "\n");
}

void write_trace_batch(TrainingSetup& s, long step, const std::vector<std::int64_t>& batch, const torch::Tensor& x,
                       const std::string& out_dir) {
  const fs::path dir = fs::path(out_dir) / "trace";
  const auto labels = s.train_y.index({torch::tensor(batch, torch::kInt64)}).contiguous();
  const auto* y = labels.data_ptr<std::int64_t>();
  json b = {{"step", step + 1}, {"items", batch}, {"labels", std::vector<std::int64_t>(y, y + labels.numel())}};
  b["images"] = write_tensor(dir, "batch_" + std::to_string(step + 1), x);
  write_file_atomically((dir / ("batch_" + std::to_string(step + 1) + ".json")).string(), b.dump() + "\n");
}

void write_trace_update(TrainingSetup& s, long step, const std::string& out_dir) {
  std::vector<torch::Tensor> flat;
  for (const auto& t : s.model->module().parameters()) flat.push_back(t.detach().flatten());
  write_tensor(fs::path(out_dir) / "trace", "parameters_" + std::to_string(step + 1), torch::cat(flat).unsqueeze(0));
}

}  // namespace dmlbench::experiments
