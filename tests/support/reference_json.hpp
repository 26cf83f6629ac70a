// The JSON references a ctest fixture computes at test time (tests/reference/*_reference.py), read from the file named
// by an environment variable that the fixture's tests get (dmlbench_reference_tests in tests/CMakeLists.txt).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>

// Throws std::runtime_error naming the variable when it is not set (a test run outside ctest), or the file when it
// cannot be read.
inline nlohmann::json read_reference_json(const std::string& variable) {
  const char* path = std::getenv(variable.c_str());
  if (!path) throw std::runtime_error(variable + " is not set (the ctest fixture sets it)");
  std::ifstream in(path);
  if (!in) throw std::runtime_error(std::string("cannot read the reference file ") + path);
  return nlohmann::json::parse(in);
}
