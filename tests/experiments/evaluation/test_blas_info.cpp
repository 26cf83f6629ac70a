#include "dmlbench/experiments/blas_info.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

namespace ex = dmlbench::experiments;

TEST_CASE("blas_info: the names of Debian's BLAS libraries by path", "[experiments][blas]") {
  CHECK(ex::blas_name_of("/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3") == "OpenBLAS");
  CHECK(ex::blas_name_of("/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblasp-r0.3.21.so") == "OpenBLAS");
  CHECK(ex::blas_name_of("/usr/lib/x86_64-linux-gnu/atlas/libblas.so.3.10.3") == "ATLAS");
  CHECK(ex::blas_name_of("/usr/lib/x86_64-linux-gnu/libf77blas.so.3.10.3") == "ATLAS");
  CHECK(ex::blas_name_of("/usr/lib/x86_64-linux-gnu/blas/libblas.so.3.11.0") == "reference BLAS");
  CHECK(ex::blas_name_of("/opt/vendor/libblis.so.4") == "unknown");
}

TEST_CASE("blas_info: LibTorch's sgemm_ binds to a BLAS library on disk, named and described",
          "[experiments][blas]") {
  const auto b = ex::blas_info();
  INFO("path: " << b.path << ", name: " << b.name);
  REQUIRE(!b.path.empty());  // this test binary links LibTorch, which needs libblas.so.3
  CHECK(std::filesystem::is_regular_file(b.path));
  const auto base = std::filesystem::path(b.path).filename().string();
  CHECK((base.find("blas") != std::string::npos || base.find("atlas") != std::string::npos));
  CHECK((b.name == "OpenBLAS" || b.name == "ATLAS" || b.name == "reference BLAS"));
  CHECK(b.name == ex::blas_name_of(b.path));
  CHECK(std::find(b.loaded.begin(), b.loaded.end(), b.path) != b.loaded.end());
  if (b.name == "OpenBLAS") {
    REQUIRE(b.blas_threads.has_value());
    CHECK(*b.blas_threads >= 1);
    CHECK(b.config.rfind("OpenBLAS", 0) == 0);
  } else {
    CHECK(!b.blas_threads.has_value());
  }
  CHECK(b.torch_threads >= 1);
  CHECK(ex::describe_blas().rfind("BLAS: " + b.name + " (" + b.path, 0) == 0);
}
