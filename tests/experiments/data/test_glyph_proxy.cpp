// The glyph proxy of Omniglot (glyph_proxy.hpp): every script of the table renders every letter from every font with
// ink, a seed gives the same bytes (whatever the thread count) and another seed other bytes, read_omniglot reads the
// layout back with the right counts and levels, an existing folder is kept or refused, and every bad input (unknown
// script, missing font file, a code point the font lacks, a blank glyph) is an error naming it.
#include "dmlbench/experiments/glyph_proxy.hpp"
#include "dmlbench/experiments/idx_file.hpp"  // data_error
#include "dmlbench/experiments/image_dataset.hpp"
#include "scratch_dir.hpp"

#include <catch2/catch.hpp>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>

using namespace dmlbench::experiments;
using Catch::Contains;
namespace fs = std::filesystem;

namespace {

std::string bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Relative path -> bytes of every file under dir.
std::map<std::string, std::string> tree_bytes(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out[fs::relative(e.path(), dir).string()] = bytes_of(e.path());
  return out;
}

std::size_t ink(const Image& img) { return std::size_t(std::count(img.pixels.begin(), img.pixels.end(), 0)); }

// One training and one test script, few letters, drawers and pixels: a proxy made in well under a second.
GlyphProxyConfig small_config(std::uint64_t seed, int threads) {
  GlyphProxyConfig c;
  c.seed = seed;
  c.drawers = 4;
  c.size = 40;
  c.letters_per_script = 3;
  c.scripts = {"Tifinagh", "Greek"};
  c.threads = threads;
  return c;
}

}  // namespace

// expr throws an E whose message matches `matcher` (Catch's _WITH alone does not check the type).
#define CHECK_THROWS_NAMING(expr, E, matcher) \
  CHECK_THROWS_AS(expr, E);                   \
  CHECK_THROWS_WITH(expr, matcher)

TEST_CASE("glyph proxy table: 50 scripts, 30 train and 20 test, 14 to 30 distinct letters each",
          "[experiments][data][glyphs]") {
  const auto& table = glyph_scripts();
  REQUIRE(table.size() == 50);
  std::set<std::string> names;
  int background = 0;
  for (const auto& s : table) {
    INFO(s.name);
    names.insert(s.name);
    background += s.background ? 1 : 0;
    CHECK(s.letters.size() >= 14);
    CHECK(s.letters.size() <= 30);
    CHECK(std::set<char32_t>(s.letters.begin(), s.letters.end()).size() == s.letters.size());
    CHECK(!s.fonts.empty());
    CHECK(s.name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_") == std::string::npos);
  }
  CHECK(names.size() == 50);
  CHECK(background == 30);
}

// The font check of the table: each font file is there, has a glyph of its own for every letter, and every drawer
// that uses it draws ink (one drawer per font at 32 x 32, rendered at 64 px: a few seconds for all ~8000 draws).
TEST_CASE("glyph proxy: every script renders every letter with ink from each of its fonts",
          "[experiments][data][glyphs]") {
  GlyphRenderer renderer(noto_font_dir());
  std::size_t draws = 0;
  for (const auto& s : glyph_scripts()) {
    INFO(s.name);
    REQUIRE_NOTHROW(renderer.check_script(s));
    for (std::size_t l = 0; l < s.letters.size(); ++l)
      for (int font = 0; font < int(s.fonts.size()); ++font) {
        const Image img = renderer.draw(s, l, font, 1, 32);  // throws data_error for a blank glyph
        REQUIRE(img.rows == 32);
        REQUIRE(img.channels == 1);
        CHECK(ink(img) > 0);
        ++draws;
      }
  }
  CHECK(draws > 2000);
}

TEST_CASE("glyph proxy: binary images whose ink changes with the drawer and stays inside the image",
          "[experiments][data][glyphs]") {
  GlyphRenderer renderer(noto_font_dir());
  const auto greek = select_glyph_scripts({"Greek"}).at(0);
  const Image a = renderer.draw(greek, 0, 0, 1, 105), b = renderer.draw(greek, 0, 4, 1, 105);  // same font, other draws
  REQUIRE(a.rows == 105);
  REQUIRE(a.cols == 105);
  for (auto v : a.pixels) REQUIRE((v == 0 || v == 255));
  CHECK(a.pixels != b.pixels);
  // Alpha (60% of the side, at most x1.1 and a 6% shift) covers some but not most of the image
  CHECK(ink(a) > 105 * 105 / 50);
  CHECK(ink(a) < 105 * 105 / 2);
  // drawn again: the same bytes (the renderer's glyph cache changes nothing)
  CHECK(renderer.draw(greek, 0, 0, 1, 105).pixels == a.pixels);
}

TEST_CASE("glyph proxy: a seed gives the same bytes for any thread count, another seed other bytes",
          "[experiments][data][glyphs]") {
  ScratchDir tmp("dmlbench-glyphs-seed");
  const auto one = make_glyph_proxy(small_config(7, 1), tmp.path("a"), false);
  make_glyph_proxy(small_config(7, 2), tmp.path("b"), false);
  make_glyph_proxy(small_config(8, 1), tmp.path("c"), false);
  CHECK(one.images == 2 * 3 * 4);
  CHECK(one.bytes > 0);
  const auto a = tree_bytes(tmp.path("a")), b = tree_bytes(tmp.path("b")), c = tree_bytes(tmp.path("c"));
  REQUIRE(a.size() == 2 * 3 * 4 + 1);  // the images and manifest.json
  CHECK(a == b);
  // negative control: seed 8 changes every image (and the manifest's seed), the file names stay
  REQUIRE(c.size() == a.size());
  std::size_t same = 0;
  for (const auto& [path, bytes] : a) {
    REQUIRE(c.count(path) == 1);
    same += c.at(path) == bytes ? 1 : 0;
  }
  CHECK(same == 0);
  CHECK(!fs::exists(tmp.path("a.tmp")));
}

TEST_CASE("glyph proxy: read_omniglot reads the layout back, alphabets and characters in the right split",
          "[experiments][data][glyphs]") {
  ScratchDir tmp("dmlbench-glyphs-layout");
  make_glyph_proxy(small_config(3, 1), tmp.path("proxy"), false);
  const auto d = read_omniglot(tmp.path("proxy"));
  const auto& train = d.split("train");
  const auto& test = d.split("test");
  CHECK(train.level_names == std::vector<std::string>{"alphabet", "character"});
  CHECK(train.size() == 3 * 4);
  CHECK(test.size() == 3 * 4);
  CHECK(train.class_names[0] == std::vector<std::string>{"Greek"});
  CHECK(test.class_names[0] == std::vector<std::string>{"Tifinagh"});
  CHECK(train.class_names[1] ==
        std::vector<std::string>{"Greek/character01", "Greek/character02", "Greek/character03"});
  CHECK(train.num_classes("character") == 3);
  // drawer files of one character in order, named <id>_<drawer>.png with the letter's number in the whole table
  const auto first = fs::path(train.paths[0]).filename().string(),
             fourth = fs::path(train.paths[3]).filename().string();
  CHECK(first.substr(4) == "_01.png");
  CHECK(fourth.substr(4) == "_04.png");
  CHECK(first.substr(0, 4) == fourth.substr(0, 4));
  CHECK(train.labels[1][0] == train.labels[1][3]);
  CHECK(train.labels[1][0] != train.labels[1][4]);
  const Image img = decode_image(train.paths[0], 0);
  CHECK(img.rows == 40);
  CHECK(img.channels == 1);
  CHECK(ink(img) > 0);
}

TEST_CASE("glyph proxy: an identical proxy is kept, another one refused unless forced", "[experiments][data][glyphs]") {
  ScratchDir tmp("dmlbench-glyphs-exists");
  const auto dir = tmp.path("proxy");
  CHECK_FALSE(make_glyph_proxy(small_config(5, 1), dir, false).already_there);
  const auto again = make_glyph_proxy(small_config(5, 2), dir, false);  // threads are not part of the config
  CHECK(again.already_there);
  CHECK(again.bytes > 0);
  CHECK_THROWS_NAMING(make_glyph_proxy(small_config(6, 1), dir, false), std::invalid_argument,
                      Contains(dir) && Contains("--force"));
  const auto before = tree_bytes(dir);
  CHECK_FALSE(make_glyph_proxy(small_config(6, 1), dir, true).already_there);
  CHECK(tree_bytes(dir) != before);
  fs::create_directories(tmp.path("other"));
  std::ofstream(tmp.path("other/notes.txt")) << "not a proxy";
  CHECK_THROWS_NAMING(make_glyph_proxy(small_config(6, 1), tmp.path("other"), false), std::invalid_argument,
                      Contains("no manifest.json"));
}

TEST_CASE("glyph proxy bad input: unknown script, missing font file, missing glyph, blank glyph, bad options",
          "[experiments][data][glyphs]") {
  CHECK_THROWS_NAMING(select_glyph_scripts({"Greek", "Armenain"}), std::invalid_argument,
                      Contains("'Armenain'") && Contains("did you mean 'Armenian'"));
  GlyphRenderer renderer(noto_font_dir());
  const GlyphScript missing_file{"Fake", true, {"NoSuchFont-Regular.ttf"}, {0x41}};
  CHECK_THROWS_NAMING(renderer.check_script(missing_file), data_error,
                      Contains("Fake") && Contains("/usr/share/fonts/truetype/noto/NoSuchFont-Regular.ttf") &&
                          Contains("does not exist"));
  const GlyphScript lacking{"Mixed", true, {"NotoSansGothic-Regular.ttf"}, {0x10330, 0x0531}};
  CHECK_THROWS_NAMING(renderer.check_script(lacking), data_error,
                      Contains("Mixed") && Contains("NotoSansGothic-Regular.ttf") && Contains("U+0531"));
  CHECK_THROWS_NAMING(renderer.draw(lacking, 1, 0, 1, 32), data_error, Contains("U+0531"));
  const GlyphScript blank{"Blank", true, {"NotoSans-Regular.ttf"}, {0x41, 0x20}};
  CHECK_NOTHROW(renderer.check_script(blank));
  CHECK_THROWS_NAMING(renderer.draw(blank, 1, 0, 1, 32), data_error,
                      Contains("Blank") && Contains("U+0020") && Contains("renders empty"));
  const GlyphScript twice{"Twice", true, {"NotoSans-Regular.ttf"}, {0x41, 0x42, 0x41}};
  CHECK_THROWS_NAMING(renderer.check_script(twice), data_error, Contains("U+0041 with the glyph of U+0041"));

  ScratchDir tmp("dmlbench-glyphs-bad");
  auto c = small_config(1, 1);
  c.font_dir = tmp.path("no-fonts");
  CHECK_THROWS_NAMING(make_glyph_proxy(c, tmp.path("proxy"), false), data_error,
                      Contains("no-fonts/NotoSansTifinagh-Regular.ttf") || Contains("no-fonts/NotoSans-Regular.ttf"));
  CHECK(!fs::exists(tmp.path("proxy")));
  CHECK(!fs::exists(tmp.path("proxy.tmp")));
  c = small_config(1, 1);
  c.drawers = 0;
  CHECK_THROWS_NAMING(make_glyph_proxy(c, tmp.path("proxy"), false), std::invalid_argument, Contains("drawers = 0"));
  c.drawers = 1;  // one drawing per letter: nothing to retrieve, and the reader refuses it
  CHECK_THROWS_NAMING(make_glyph_proxy(c, tmp.path("proxy"), false), std::invalid_argument, Contains("drawers = 1"));
  c = small_config(1, 1);
  c.size = 8;
  CHECK_THROWS_NAMING(make_glyph_proxy(c, tmp.path("proxy"), false), std::invalid_argument, Contains("size = 8"));
}
