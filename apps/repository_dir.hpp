// The repository a command reads its configs, reproductions and data from, and whose sources the run keys and the
// report's stage hashes are read from.
#pragma once

#include <cstdlib>
#include <string>

namespace dmlbench::app {

// DMLBENCH_SOURCE_DIR in the environment where set (a copy of the checkout this binary was built from: the report
// caching tests edit such a copy to see which stages and runs an edit reaches), else the checkout it was built from.
inline std::string repository_dir() {
  const char* given = std::getenv("DMLBENCH_SOURCE_DIR");
  return given && *given ? std::string(given) : std::string(DMLBENCH_SOURCE_DIR);
}

}  // namespace dmlbench::app
