// Reading the project's JSON files (sweep grids, reproductions): the file with its comments, only the keys allowed,
// required fields by name, paths under the repository; each error a config_error that names the file and the key.
// Torch-free.
#pragma once

#include "dmlbench/experiments/config_key.hpp"  // config_error

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace dmlbench::experiments {

// The JSON of file `path`, comments allowed. Throws config_error "cannot read <what> <path>" (what: e.g. "the grid
// file") or "<path>: not valid JSON (...)".
nlohmann::ordered_json read_json_file(const std::string& path, const std::string& what);
// Throws config_error naming an unknown key of object j (and the nearest allowed one).
void check_only_keys(const nlohmann::ordered_json& j, const std::vector<std::string>& allowed,
                     const std::string& where);
// j[key]; throws config_error "<where>: \"<key>\" is required" when j has none.
const nlohmann::ordered_json& required_field(const nlohmann::ordered_json& j, const char* key,
                                             const std::string& where);
// j[key] as a string; throws config_error "<where>: \"<key>\" (a string) is required" unless j has a string there.
std::string required_string(const nlohmann::ordered_json& j, const char* key, const std::string& where);
// `path` as it is when absolute, else under `root` (lexically normal).
std::string path_under(const std::string& path, const std::string& root);
// A run config file named by `where`: path_under(path, root), which must exist (config_error
// "<where>: config <file> does not exist").
std::string existing_config_file(const std::string& path, const std::string& root, const std::string& where);

}  // namespace dmlbench::experiments
