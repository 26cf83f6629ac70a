// The memory budget of declared sizes: DMLBENCH_MEMORY_LIMIT or the physical memory.
#include "dmlbench/theory/memory_budget.hpp"

#include "dmlbench/theory/domain_checks.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <limits>

namespace dmlbench::theory {

namespace {

std::uint64_t physical_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return std::numeric_limits<std::uint64_t>::max();  // unknown: no limit of our own
  return std::uint64_t(pages) * std::uint64_t(page);
}

std::uint64_t parse_limit(const std::string& text) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  double unit = 1;
  if (used > 0 && used + 1 == text.size()) {
    const std::string units = "KMGT";
    const auto at = units.find(char(std::toupper(static_cast<unsigned char>(text.back()))));
    if (at == std::string::npos) used = 0;
    for (std::size_t i = 0; at != std::string::npos && i <= at; ++i) unit *= 1024;
  } else if (used != text.size()) {
    used = 0;
  }
  if (used == 0 || !(v > 0) || !(v * unit < 1.8e19))
    throw domain_error("DMLBENCH_MEMORY_LIMIT must be a positive number of bytes (a K, M, G or T suffix allowed), got '" +
                       text + "'");
  return std::uint64_t(v * unit);
}

}  // namespace

std::uint64_t memory_limit_bytes() {
  const char* env = std::getenv("DMLBENCH_MEMORY_LIMIT");
  return env && *env ? parse_limit(env) : physical_memory();
}

std::string byte_size_text(double bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024 && u < 6) {
    bytes /= 1024;
    ++u;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.3g %s", bytes, units[u]);
  return buf;
}

void require_memory(double bytes, const std::string& what) {
  const char* env = std::getenv("DMLBENCH_MEMORY_LIMIT");
  const std::uint64_t limit = memory_limit_bytes();
  if (!(bytes <= double(limit)))
    throw domain_error(what + " needs " + byte_size_text(bytes) + ", above the memory limit of " +
                       byte_size_text(double(limit)) +
                       (env && *env ? " (DMLBENCH_MEMORY_LIMIT)" : " (this machine's memory; DMLBENCH_MEMORY_LIMIT sets another)"));
}

std::uint64_t checked_product(std::initializer_list<std::uint64_t> sizes, const std::string& what) {
  std::uint64_t p = 1;
  for (const auto s : sizes) {
    if (s != 0 && p > std::numeric_limits<std::uint64_t>::max() / s)
      throw domain_error(what + ": the sizes' product exceeds 2^64 bytes");
    p *= s;
  }
  return p;
}

}  // namespace dmlbench::theory
