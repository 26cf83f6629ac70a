#include "dmlbench/experiments/atomic_file.hpp"

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace dmlbench::experiments {

void write_file_atomically(const std::string& path, const std::string& text) {
  const std::filesystem::path p(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp);
    if (!f) throw std::runtime_error("cannot write " + tmp);
    f << text;
    if (!f) throw std::runtime_error("write failed: " + tmp);
  }
  std::filesystem::rename(tmp, p);
}

}  // namespace dmlbench::experiments
