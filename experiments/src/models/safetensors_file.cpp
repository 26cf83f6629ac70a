#include "dmlbench/experiments/safetensors_file.hpp"

#include "dmlbench/experiments/atomic_file.hpp"
#include "dmlbench/experiments/idx_file.hpp"
#include "dmlbench/experiments/safetensors_header.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "safetensors_file.cpp reads and writes little-endian data in place: a big-endian host needs byte swaps"
#endif

namespace dmlbench::experiments {

namespace {

using json = nlohmann::ordered_json;

const std::vector<std::pair<std::string, torch::ScalarType>>& dtypes() {
  static const std::vector<std::pair<std::string, torch::ScalarType>> d = {
      {"F32", torch::kFloat32}, {"F64", torch::kFloat64}, {"F16", torch::kFloat16}, {"BF16", torch::kBFloat16},
      {"I64", torch::kInt64},   {"I32", torch::kInt32},   {"U8", torch::kUInt8},    {"BOOL", torch::kBool}};
  return d;
}

// dtype names the header reader accepted (read_safetensors_header checks them)
torch::ScalarType parse_dtype(const std::string& s) {
  for (const auto& [name, type] : dtypes())
    if (name == s) return type;
  throw std::logic_error("safetensors dtype " + s + " has no LibTorch type");
}

std::string dtype_name(torch::ScalarType t, const std::string& where) {
  for (const auto& [name, type] : dtypes())
    if (type == t) return name;
  throw std::invalid_argument(where + ": tensors of type " + std::string(c10::toString(t)) + " cannot be written");
}

}  // namespace

const torch::Tensor* NamedTensors::find(const std::string& name) const {
  for (const auto& [n, t] : tensors)
    if (n == name) return &t;
  return nullptr;
}

NamedTensors read_safetensors(const std::string& path) {
  const SafetensorsHeader header = read_safetensors_header(path);  // every size checked against the file
  std::ifstream in(path, std::ios::binary);
  if (!in) throw data_error(path + ": cannot open the weights file");
  NamedTensors out;
  out.metadata = header.metadata;
  for (const auto& e : header.tensors) {
    auto t = torch::empty(e.shape, torch::TensorOptions().dtype(parse_dtype(e.dtype)));
    in.seekg(std::streamoff(header.data_start + e.begin));
    if (!in.read(static_cast<char*>(t.data_ptr()), std::streamsize(e.end - e.begin)))
      throw data_error(path + ": tensor " + e.name + ": truncated data");
    out.tensors.emplace_back(e.name, t);
  }
  return out;
}

void write_safetensors(const std::string& path, const NamedTensors& t) {
  json header = json::object();
  if (!t.metadata.empty()) header["__metadata__"] = t.metadata;
  std::string data;
  for (const auto& [name, tensor] : t.tensors) {
    const auto c = tensor.detach().to(torch::kCPU).contiguous();
    const std::size_t begin = data.size(), nbytes = c.numel() * c.element_size();
    header[name] = {{"dtype", dtype_name(c.scalar_type(), path + ": tensor " + name)},
                    {"shape", c.sizes().vec()},
                    {"data_offsets", {begin, begin + nbytes}}};
    data.append(static_cast<const char*>(c.data_ptr()), nbytes);
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // the data starts 8-byte aligned, as the format recommends
  const std::uint64_t n = text.size();
  std::string bytes(8, '\0');
  std::memcpy(bytes.data(), &n, 8);
  write_file_atomically(path, bytes + text + data);
}

}  // namespace dmlbench::experiments
