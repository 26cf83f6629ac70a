// The report builder's reads of whole files: text, and JSON with the path named in a parse error.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace dmlbench::experiments {

// Throws std::runtime_error "cannot read PATH" when the file cannot be opened.
std::string read_text_file(const std::string& path);
// Throws std::runtime_error "PATH: not valid JSON (...)" on a parse error.
nlohmann::ordered_json read_json_file(const std::string& path);

}  // namespace dmlbench::experiments
