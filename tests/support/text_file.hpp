// Helpers the tests share for files and messages: a whole file's bytes, and a list printed one item a line.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

// Every byte of the file at p; throws std::runtime_error naming p when it cannot be opened, so a test that reads a
// file that is not there fails at the read, not at a comparison with "".
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The items, each on its own indented line (what a failing CHECK prints of a list of names).
inline std::string joined(const std::vector<std::string>& items) {
  std::string o;
  for (const auto& s : items) o += "\n  " + s;
  return o;
}
