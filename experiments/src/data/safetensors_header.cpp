// The safetensors header (huggingface/safetensors' format), every declared size checked against the file.
#include "dmlbench/experiments/safetensors_header.hpp"

#include "dmlbench/experiments/idx_file.hpp"
#include "dmlbench/theory/memory_budget.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <utility>

namespace dmlbench::experiments {

namespace {

using json = nlohmann::ordered_json;

const std::vector<std::pair<std::string, std::size_t>>& element_sizes() {
  static const std::vector<std::pair<std::string, std::size_t>> d = {{"F32", 4}, {"F64", 8}, {"F16", 2}, {"BF16", 2},
                                                                     {"I64", 8}, {"I32", 4}, {"U8", 1},  {"BOOL", 1}};
  return d;
}

SafetensorsEntry parse_entry(const std::string& name, const json& entry, std::uint64_t data_size,
                             const std::string& where) {
  SafetensorsEntry e;
  e.name = name;
  e.dtype = entry.at("dtype").get<std::string>();
  e.shape = entry.at("shape").get<std::vector<std::int64_t>>();
  const auto offsets = entry.at("data_offsets").get<std::vector<std::uint64_t>>();
  std::uint64_t nbytes = safetensors_element_size(e.dtype, where);
  for (auto s : e.shape) {
    if (s < 0) throw data_error(where + ": negative size in its shape");
    try {
      nbytes = theory::checked_product({nbytes, std::uint64_t(s)}, where);
    } catch (const std::invalid_argument& x) {
      throw data_error(x.what());
    }
  }
  if (offsets.size() != 2 || offsets[0] > offsets[1] || offsets[1] - offsets[0] != nbytes || offsets[1] > data_size)
    throw data_error(where + ": data_offsets " + entry.at("data_offsets").dump() + " do not hold " +
                     std::to_string(nbytes) + " bytes within the file's " + std::to_string(data_size) +
                     " data bytes");
  e.begin = offsets[0];
  e.end = offsets[1];
  return e;
}

}  // namespace

std::size_t safetensors_element_size(const std::string& dtype, const std::string& where) {
  std::string all;
  for (const auto& [name, size] : element_sizes()) {
    if (name == dtype) return size;
    all += (all.empty() ? "" : ", ") + name;
  }
  throw data_error(where + ": dtype '" + dtype + "' is not one of " + all);
}

SafetensorsHeader read_safetensors_header(const std::string& path) {
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
  if (!in.read(text.data(), std::streamsize(header_size))) throw data_error(path + ": truncated safetensors header");
  json header;
  try {
    header = json::parse(text);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number beyond double
    throw data_error(path + ": not a safetensors file (header is not JSON: " + e.what() + ")");
  }
  if (!header.is_object()) throw data_error(path + ": not a safetensors file (header is not a JSON object)");
  SafetensorsHeader h;
  h.data_start = 8 + header_size;
  h.data_size = file_size - h.data_start;
  for (const auto& [name, entry] : header.items()) {
    const std::string where = path + ": tensor " + name;
    try {
      if (name == "__metadata__") {
        for (const auto& [k, v] : entry.items()) h.metadata[k] = v.get<std::string>();
        continue;
      }
      h.tensors.push_back(parse_entry(name, entry, h.data_size, where));
    } catch (const json::exception& e) {
      throw data_error(where + ": malformed header entry (" + e.what() + ")");
    }
  }
  return h;
}

}  // namespace dmlbench::experiments
