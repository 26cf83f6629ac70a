// What every fuzz harness asks of a reader: an input either parses or is refused with the bench's one-line
// error: a std::runtime_error (data_error and the bench's other refusals) or a std::invalid_argument (config_error,
// theory::domain_error), its message one line. Anything else aborts, and libFuzzer saves the input as a crash: a
// leaked JSON exception (nlohmann's derive from std::exception only), std::bad_alloc, std::length_error,
// std::out_of_range from an .at() the reader did not guard.
#pragma once

#include "dmlbench/experiments/idx_file.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <typeinfo>

namespace dmlbench::fuzz {

// A folder of this process's own (libFuzzer's -jobs workers each get one), in memory where the machine has
// /dev/shm (a file written per input: on disk it took most of each execution), removed when the harness exits.
inline const std::filesystem::path& scratch_dir() {
  static const std::filesystem::path* const dir = [] {  // never destroyed: the exit handler below still reads it
    const char* tmp = std::getenv("TMPDIR");
    std::error_code ec;
    const auto base = std::filesystem::is_directory("/dev/shm", ec) ? std::filesystem::path("/dev/shm")
                                                                    : std::filesystem::path(tmp && *tmp ? tmp : "/tmp");
    auto* d = new std::filesystem::path(base / ("dmlbench-fuzz-" + std::to_string(::getpid())));
    std::filesystem::create_directories(*d);
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(scratch_dir(), ignored);
    });
    return d;
  }();
  return *dir;
}

// Writes the input to scratch_dir()/name and returns its path.
inline std::string input_file(const std::uint8_t* data, std::size_t size, const std::string& name) {
  const auto p = scratch_dir() / name;
  std::filesystem::create_directories(p.parent_path());
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(data), std::streamsize(size));
  f.close();
  if (!f) {
    std::fprintf(stderr, "fuzz harness: cannot write %s\n", p.c_str());
    std::abort();
  }
  return p.string();
}

[[noreturn]] inline void fail(const char* kind, const std::exception& e) {
  std::fprintf(stderr, "fuzz harness: %s escaped the reader (%s): %s\n", kind, typeid(e).name(), e.what());
  std::abort();
}

inline void check_one_line(const std::exception& e) {
  const std::string what = e.what();
  if (what.empty() || what.find('\n') != std::string::npos) fail("an error that is not one line", e);
}

// Runs the reader; refusals must be the bench's own one-line errors.
template <class F>
void expect_parse_or_refusal(F&& read) {
  try {
    read();
  } catch (const std::runtime_error& e) {
    check_one_line(e);
  } catch (const std::invalid_argument& e) {
    check_one_line(e);
  } catch (const std::exception& e) {
    fail("an exception that is not the bench's error", e);
  }
}

}  // namespace dmlbench::fuzz
