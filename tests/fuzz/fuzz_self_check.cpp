// The negative control of every harness's rule (fuzz_support.hpp): a reader that leaks a JSON exception, throws
// std::bad_alloc or a two-line error must abort; one that parses or refuses in one line must not. Input: its first
// byte picks the behaviour (j: JSON out_of_range, a: bad_alloc, n: a two-line data_error, r: a one-line refusal).
#include "fuzz_support.hpp"

#include <nlohmann/json.hpp>

#include <new>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const char first = size > 0 ? char(data[0]) : ' ';
  dmlbench::fuzz::expect_parse_or_refusal([&] {
    if (first == 'j') (void)nlohmann::json::object().at("missing");
    if (first == 'a') throw std::bad_alloc();
    if (first == 'n') throw std::runtime_error("first line\nsecond line");
    if (first == 'r') throw dmlbench::experiments::data_error("input: refused, one line");
  });
  return 0;
}
