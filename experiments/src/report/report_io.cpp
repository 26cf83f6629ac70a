// The report builder's reads of whole files: text, and JSON with the path named in a parse error.
#include "dmlbench/experiments/report_io.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace dmlbench::experiments {

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

nlohmann::ordered_json read_json_file(const std::string& path) {
  try {
    return nlohmann::ordered_json::parse(read_text_file(path));
  } catch (const nlohmann::ordered_json::exception& e) {
    throw std::runtime_error(path + ": not valid JSON (" + e.what() + ")");
  }
}

}  // namespace dmlbench::experiments
