// The exact search's candidate scan (candidate_scan.hpp): each build this CPU runs (AVX2, AVX-512) against the
// generic one, key for key and stop for stop, on rows with ties, -0 and +0, NaN, infinities and denormals, the
// query's own column, row lengths around the chunk and vector widths, and thresholds that equal a distance.
#include "dmlbench/experiments/candidate_scan.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <vector>

using namespace dmlbench::experiments;
using Catch::Matchers::Contains;

namespace {

struct Trace {
  std::vector<std::int64_t> stops;    // the column of every return
  std::vector<std::uint64_t> keys;    // every key appended, in order
  bool operator==(const Trace& o) const { return stops == o.stops && keys == o.keys; }
};

// The search's use: calls from where the last stopped; at each stop with n >= limit the keys are taken and n reset.
Trace run(ScanIsa isa, bool euclid, const ScanRow& row, float thr, std::size_t limit) {
  Trace t;
  std::vector<std::uint64_t> keys(limit + std::size_t(kScanChunk));
  std::size_t n = 0;
  for (std::int64_t j = 0; j < row.size;) {
    j = scan_chunks(isa, euclid, row, j, thr, keys.data(), n, limit);
    t.stops.push_back(j);
    if (n >= limit || j >= row.size) {
      t.keys.insert(t.keys.end(), keys.begin(), keys.begin() + std::ptrdiff_t(n));
      n = 0;
    }
  }
  return t;
}

float awkward(std::mt19937_64& rng) {
  const auto u = rng() % 40;
  if (u == 0) return 0.0f;
  if (u == 1) return -0.0f;
  if (u == 2) return std::numeric_limits<float>::quiet_NaN();
  if (u == 3) return std::numeric_limits<float>::infinity();
  if (u == 4) return -std::numeric_limits<float>::infinity();
  if (u == 5) return std::numeric_limits<float>::denorm_min() * float(rng() % 7);
  return float(int(rng() % 33) - 16) / 8.0f;  // a few values: ties everywhere
}

}  // namespace

TEST_CASE("every build of the candidate scan gives the generic build's keys and stops", "[experiments][metrics][knn]") {
  std::mt19937_64 rng(Catch::rngSeed());
  std::vector<ScanIsa> builds;
  for (const auto isa : {ScanIsa::avx2, ScanIsa::avx512})
    if (scan_isa_runs_here(isa)) builds.push_back(isa);
  INFO("builds compared with the generic one here: " << builds.size());
  if (builds.empty()) WARN("this CPU runs only the generic scan: nothing to compare");
  std::int64_t compared = 0, boundary_differs = 0;
  for (const std::int64_t size : {1, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 1000, 2049})
    for (const bool euclid : {false, true}) {
      std::vector<float> s(static_cast<std::size_t>(size)), g(static_cast<std::size_t>(size));
      for (auto& v : s) v = awkward(rng);
      for (auto& v : g) v = std::fabs(awkward(rng));
      const std::int64_t own = rng() % 3 == 0 ? -1 : std::int64_t(rng() % std::uint64_t(size));
      const ScanRow row{s.data(), g.data(), 0.5f, std::uint32_t(rng() % 100000), size, own};
      const float inside = scan_distance(row, euclid, size / 2);  // a threshold equal to a distance of the row
      for (const float thr : {std::numeric_limits<float>::infinity(), inside, 0.0f, -1.0f,
                              std::numeric_limits<float>::quiet_NaN()})
        for (const std::size_t limit : {std::size_t(1), std::size_t(5), std::size_t(40), std::size_t(size) + 1}) {
          INFO("size " << size << " euclid " << euclid << " own " << own << " thr " << thr << " limit " << limit);
          const auto reference = run(ScanIsa::generic, euclid, row, thr, limit);
          for (const auto isa : builds) {
            CHECK(run(isa, euclid, row, thr, limit) == reference);
            ++compared;
          }
          if (limit == std::size_t(size) + 1) {  // one pass: exactly the columns below thr, the own column out
            std::vector<std::uint64_t> want;
            for (std::int64_t j = 0; j < size; ++j)
              if (scan_distance(row, euclid, j) < thr && j != own)
                want.push_back(rank_key(scan_distance(row, euclid, j), row.first + std::uint32_t(j)));
            CHECK(reference.keys == want);
          }
          // negative control: a threshold one float above admits the ties at it, so the boundary is tested
          if (!std::isnan(inside) && thr == inside && std::isfinite(thr))
            boundary_differs += !(run(ScanIsa::generic, euclid, row, std::nextafter(thr, 1e30f), limit) == reference);
        }
    }
  CHECK(compared == std::int64_t(builds.size()) * 15 * 2 * 5 * 4);
  CHECK(boundary_differs > 0);
}

TEST_CASE("rank keys order distances with -0 equal to +0, and give them back", "[experiments][metrics][knn]") {
  CHECK(rank_key(-0.0f, 3) == rank_key(0.0f, 3));
  CHECK(rank_key(-1.0f, 9) < rank_key(-0.5f, 0));
  CHECK(rank_key(0.5f, 9) < rank_key(1.0f, 0));
  CHECK(rank_key(1.0f, 1) < rank_key(1.0f, 2));  // equal distances by row
  CHECK(rank_key(-std::numeric_limits<float>::infinity(), 5) < rank_key(-1e30f, 0));
  for (const float d : {-2.5f, -1e-40f, 0.0f, 3.0f, std::numeric_limits<float>::infinity()})
    CHECK(key_distance(rank_key(d, 7)) == d);
  CHECK_FALSE(std::signbit(key_distance(rank_key(-0.0f, 0))));
}

TEST_CASE("DMLBENCH_SCAN_ISA picks a build, and a bad or absent one is refused", "[experiments][metrics][knn]") {
  ::setenv("DMLBENCH_SCAN_ISA", "generic", 1);
  CHECK(fastest_scan_isa() == ScanIsa::generic);
  ::setenv("DMLBENCH_SCAN_ISA", "sse9", 1);
  CHECK_THROWS_WITH(fastest_scan_isa(), Contains("generic, avx2 or avx512") && Contains("sse9"));
  ::unsetenv("DMLBENCH_SCAN_ISA");
  CHECK(scan_isa_runs_here(fastest_scan_isa()));
  CHECK(scan_isa_runs_here(ScanIsa::generic));
  for (const auto isa : {ScanIsa::avx2, ScanIsa::avx512})
    if (!scan_isa_runs_here(isa)) {
      std::size_t n = 0;
      const float s = 0;
      const ScanRow row{&s, nullptr, 0, 0, 1, -1};
      CHECK_THROWS_WITH(scan_chunks(isa, false, row, 0, 1, nullptr, n, 1), Contains("does not run"));
    }
}
