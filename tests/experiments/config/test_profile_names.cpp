// The profile names (quick, default, full) in one place: the command line's --profile and a reproduction file's
// "profiles" are checked against the same list.
#include "dmlbench/experiments/reproduction.hpp"
#include "scratch_dir.hpp"

#include <catch2/catch.hpp>

#include <fstream>

using namespace dmlbench::experiments;

TEST_CASE("the profiles are quick, default and full, and another name is one config_error naming the three",
          "[experiments][reproduction]") {
  CHECK(profile_names() == std::vector<std::string>{"quick", "default", "full"});
  for (const auto& p : profile_names()) CHECK_NOTHROW(check_profile_name(p, "--profile"));
  CHECK_THROWS_AS(check_profile_name("fast", "--profile"), config_error);
  CHECK_THROWS_WITH(check_profile_name("fast", "--profile"),
                    "--profile must be quick, default or full, got 'fast'");
  CHECK_THROWS_AS(check_profile_name("Quick", "--profile"), config_error);  // names are case-sensitive
}

TEST_CASE("a reproduction file with a profile of another name is refused, naming the file", "[experiments][reproduction]") {
  ScratchDir d("profile-names");
  auto file = [&](const std::string& profile) {
    std::ofstream(d.path("r.json")) << R"({"id": "t", "stage": "t", "title": "t", "paper": "HTL", "where": "Sec 4",
      "config": "experiments/configs/htl-omniglot-proxy.json", "arms": [{"name": "base", "label": "B", "set": {}}],
      "profiles": {")" << profile << R"(": {"seeds": 2}}, "metrics": []})";
    return d.path("r.json");
  };
  CHECK_NOTHROW(read_reproduction(file("quick"), DMLBENCH_SOURCE_DIR));  // control: the same file, a known profile
  CHECK_THROWS_WITH(read_reproduction(file("smoke"), DMLBENCH_SOURCE_DIR),
                    Catch::Contains("a profile must be quick, default or full, got 'smoke'") &&
                        Catch::Contains(d.path("r.json")));
}
