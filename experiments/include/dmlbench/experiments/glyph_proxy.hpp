// The glyph proxy: a stand-in for Omniglot (Lake et al. 2015; [LCC] Sec 5.2) with its structure, made
// from the letters of 50 writing systems in Debian's fonts-noto-core, each rendered with FreeType many times as
// different "drawers" (font family and weight, random affine, stroke thickening or thinning, elastic distortion),
// binarised and written in Omniglot's layout (read_omniglot reads it). It is a proxy, not Omniglot. Torch-free.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "dmlbench/experiments/image.hpp"

namespace dmlbench::experiments {

// One writing system: its folder name, whether it trains (images_background) or tests (images_evaluation), its font
// files (names under the font folder; drawer d uses font d mod count) and the code points of its letters (character01
// is the first).
struct GlyphScript {
  std::string name;
  bool background = true;
  std::vector<std::string> fonts;
  std::vector<char32_t> letters;
};

// The 50 scripts (30 background and 20 evaluation, the two mixed in the table's order so that each split holds
// alphabetic, abugida and syllabic scripts of several families), each with 14 to 30 letters that all its fonts have.
const std::vector<GlyphScript>& glyph_scripts();
// Where Debian's fonts-noto-core puts the fonts.
const char* noto_font_dir();
// The scripts named (in the table's order, each once); empty: all. An unknown name throws std::invalid_argument
// naming it and the nearest valid one.
std::vector<GlyphScript> select_glyph_scripts(const std::vector<std::string>& names);
// "U+0531"
std::string code_point_name(char32_t c);

struct GlyphProxyConfig {
  std::uint64_t seed = 1;
  int drawers = 20;                  // images per letter (Omniglot: 20 people drew each character)
  int size = 105;                    // image side in pixels (Omniglot: 105)
  int letters_per_script = 0;        // the first N letters of each script; 0: all
  std::vector<std::string> scripts;  // subset by name; empty: all 50
  std::string font_dir = noto_font_dir();
  int threads = 1;  // the bytes written do not depend on it
};
// std::invalid_argument naming the option: drawers 2..99, size 16..1024, letters_per_script >= 0, threads 1..256.
void check_glyph_proxy_config(const GlyphProxyConfig& config);
// What identifies a proxy's bytes (threads left out): the manifest's "config".
nlohmann::json glyph_proxy_config_json(const GlyphProxyConfig& config);

// Renders letters of scripts from their fonts. Keeps the fonts it opened; one per thread (FreeType faces are not
// shared between threads).
class GlyphRenderer {
 public:
  explicit GlyphRenderer(std::string font_dir);
  ~GlyphRenderer();
  GlyphRenderer(const GlyphRenderer&) = delete;
  GlyphRenderer& operator=(const GlyphRenderer&) = delete;

  // Every font file of `script` exists and opens, and has a glyph for every letter. Throws data_error naming the
  // script, the file and (for a missing glyph) the code point; so does a font that draws two letters with one glyph.
  void check_script(const GlyphScript& script);
  // Drawer `drawer` of letter `letter` (an index into script.letters): gray, size x size, ink 0 on 255 as Omniglot's
  // images, deterministic for (seed, script name, code point, drawer). Throws data_error naming the script, the code
  // point and the font file for a missing file, a missing glyph or a glyph that renders empty.
  Image draw(const GlyphScript& script, std::size_t letter, int drawer, std::uint64_t seed, int size);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct GlyphProxySummary {
  bool already_there = false;  // an identical proxy (same config) was there and was kept
  std::size_t scripts = 0, letters = 0, images = 0;
  std::uintmax_t bytes = 0;  // of the image files
};
// Called from the calling thread now and then, with images done and the total.
using GlyphProgress = std::function<void(std::size_t done, std::size_t total)>;

// Writes the proxy under out_dir: images_background/<Script>/characterNN/<id>_<drawer>.png (30 scripts) and
// images_evaluation/... (20), id the letter's 1-based number in the whole table (4 digits), drawer 01..; then
// manifest.json (the config first, then per script its split, fonts, code points and letter count). Written into
// out_dir + ".tmp" and renamed at the end. An out_dir holding a proxy with the same config is kept (already_there);
// any other existing out_dir throws std::invalid_argument unless `force` (then it is replaced).
GlyphProxySummary make_glyph_proxy(const GlyphProxyConfig& config, const std::string& out_dir, bool force,
                                   const GlyphProgress& progress = {});

}  // namespace dmlbench::experiments
