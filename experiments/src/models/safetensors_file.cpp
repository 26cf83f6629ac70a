#include "dmlbench/experiments/safetensors_file.hpp"

#include "dmlbench/experiments/atomic_file.hpp"
#include "dmlbench/experiments/idx_file.hpp"

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

torch::ScalarType parse_dtype(const std::string& s, const std::string& where) {
  std::string all;
  for (const auto& [name, type] : dtypes()) {
    if (name == s) return type;
    all += (all.empty() ? "" : ", ") + name;
  }
  throw data_error(where + ": dtype '" + s + "' is not one of " + all);
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
  std::error_code ec;
  const auto file_size = std::filesystem::file_size(path, ec);
  std::ifstream in(path, std::ios::binary);
  if (ec || !in) throw data_error(path + ": cannot open the weights file");
  std::uint64_t header_size = 0;
  if (file_size < 8 || !in.read(reinterpret_cast<char*>(&header_size), 8))
    throw data_error(path + ": not a safetensors file (shorter than its 8-byte header length)");
  if (header_size > file_size - 8 || header_size > (std::uint64_t(1) << 30))
    throw data_error(path + ": not a safetensors file (header length " + std::to_string(header_size) +
                     " exceeds the file's " + std::to_string(file_size) + " bytes)");
  std::string text(header_size, '\0');
  in.read(text.data(), std::streamsize(header_size));
  json header;
  try {
    header = json::parse(text);
  } catch (const json::parse_error& e) {
    throw data_error(path + ": not a safetensors file (header is not JSON: " + e.what() + ")");
  }
  if (!header.is_object()) throw data_error(path + ": not a safetensors file (header is not a JSON object)");
  const std::uint64_t data_start = 8 + header_size, data_size = file_size - data_start;
  NamedTensors out;
  for (const auto& [name, entry] : header.items()) {
    const std::string where = path + ": tensor " + name;
    try {
      if (name == "__metadata__") {
        for (const auto& [k, v] : entry.items()) out.metadata[k] = v.get<std::string>();
        continue;
      }
      const auto type = parse_dtype(entry.at("dtype").get<std::string>(), where);
      const auto shape = entry.at("shape").get<std::vector<std::int64_t>>();
      const auto offsets = entry.at("data_offsets").get<std::vector<std::uint64_t>>();
      std::uint64_t numel = 1;
      for (auto s : shape) {
        if (s < 0) throw data_error(where + ": negative size in its shape");
        numel *= std::uint64_t(s);
      }
      const std::uint64_t nbytes = numel * torch::elementSize(type);
      if (offsets.size() != 2 || offsets[0] > offsets[1] || offsets[1] - offsets[0] != nbytes ||
          offsets[1] > data_size)
        throw data_error(where + ": data_offsets " + entry.at("data_offsets").dump() + " do not hold " +
                         std::to_string(nbytes) + " bytes within the file's " + std::to_string(data_size) +
                         " data bytes");
      auto t = torch::empty(shape, torch::TensorOptions().dtype(type));
      in.seekg(std::streamoff(data_start + offsets[0]));
      if (!in.read(static_cast<char*>(t.data_ptr()), std::streamsize(nbytes)))
        throw data_error(where + ": truncated data");
      out.tensors.emplace_back(name, t);
    } catch (const json::exception& e) {
      throw data_error(where + ": malformed header entry (" + e.what() + ")");
    }
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
