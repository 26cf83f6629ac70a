// The layers of docs/layout.md, checked on the includes: theory <- sims <- experiments <- apps, no torch/torch.h in
// theory/ or sims/, and inside experiments/src/ the parts in the order of the page's block "layers of
// experiments/src, highest first": a file includes only its own part and the parts below it.
#include "../../support/scratch_dir.hpp"
#include "../../support/text_file.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

const std::string kSource = DMLBENCH_SOURCE_DIR;
const std::string kLayoutDoc = "docs/layout.md";  // the page that holds the block

// The block's parts: part -> rank (the lowest line 0).
std::map<std::string, int> layer_ranks(const std::string& page) {
  const std::string marker = "<!-- layers of experiments/src, highest first -->\n```\n";
  const auto at = page.find(marker);
  if (at == std::string::npos) throw std::runtime_error(kLayoutDoc + " has no block \"layers of experiments/src\"");
  const auto end = page.find("```", at + marker.size());
  std::istringstream in(page.substr(at + marker.size(), end - at - marker.size()));
  std::vector<std::vector<std::string>> lines;
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    lines.emplace_back();
    for (std::string w; words >> w;) lines.back().push_back(w);
  }
  std::map<std::string, int> rank;
  for (std::size_t k = 0; k < lines.size(); ++k)
    for (const auto& part : lines[k]) rank[part] = int(lines.size() - 1 - k);
  return rank;
}

std::vector<std::string> includes_of(const std::string& text, const std::regex& re) {
  std::vector<std::string> out;
  for (std::sregex_iterator it(text.begin(), text.end(), re), end; it != end; ++it) out.push_back((*it)[1]);
  return out;
}

// Every include of experiments/src/<part>/ that reaches a part of a higher rank, or a part on its own line that is
// not itself, as "src/data/a.cpp -> engine (b.hpp)". `root` holds src/ and include/dmlbench/experiments/.
std::vector<std::string> climbing_includes(const fs::path& root, const std::map<std::string, int>& rank) {
  const std::regex pub(R"re(#include "dmlbench/experiments/([^"]+)")re"), rel(R"re(#include "\.\./(\w+)/)re");
  std::map<std::string, std::string> owner;  // header stem -> part holding its .cpp
  for (const auto& part : fs::directory_iterator(root / "src"))
    for (const auto& f : fs::directory_iterator(part.path()))
      if (f.path().extension() == ".cpp") owner[f.path().stem().string()] = part.path().filename().string();
  std::map<std::string, std::set<std::string>> header_parts;  // a public header -> the parts it belongs to
  std::function<std::set<std::string>(const std::string&, int)> parts_of = [&](const std::string& h, int depth) {
    const std::string stem = fs::path(h).stem().string();
    if (owner.count(stem)) return std::set<std::string>{owner[stem]};
    std::set<std::string> out;
    if (depth > 20) return out;
    for (const auto& x : includes_of(slurp(root / "include/dmlbench/experiments" / h), pub))
      for (const auto& p : parts_of(x, depth + 1)) out.insert(p);
    return out;
  };
  std::vector<std::string> bad;
  for (const auto& part : fs::directory_iterator(root / "src")) {
    const std::string me = part.path().filename().string();
    if (!rank.count(me)) {
      bad.push_back("src/" + me + "/: a part the block of " + kLayoutDoc + " does not place");
      continue;
    }
    for (const auto& f : fs::directory_iterator(part.path())) {
      const std::string text = slurp(f.path()), name = "src/" + me + "/" + f.path().filename().string();
      std::vector<std::pair<std::string, std::string>> reached;  // (part, via)
      for (const auto& h : includes_of(text, pub))
        for (const auto& p : parts_of(h, 0)) reached.emplace_back(p, h);
      for (const auto& p : includes_of(text, rel)) reached.emplace_back(p, "../" + p + "/");
      for (const auto& [p, via] : reached)
        if (p != me && (!rank.count(p) || rank.at(p) >= rank.at(me))) bad.push_back(name + " -> " + p + " (" + via + ")");
    }
  }
  return bad;
}

// Files under `dir` (recursively) whose text matches `re`, relative to the source tree.
std::vector<std::string> files_matching(const std::string& dir, const std::regex& re) {
  std::vector<std::string> out;
  for (const auto& f : fs::recursive_directory_iterator(kSource + "/" + dir))
    if (f.is_regular_file() && std::regex_search(slurp(f.path()), re))
      out.push_back(fs::relative(f.path(), kSource).string());
  return out;
}

// The public headers (LIB/include/dmlbench/LIB/*.hpp for theory, sims and experiments under `root`) that no file
// under the `users` folders includes, directly or through other public headers, as "LIB/NAME" (the
// public folder holds what apps/ and the tests use; a header only the library's sources include sits beside them).
std::vector<std::string> unused_public_headers(const fs::path& root, const std::vector<std::string>& users) {
  const std::regex pub(R"re(#include "dmlbench/((?:theory|sims|experiments)/[^"]+)")re");
  const auto header = [&](const std::string& key) {
    const std::string lib = key.substr(0, key.find('/'));
    return root / lib / "include/dmlbench" / key;
  };
  std::set<std::string> reached;
  std::vector<std::string> todo;
  for (const auto& u : users)
    if (fs::exists(root / u))
      for (const auto& f : fs::recursive_directory_iterator(root / u))
        if (f.is_regular_file())
          for (const auto& key : includes_of(slurp(f.path()), pub)) todo.push_back(key);
  while (!todo.empty()) {
    const std::string key = todo.back();
    todo.pop_back();
    if (!reached.insert(key).second || !fs::exists(header(key))) continue;
    for (const auto& next : includes_of(slurp(header(key)), pub)) todo.push_back(next);
  }
  std::vector<std::string> out;
  for (const std::string lib : {"theory", "sims", "experiments"}) {
    const fs::path dir = root / lib / "include/dmlbench" / lib;
    if (!fs::exists(dir)) continue;
    for (const auto& f : fs::directory_iterator(dir))
      if (const std::string key = lib + "/" + f.path().filename().string(); !reached.count(key)) out.push_back(key);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("layers: no include climbs docs/layout.md's order of experiments/src, and theory and sims stay below",
          "[report][layers]") {
  const auto rank = layer_ranks(slurp(kSource + "/" + kLayoutDoc));
  REQUIRE(rank.at("common") == 0);
  REQUIRE(rank.at("losses") > rank.at("engine"));
  const auto bad = climbing_includes(kSource + "/experiments", rank);
  INFO("includes that climb:" << joined(bad));
  CHECK(bad.empty());
  const auto theory_up = files_matching("theory", std::regex(R"(#include [<"](dmlbench/(sims|experiments)/|torch/))"));
  INFO("theory/ including sims, experiments or torch:" << joined(theory_up));
  CHECK(theory_up.empty());
  const auto sims_up = files_matching("sims", std::regex(R"(#include [<"](dmlbench/experiments/|torch/))"));
  INFO("sims/ including experiments or torch:" << joined(sims_up));
  CHECK(sims_up.empty());
  const auto libs_up = files_matching("experiments", std::regex(R"(#include [<"]CLI/|#include "\.\./\.\./apps/)"));
  INFO("experiments/ including command-line code:" << joined(libs_up));
  CHECK(libs_up.empty());
}

// The negative control: a small tree with one include that climbs (data -> engine, through a header whose .cpp
// sits in engine/, and through a header-only one that includes it) and one that descends.
TEST_CASE("layers: the check finds an include that climbs, directly or through a header-only header",
          "[report][layers]") {
  const fs::path root = fs::temp_directory_path() / "dmlbench-test-layers";
  fs::remove_all(root);
  fs::create_directories(root / "src/data");
  fs::create_directories(root / "src/engine");
  fs::create_directories(root / "include/dmlbench/experiments");
  std::ofstream(root / "src/engine/step.cpp") << "#include \"dmlbench/experiments/reader.hpp\"\n";
  std::ofstream(root / "src/data/reader.cpp") << "#include \"dmlbench/experiments/step.hpp\"\n";
  std::ofstream(root / "src/data/other.cpp") << "#include \"dmlbench/experiments/glue.hpp\"\n";
  std::ofstream(root / "include/dmlbench/experiments/glue.hpp") << "#include \"dmlbench/experiments/step.hpp\"\n";
  const std::map<std::string, int> rank = {{"data", 0}, {"engine", 1}};
  auto bad = climbing_includes(root, rank);
  std::sort(bad.begin(), bad.end());
  CHECK(bad == std::vector<std::string>{"src/data/other.cpp -> engine (glue.hpp)",
                                        "src/data/reader.cpp -> engine (step.hpp)"});
  // a part the page does not place is named
  fs::create_directories(root / "src/extra");
  CHECK_THAT(climbing_includes(root, rank),
             Catch::VectorContains("src/extra/: a part the block of " + kLayoutDoc + " does not place"));
  fs::remove_all(root);
  // the block read: highest first
  const auto r = layer_ranks("x\n<!-- layers of experiments/src, highest first -->\n```\ntop\nmid a\nlow\n```\n");
  CHECK(r == std::map<std::string, int>{{"top", 2}, {"mid", 1}, {"a", 1}, {"low", 0}});
  CHECK_THROWS_WITH(layer_ranks("no block"), Catch::Contains("no block \"layers of experiments/src\""));
}

TEST_CASE("layers: every public header is used by apps/, the tests or bench/, directly or through another",
          "[report][layers]") {
  const auto unused = unused_public_headers(kSource, {"apps", "tests", "bench"});
  INFO("public headers only the libraries' own sources include (move them beside those sources):" << joined(unused));
  CHECK(unused.empty());
}

// The negative control: a header reached only through another public header counts as used; one that only a
// library source includes does not.
TEST_CASE("layers: the public-header check names a header only the library's sources include", "[report][layers]") {
  const ScratchDir scratch("dmlbench-test-public-headers");
  const fs::path& root = scratch.dir();
  const fs::path inc = root / "sims/include/dmlbench/sims";
  fs::create_directories(inc);
  fs::create_directories(root / "sims/src");
  fs::create_directories(root / "apps");
  std::ofstream(inc / "used.hpp") << "#include \"dmlbench/sims/through.hpp\"\n";
  std::ofstream(inc / "through.hpp") << "// reached through used.hpp\n";
  std::ofstream(inc / "internal.hpp") << "// only src/ includes it\n";
  std::ofstream(root / "sims/src/a.cpp") << "#include \"dmlbench/sims/internal.hpp\"\n";
  std::ofstream(root / "apps/main.cpp") << "#include \"dmlbench/sims/used.hpp\"\n";
  CHECK(unused_public_headers(root, {"apps", "tests"}) == std::vector<std::string>{"sims/internal.hpp"});
  std::ofstream(root / "apps/more.cpp") << "#include \"dmlbench/sims/internal.hpp\"\n";
  CHECK(unused_public_headers(root, {"apps", "tests"}).empty());
}
