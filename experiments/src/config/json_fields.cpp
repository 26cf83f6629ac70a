#include "dmlbench/experiments/json_fields.hpp"

#include "dmlbench/experiments/nearest_name.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace dmlbench::experiments {

using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

json read_json_file(const std::string& path, const std::string& what) {
  std::ifstream in(path);
  if (!in) throw config_error("cannot read " + what + " " + path);
  try {
    return json::parse(in, nullptr, true, true);
  } catch (const json::exception& e) {
    throw config_error(path + ": not valid JSON (" + e.what() + ")");
  }
}

void check_only_keys(const json& j, const std::vector<std::string>& allowed, const std::string& where) {
  if (!j.is_object()) throw config_error(where + " must be an object");
  for (auto it = j.begin(); it != j.end(); ++it)
    if (std::find(allowed.begin(), allowed.end(), it.key()) == allowed.end()) {
      const auto near = nearest_name(it.key(), allowed);
      throw config_error(where + ": unknown key \"" + it.key() + "\"" +
                         (near.empty() ? "" : " (did you mean \"" + near + "\"?)"));
    }
}

const json& required_field(const json& j, const char* key, const std::string& where) {
  if (!j.contains(key)) throw config_error(where + ": \"" + key + "\" is required");
  return j[key];
}

std::string required_string(const json& j, const char* key, const std::string& where) {
  if (!j.contains(key) || !j[key].is_string()) throw config_error(where + ": \"" + key + "\" (a string) is required");
  return j[key].get<std::string>();
}

std::string path_under(const std::string& path, const std::string& root) {
  return fs::path(path).is_absolute() ? path : (fs::path(root) / path).lexically_normal().string();
}

std::string existing_config_file(const std::string& path, const std::string& root, const std::string& where) {
  const std::string file = path_under(path, root);
  std::error_code ec;  // a name the file system refuses (too long, ...) does not exist either
  if (!fs::exists(file, ec)) throw config_error(where + ": config " + file + " does not exist");
  return file;
}

}  // namespace dmlbench::experiments
