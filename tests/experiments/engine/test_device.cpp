#include "dmlbench/experiments/device.hpp"

#include <catch2/catch.hpp>

using dmlbench::experiments::resolve_device;

TEST_CASE("device selection: cpu always, auto resolves, unknown values and missing CUDA are clear errors",
          "[experiments][device]") {
  CHECK(resolve_device("cpu") == "cpu");
  const auto a = resolve_device("auto");
  CHECK((a == "cpu" || a == "cuda"));
  CHECK_THROWS_WITH(resolve_device("gpu0"), Catch::Contains("auto, cpu or cuda"));
  if (a == "cpu") CHECK_THROWS_WITH(resolve_device("cuda"), Catch::Contains("no CUDA device"));
  else CHECK(resolve_device("cuda") == "cuda");
}
