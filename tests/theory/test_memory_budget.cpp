// The memory budget of declared sizes (theory/memory_budget.hpp).
#include "dmlbench/theory/domain_checks.hpp"
#include "dmlbench/theory/memory_budget.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <limits>

using namespace dmlbench::theory;

namespace {
struct LimitEnv {
  explicit LimitEnv(const char* v) { ::setenv("DMLBENCH_MEMORY_LIMIT", v, 1); }
  ~LimitEnv() { ::unsetenv("DMLBENCH_MEMORY_LIMIT"); }
};
}  // namespace

TEST_CASE("a declared size above the memory limit is refused, naming both", "[memory]") {
  {
    LimitEnv env("1M");
    CHECK(memory_limit_bytes() == 1024 * 1024);
    CHECK_NOTHROW(require_memory(1024.0 * 1024.0, "exactly the limit"));
    CHECK_THROWS_WITH(require_memory(3.0 * 1024 * 1024, "the table"),
                      "the table needs 3 MiB, above the memory limit of 1 MiB (DMLBENCH_MEMORY_LIMIT)");
  }
  {
    LimitEnv env("2.5G");
    CHECK(memory_limit_bytes() == std::uint64_t(2.5 * 1024 * 1024 * 1024));
  }
  for (const char* bad : {"lots", "-1", "0", "12Q", "1e300"}) {
    LimitEnv env(bad);
    CHECK_THROWS_AS(memory_limit_bytes(), domain_error);
  }
  // without the variable: the machine's memory, which no 10^6 x 10^6 table of doubles fits
  CHECK(memory_limit_bytes() > 0);
  CHECK_THROWS_WITH(require_memory(8e12, "n x n"), Catch::Contains("this machine's memory"));
}

TEST_CASE("a product of sizes that would wrap past 2^64 is refused", "[memory]") {
  CHECK(checked_product({4, 1u << 20, 3}, "x") == 12ull << 20);
  CHECK(checked_product({0, std::numeric_limits<std::uint64_t>::max()}, "x") == 0);
  CHECK_THROWS_AS(checked_product({1ull << 32, 1ull << 32}, "tensor w"), domain_error);
  CHECK(byte_size_text(512) == "512 bytes");
  CHECK(byte_size_text(1.5 * 1024 * 1024 * 1024) == "1.5 GiB");
}
