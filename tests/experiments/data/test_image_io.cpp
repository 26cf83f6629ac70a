#include "dmlbench/experiments/idx_file.hpp"
#include "dmlbench/experiments/image.hpp"
#include "dmlbench/experiments/image_loader.hpp"
#include "dmlbench/experiments/image_transforms.hpp"

#include "scratch_dir.hpp"
#include "../../support/text_file.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <zlib.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <set>

using namespace dmlbench::experiments;
namespace fs = std::filesystem;

namespace {

std::string spit(const fs::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
  return p.string();
}

Image image_of(int rows, int cols, int channels, std::vector<int> values) {
  Image im{rows, cols, channels, {}};
  for (int v : values) im.pixels.push_back(std::uint8_t(v));
  REQUIRE(im.pixels.size() == std::size_t(rows * cols * channels));
  return im;
}

Image random_image(int rows, int cols, int channels, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Image im{rows, cols, channels, std::vector<std::uint8_t>(std::size_t(rows * cols * channels))};
  for (auto& p : im.pixels) p = std::uint8_t(rng() & 0xff);
  return im;
}

// A smooth photo-like image (slow sines and a ramp): what JPEG is made for.
Image smooth_image(int rows, int cols, int channels) {
  Image im{rows, cols, channels, {}};
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const double v[3] = {128 + 100 * std::sin(r / 7.0) * std::cos(c / 11.0), 128 + 90 * std::cos((r + c) / 13.0),
                           double((r * 255 / (rows - 1) + c) / 2)};
      for (int k = 0; k < channels; ++k) im.pixels.push_back(std::uint8_t(std::lround(std::clamp(v[k], 0.0, 255.0))));
    }
  return im;
}

double mean_abs_error(const Image& a, const Image& b) {
  REQUIRE(a.pixels.size() == b.pixels.size());
  double s = 0;
  for (std::size_t i = 0; i < a.pixels.size(); ++i) s += std::abs(int(a.pixels[i]) - int(b.pixels[i]));
  return s / double(a.pixels.size());
}

// ---- a PNG encoder written from the specification (RFC 2083) with zlib, independent of libpng: the decoder's
// bit depths, colour types and palettes are checked against bytes made here.
void put32(std::string& s, std::uint32_t v) {
  for (int k = 3; k >= 0; --k) s.push_back(char((v >> (8 * k)) & 0xff));
}

std::string png_chunk(const std::string& type, const std::string& data) {
  std::string out;
  put32(out, std::uint32_t(data.size()));
  const std::string body = type + data;
  out += body;
  put32(out, std::uint32_t(crc32(0, reinterpret_cast<const Bytef*>(body.data()), uInt(body.size()))));
  return out;
}

// rows: the packed samples of each scanline (no filter byte), for an interlaced image those of each Adam7 pass in
// turn; extra: chunks between IHDR and IDAT (PLTE, tRNS).
std::string make_png(std::uint32_t width, std::uint32_t height, int depth, int color_type,
                     const std::vector<std::string>& rows, const std::string& extra = "", bool interlaced = false) {
  std::string ihdr;
  put32(ihdr, width);
  put32(ihdr, height);
  ihdr += std::string{char(depth), char(color_type), 0, 0, char(interlaced ? 1 : 0)};
  std::string raw;
  for (const auto& r : rows) raw += '\0' + r;  // filter type 0 (none)
  uLongf n = compressBound(uLong(raw.size()));
  std::string z(n, '\0');
  REQUIRE(compress(reinterpret_cast<Bytef*>(z.data()), &n, reinterpret_cast<const Bytef*>(raw.data()),
                   uLong(raw.size())) == Z_OK);
  z.resize(n);
  return std::string("\x89PNG\r\n\x1a\n", 8) + png_chunk("IHDR", ihdr) + extra + png_chunk("IDAT", z) +
         png_chunk("IEND", "");
}

std::string bytes(std::initializer_list<int> v) {
  std::string s;
  for (int x : v) s.push_back(char(x));
  return s;
}

Image decode_bytes(const std::string& b, int channels) {
  return decode_image(reinterpret_cast<const std::uint8_t*>(b.data()), b.size(), "memory.png", channels);
}

std::vector<int> pixels_of(const Image& im) { return {im.pixels.begin(), im.pixels.end()}; }

// The expression throws a data_error whose message contains `fragment` (the file's name).
#define CHECK_DATA_ERROR(expr, fragment)                                                                    \
  CHECK_THROWS_MATCHES(expr, data_error,                                                                    \
                       Catch::Matchers::Predicate<data_error>(                                              \
                           [&](const data_error& e) { return std::string(e.what()).find(fragment) != std::string::npos; }, \
                           std::string("a data_error naming ") + (fragment)))

// 8 x 16 CMYK JPEG (quality 100, no subsampling) as PIL 9.4 writes it (Adobe marker, inverted samples): left half
// C, M, Y, K = 0, 255, 255, 0, right half 200, 50, 0, 60. PIL reads it as RGB (255, 0, 0) and (42, 157, 195).
const unsigned char kCmykJpeg[] = {
    0xff, 0xd8, 0xff, 0xee, 0x00, 0x0e, 0x41, 0x64, 0x6f, 0x62, 0x65, 0x00, 0x64, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff,
    0xdb, 0x00, 0x43, 0x00, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01,
    0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01,
    0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01,
    0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0xff, 0xc0, 0x00, 0x14, 0x08, 0x00, 0x08, 0x00,
    0x10, 0x04, 0x43, 0x11, 0x00, 0x4d, 0x11, 0x00, 0x59, 0x11, 0x00, 0x4b, 0x11, 0x00, 0xff, 0xc4, 0x00, 0x1f, 0x00,
    0x00, 0x01, 0x05, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02,
    0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0xff, 0xc4, 0x00, 0xb5, 0x10, 0x00, 0x02, 0x01, 0x03, 0x03,
    0x02, 0x04, 0x03, 0x05, 0x05, 0x04, 0x04, 0x00, 0x00, 0x01, 0x7d, 0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12,
    0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07, 0x22, 0x71, 0x14, 0x32, 0x81, 0x91, 0xa1, 0x08, 0x23, 0x42, 0xb1,
    0xc1, 0x15, 0x52, 0xd1, 0xf0, 0x24, 0x33, 0x62, 0x72, 0x82, 0x09, 0x0a, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x25, 0x26,
    0x27, 0x28, 0x29, 0x2a, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a,
    0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75,
    0x76, 0x77, 0x78, 0x79, 0x7a, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97,
    0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8,
    0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9,
    0xda, 0xe1, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8,
    0xf9, 0xfa, 0xff, 0xda, 0x00, 0x0e, 0x04, 0x43, 0x00, 0x4d, 0x00, 0x59, 0x00, 0x4b, 0x00, 0x00, 0x3f, 0x00, 0xfe,
    0xfe, 0x2b, 0xfc, 0xff, 0x00, 0xeb, 0xfc, 0xff, 0x00, 0xeb, 0xfb, 0xf8, 0xaf, 0xf1, 0xbf, 0xaf, 0xf6, 0x68, 0xaf,
    0xf7, 0xf8, 0xaf, 0xc1, 0xfa, 0xff, 0xd9};

}  // namespace

// ---------------------------------------------------------------------------------------------------------- decode

TEST_CASE("image io: PNG round trip is exact for 1 to 4 channels", "[experiments][image]") {
  const ScratchDir scratch_dir("dmlbench-test-image-png-roundtrip");
  const auto& dir = scratch_dir.dir();
  for (int channels = 1; channels <= 4; ++channels) {
    const Image im = random_image(13, 17, channels, std::uint64_t(channels));
    const auto path = (dir / ("im" + std::to_string(channels) + ".png")).string();
    write_png(path, im);
    const Image back = decode_image(path, 0);
    CHECK(back.rows == 13);
    CHECK(back.cols == 17);
    CHECK(back.channels == channels);
    CHECK(back.pixels == im.pixels);
  }
  // negative control: the comparison sees a one-byte difference
  const Image a = random_image(3, 3, 1, 7);
  Image b = a;
  b.pixels[4] ^= 1;
  write_png((dir / "b.png").string(), b);
  CHECK(decode_image((dir / "b.png").string(), 0).pixels != a.pixels);
  CHECK_FALSE(fs::exists(dir / "b.png.tmp"));  // written through a temporary file and a rename
  fs::remove_all(dir);
}

TEST_CASE("image io: PNG bit depths, palettes and gray + alpha decode to 8-bit as PIL reads them",
          "[experiments][image]") {
  // 16-bit RGB: the high byte of each sample
  const Image rgb16 = decode_bytes(make_png(2, 1, 16, 2, {bytes({0x12, 0x34, 0xab, 0xcd, 0xff, 0xff,  //
                                                                  0x00, 0xff, 0x01, 0x00, 0x80, 0x00})}),
                                   0);
  CHECK(rgb16.channels == 3);
  CHECK(pixels_of(rgb16) == std::vector<int>{0x12, 0xab, 0xff, 0x00, 0x01, 0x80});
  // 16-bit gray
  CHECK(pixels_of(decode_bytes(make_png(1, 1, 16, 0, {bytes({0xab, 0xcd})}), 0)) == std::vector<int>{0xab});
  // 1-bit and 4-bit gray scale to 0..255 (4-bit v -> 17 v)
  const Image g1 = decode_bytes(make_png(8, 1, 1, 0, {bytes({0xb0})}), 0);
  CHECK(pixels_of(g1) == std::vector<int>{255, 0, 255, 255, 0, 0, 0, 0});
  CHECK(pixels_of(decode_bytes(make_png(2, 1, 4, 0, {bytes({0x5f})}), 0)) == std::vector<int>{85, 255});
  // a 2-bit palette: indices 3, 2, 1, 0 packed in one byte
  const std::string plte = png_chunk("PLTE", bytes({10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120}));
  const Image pal = decode_bytes(make_png(4, 1, 2, 3, {bytes({0xe4})}, plte), 0);
  CHECK(pal.channels == 3);
  CHECK(pixels_of(pal) == std::vector<int>{100, 110, 120, 70, 80, 90, 40, 50, 60, 10, 20, 30});
  // ... with transparency for entries 0 and 1: RGBA as stored, alpha dropped for RGB
  const std::string trns = png_chunk("tRNS", bytes({0, 128}));
  const Image pala = decode_bytes(make_png(4, 1, 2, 3, {bytes({0xe4})}, plte + trns), 0);
  CHECK(pala.channels == 4);
  CHECK(pixels_of(pala) == std::vector<int>{100, 110, 120, 255, 70, 80, 90, 255, 40, 50, 60, 128, 10, 20, 30, 0});
  CHECK(pixels_of(decode_bytes(make_png(4, 1, 2, 3, {bytes({0xe4})}, plte + trns), 3)) == pixels_of(pal));
  // gray + alpha, 8-bit, in each channel count
  const std::string ga = make_png(2, 1, 8, 4, {bytes({10, 200, 30, 40})});
  CHECK(decode_bytes(ga, 0).channels == 2);
  CHECK(pixels_of(decode_bytes(ga, 0)) == std::vector<int>{10, 200, 30, 40});
  CHECK(pixels_of(decode_bytes(ga, 1)) == std::vector<int>{10, 30});
  CHECK(pixels_of(decode_bytes(ga, 3)) == std::vector<int>{10, 10, 10, 30, 30, 30});
  // two rows: rows are not mixed up
  CHECK(pixels_of(decode_bytes(make_png(1, 2, 8, 0, {bytes({7}), bytes({9})}), 0)) == std::vector<int>{7, 9});
  // Adam7 interlacing of a 2 x 2 gray image: pass 1 holds pixel (0, 0), pass 6 (0, 1), pass 7 row 1; 2-5 are empty
  const std::string adam7 = make_png(2, 2, 8, 0, {bytes({11}), bytes({22}), bytes({33, 44})}, "", true);
  CHECK(pixels_of(decode_bytes(adam7, 0)) == std::vector<int>{11, 22, 33, 44});
}

TEST_CASE("image io: JPEG round trip at quality 95 is within a mean absolute error of 2", "[experiments][image]") {
  const ScratchDir scratch_dir("dmlbench-test-image-jpeg-roundtrip");
  const auto& dir = scratch_dir.dir();
  // Quality 95 quantises the low frequencies of a smooth image by 1-2 levels, and 4:2:0 chroma halves the colour
  // resolution: PIL (the same libjpeg-turbo) gives a mean error of 1.00 on this RGB image and 0.26 on its gray
  // channel. Bound 2: twice that, far below the ~85 of an unrelated image (the negative control).
  const Image rgb = smooth_image(48, 64, 3), gray = smooth_image(48, 64, 1);
  write_jpeg((dir / "rgb.jpg").string(), rgb, 95);
  write_jpeg((dir / "gray.jpg").string(), gray, 95);
  const Image rgb_back = decode_image((dir / "rgb.jpg").string(), 0);
  const Image gray_back = decode_image((dir / "gray.jpg").string(), 0);
  REQUIRE(rgb_back.channels == 3);
  REQUIRE(gray_back.channels == 1);
  CHECK(rgb_back.rows == 48);
  CHECK(rgb_back.cols == 64);
  CHECK(mean_abs_error(rgb_back, rgb) < 2.0);
  CHECK(mean_abs_error(gray_back, gray) < 2.0);
  CHECK(mean_abs_error(rgb_back, random_image(48, 64, 3, 1)) > 2.0);  // negative control
  // quality matters: quality 5 is far coarser
  write_jpeg((dir / "q5.jpg").string(), rgb, 5);
  CHECK(mean_abs_error(decode_image((dir / "q5.jpg").string(), 0), rgb) > mean_abs_error(rgb_back, rgb));
  fs::remove_all(dir);
}

TEST_CASE("image io: a CMYK JPEG with Adobe's inverted samples converts to RGB as PIL does", "[experiments][image]") {
  const Image im = decode_image(kCmykJpeg, sizeof kCmykJpeg, "cmyk.jpg", 0);
  REQUIRE(im.channels == 3);
  REQUIRE(im.rows == 8);
  REQUIRE(im.cols == 16);
  // PIL: (255, 0, 0) and (42, 157, 195). Quality 100 on flat 8 x 8 blocks leaves at most 1 level of error.
  for (int c : {0, 7}) {
    CHECK(std::abs(int(im.pixels[std::size_t(3 * c)]) - 255) <= 1);
    CHECK(int(im.pixels[std::size_t(3 * c + 1)]) <= 1);
    CHECK(int(im.pixels[std::size_t(3 * c + 2)]) <= 1);
  }
  for (int c : {8, 15}) {
    CHECK(std::abs(int(im.pixels[std::size_t(3 * c)]) - 42) <= 1);
    CHECK(std::abs(int(im.pixels[std::size_t(3 * c + 1)]) - 157) <= 1);
    CHECK(std::abs(int(im.pixels[std::size_t(3 * c + 2)]) - 195) <= 1);
  }
}

TEST_CASE("image io: gray and RGB conversions against hand values", "[experiments][image]") {
  // ITU-R 601 luma in PIL's fixed point: (19595 R + 38470 G + 7471 B + 32768) >> 16. Exact values 76.245, 149.685,
  // 29.07, 18.15 and 254.97 (white stays 255).
  const Image rgb = image_of(1, 5, 3, {255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 20, 30, 255, 255, 255});
  CHECK(pixels_of(convert_channels(rgb, 1)) == std::vector<int>{76, 150, 29, 18, 255});
  const Image rgba = image_of(1, 2, 4, {255, 0, 0, 9, 10, 20, 30, 200});
  CHECK(pixels_of(convert_channels(rgba, 1)) == std::vector<int>{76, 18});  // alpha ignored, as PIL's RGBA -> L
  CHECK(pixels_of(convert_channels(rgba, 3)) == std::vector<int>{255, 0, 0, 10, 20, 30});
  CHECK(pixels_of(convert_channels(image_of(1, 2, 1, {7, 250}), 3)) == std::vector<int>{7, 7, 7, 250, 250, 250});
  CHECK(pixels_of(convert_channels(rgb, 3)) == pixels_of(rgb));
  CHECK_THROWS_AS(convert_channels(rgb, 2), std::invalid_argument);
  // through the decoder, from a file
  const ScratchDir scratch_dir("dmlbench-test-image-convert");
  const auto& dir = scratch_dir.dir();
  write_png((dir / "rgb.png").string(), rgb);
  CHECK(pixels_of(decode_image((dir / "rgb.png").string(), 1)) == std::vector<int>{76, 150, 29, 18, 255});
  CHECK_THROWS_AS(decode_image((dir / "rgb.png").string(), 4), std::invalid_argument);
  fs::remove_all(dir);
}

TEST_CASE("image io: broken, truncated and non-image files are data errors naming the file", "[experiments][image]") {
  const ScratchDir scratch_dir("dmlbench-test-image-broken");
  const auto& dir = scratch_dir.dir();
  const Image im = smooth_image(40, 50, 3);
  write_png((dir / "good.png").string(), im);
  write_jpeg((dir / "good.jpg").string(), im, 90);
  const std::string png = slurp(dir / "good.png"), jpg = slurp(dir / "good.jpg");
  REQUIRE(decode_image((dir / "good.png").string(), 3).pixels == im.pixels);  // the intact files decode
  REQUIRE_NOTHROW(decode_image((dir / "good.jpg").string(), 3));

  const auto cut_png = spit(dir / "cut.png", png.substr(0, png.size() / 2));
  CHECK_DATA_ERROR(decode_image(cut_png, 0), cut_png);
  const auto no_iend = spit(dir / "no_iend.png", png.substr(0, png.size() - 12));  // image data whole, IEND missing
  CHECK_DATA_ERROR(decode_image(no_iend, 0), no_iend);
  const auto cut_jpg = spit(dir / "cut.jpg", jpg.substr(0, jpg.size() / 2));  // libjpeg alone would fill in grey
  CHECK_DATA_ERROR(decode_image(cut_jpg, 0), cut_jpg);
  CHECK_THROWS_WITH(decode_image(cut_jpg, 0), Catch::Contains("Premature end"));
  const auto no_eoi = spit(dir / "no_eoi.jpg", jpg.substr(0, jpg.size() - 2));
  CHECK_DATA_ERROR(decode_image(no_eoi, 0), no_eoi);

  std::string bad_ihdr = png;
  bad_ihdr[18] = char(0x7f);  // the width's second byte: the IHDR CRC no longer matches
  const auto header_png = spit(dir / "header.png", bad_ihdr);
  CHECK_DATA_ERROR(decode_image(header_png, 0), header_png);
  std::string bad_jpg = jpg;
  for (std::size_t i = 2; i < 40; ++i) bad_jpg[i] = char(0x55);  // the segments after SOI become garbage
  const auto header_jpg = spit(dir / "header.jpg", bad_jpg);
  CHECK_DATA_ERROR(decode_image(header_jpg, 0), header_jpg);

  const auto empty = spit(dir / "empty.png", "");
  CHECK_DATA_ERROR(decode_image(empty, 0), empty);
  const auto text = spit(dir / "text.png", "this is not an image\n");
  CHECK_DATA_ERROR(decode_image(text, 0), text);
  CHECK_THROWS_WITH(decode_image(text, 0), Catch::Contains("not a PNG or JPEG"));
  const auto missing = (dir / "missing.png").string();
  CHECK_DATA_ERROR(decode_image(missing, 0), missing);
  CHECK_DATA_ERROR(decode_image(dir.string(), 0), dir.string());  // a folder

  // a header asking for 100000 x 100000 RGB (30 GB) is refused before any allocation
  std::string huge_ihdr;
  put32(huge_ihdr, 100000);
  put32(huge_ihdr, 100000);
  huge_ihdr += bytes({8, 2, 0, 0, 0});
  const auto huge = spit(dir / "huge.png", std::string("\x89PNG\r\n\x1a\n", 8) + png_chunk("IHDR", huge_ihdr) +
                                               png_chunk("IDAT", "x") + png_chunk("IEND", ""));
  CHECK_DATA_ERROR(decode_image(huge, 0), huge);
  fs::remove_all(dir);
}

TEST_CASE("image io: every truncation is a data error and flipped bytes never crash", "[experiments][image]") {
  const ScratchDir scratch_dir("dmlbench-test-image-fuzz");
  const auto& dir = scratch_dir.dir();
  const Image im = smooth_image(16, 24, 3);
  write_png((dir / "a.png").string(), im);
  write_jpeg((dir / "a.jpg").string(), im, 90);
  std::mt19937_64 rng(Catch::rngSeed());
  for (const auto* name : {"a.png", "a.jpg"}) {
    const std::string whole = slurp(dir / name);
    REQUIRE_NOTHROW(decode_bytes(whole, 3));  // control: the whole file decodes
    int truncations_refused = 0;
    for (std::size_t n = 0; n < whole.size(); ++n) {
      try {
        decode_bytes(whole.substr(0, n), 3);
      } catch (const data_error&) {
        ++truncations_refused;
      }
    }
    CHECK(truncations_refused == int(whole.size()));  // no prefix passes for an image
    // one to three bytes changed at random: a data_error or an image of the right size, nothing else
    int decoded = 0, refused = 0;
    for (int trial = 0; trial < 500; ++trial) {
      std::string b = whole;
      for (int k = 0, flips = 1 + int(rng() % 3); k < flips; ++k) b[rng() % b.size()] = char(rng() & 0xff);
      try {
        const Image out = decode_bytes(b, 3);
        CHECK(out.pixels.size() == std::size_t(out.rows) * std::size_t(out.cols) * 3);
        ++decoded;
      } catch (const data_error&) {
        ++refused;
      }
    }
    CHECK(decoded + refused == 500);
    CHECK(refused > 0);
  }
  fs::remove_all(dir);
}

TEST_CASE("image io: writers reject malformed images and bad qualities", "[experiments][image]") {
  const ScratchDir scratch_dir("dmlbench-test-image-writers");
  const auto& dir = scratch_dir.dir();
  const Image ok = image_of(1, 2, 3, {1, 2, 3, 4, 5, 6});
  Image short_pixels = ok;
  short_pixels.pixels.pop_back();
  CHECK_THROWS_AS(write_png((dir / "a.png").string(), short_pixels), std::invalid_argument);
  CHECK_THROWS_AS(write_png((dir / "a.png").string(), Image{}), std::invalid_argument);
  CHECK_THROWS_AS(write_jpeg((dir / "a.jpg").string(), ok, 0), std::invalid_argument);
  CHECK_THROWS_AS(write_jpeg((dir / "a.jpg").string(), ok, 101), std::invalid_argument);
  CHECK_THROWS_AS(write_jpeg((dir / "a.jpg").string(), image_of(1, 1, 4, {1, 2, 3, 4}), 90), std::invalid_argument);
  CHECK_FALSE(fs::exists(dir / "a.png"));
  CHECK_FALSE(fs::exists(dir / "a.jpg"));
  CHECK_NOTHROW(write_jpeg((dir / "a.jpg").string(), ok, 90));  // control: the same call with a valid quality
  CHECK(fs::exists(dir / "a.jpg"));
  fs::remove_all(dir);
}

// ------------------------------------------------------------------------------------------------------ transforms

TEST_CASE("transforms: flip, crop, pad and centre crop against hand values", "[experiments][image]") {
  const Image im = image_of(2, 3, 1, {1, 2, 3, 4, 5, 6});
  CHECK(pixels_of(hflip(im)) == std::vector<int>{3, 2, 1, 6, 5, 4});
  const Image rgb = image_of(1, 2, 3, {1, 2, 3, 4, 5, 6});
  CHECK(pixels_of(hflip(rgb)) == std::vector<int>{4, 5, 6, 1, 2, 3});  // pixels move, channels stay in order
  CHECK(pixels_of(crop(im, {1, 1, 1, 2})) == std::vector<int>{5, 6});
  CHECK_THROWS_AS(crop(im, {1, 2, 1, 2}), std::invalid_argument);
  CHECK(pixels_of(pad(image_of(1, 1, 1, {5}), 1, 0, 2, 1, 9)) == std::vector<int>{9, 5, 9, 9, 9, 9, 9, 9});
  // torchvision: top/left = round((H - h) / 2) with Python's round half to even: 1.5 -> 2, 2.5 -> 2
  CHECK(pixels_of(center_crop(image_of(1, 5, 1, {0, 1, 2, 3, 4}), 1, 2)) == std::vector<int>{2, 3});
  CHECK(pixels_of(center_crop(image_of(1, 7, 1, {0, 1, 2, 3, 4, 5, 6}), 1, 2)) == std::vector<int>{2, 3});
  CHECK(pixels_of(center_crop(image_of(1, 6, 1, {0, 1, 2, 3, 4, 5}), 1, 2)) == std::vector<int>{2, 3});
  // larger than the image: zero padding, (d / 2) before and the rest after (torchvision 0.14 gives the same)
  CHECK(pixels_of(center_crop(image_of(2, 2, 1, {1, 2, 3, 4}), 3, 5)) ==
        std::vector<int>{0, 1, 2, 0, 0, 0, 3, 4, 0, 0, 0, 0, 0, 0, 0});
}

TEST_CASE("transforms: bilinear resize with half-pixel centres and PIL's antialiased shrink", "[experiments][image]") {
  // 2 x 2 -> 4 x 4 (align_corners=False): output x samples source x / 2 - 1/4, clamped at the edges, so each row is
  // (a, 3a/4 + b/4, a/4 + 3b/4, b); then the same down the columns. Exact values rounded half up; PIL 9.4 gives
  // these same bytes.
  const Image up = resize(image_of(2, 2, 1, {0, 100, 200, 255}), 4, 4);
  CHECK(pixels_of(up) == std::vector<int>{0, 25, 75, 100,     // row 0
                                          50, 72, 117, 139,   // 0.75 row0 + 0.25 row1: 72.1875, 116.5625, 138.75
                                          150, 167, 200, 216,  // 166.5625, 199.6875, 216.25
                                          200, 214, 241, 255});  // 213.75, 241.25
  // shrinking 4 -> 2: the triangle filter is widened 2-fold. Output 0 is centred on 1.0 and weighs pixels 0, 1, 2 by
  // 0.75, 0.75, 0.25: (75 + 50) / 1.75 = 71.4; output 1 weighs 1, 2, 3 by 0.25, 0.75, 0.75: 205 / 1.75 = 117.1 (PIL:
  // 71, 117). Plain (unfiltered) bilinear would give 50 and 120.
  CHECK(pixels_of(resize(image_of(1, 4, 1, {0, 100, 200, 40}), 1, 2)) == std::vector<int>{71, 117});
  // the same size is the identity; a resized crop equals crop then resize
  const Image r = random_image(9, 11, 3, 5);
  CHECK(resize(r, 9, 11).pixels == r.pixels);
  CHECK(resized_crop(r, {2, 3, 5, 6}, 7, 4).pixels == resize(crop(r, {2, 3, 5, 6}), 7, 4).pixels);
  CHECK(resize(r, 7, 4).pixels != resize(crop(r, {2, 3, 5, 6}), 7, 4).pixels);  // negative control
  // torchvision Resize(size): the shorter side becomes size, the longer int(size * long / short)
  CHECK(shorter_side_size(100, 150, 64) == std::pair{64, 96});
  CHECK(shorter_side_size(333, 500, 256) == std::pair{256, 384});  // 384.38 truncated
  CHECK(shorter_side_size(500, 333, 256) == std::pair{384, 256});
  CHECK_THROWS_AS(resize(r, 0, 4), std::invalid_argument);
}

TEST_CASE("transforms: affine rotation, translation and fill against hand values", "[experiments][image]") {
  const Image im = image_of(2, 2, 1, {1, 2, 3, 4});
  // torchvision F.affine turns clockwise for a positive angle: [[1, 2], [3, 4]] -> [[3, 1], [4, 2]]
  CHECK(pixels_of(affine(im, 90, 0, 0, 1.0, 0)) == std::vector<int>{3, 1, 4, 2});
  CHECK(pixels_of(affine(im, -90, 0, 0, 1.0, 0)) == std::vector<int>{2, 4, 1, 3});
  const Image r = random_image(6, 8, 3, 9);
  CHECK(affine(r, 0, 0, 0, 1.0, 0).pixels == r.pixels);  // the identity
  // one pixel right: the first column is the fill
  const Image grid = image_of(3, 4, 1, {0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110});
  CHECK(pixels_of(affine(grid, 0, 1, 0, 1.0, 7)) == std::vector<int>{7, 0, 10, 20, 7, 40, 50, 60, 7, 80, 90, 100});
  CHECK(pixels_of(affine(grid, 0, 0, -1, 1.0, 7)) ==
        std::vector<int>{40, 50, 60, 70, 80, 90, 100, 110, 7, 7, 7, 7});
  // scale 2 about the centre (2, 1.5): output centre (x + 0.5, y + 0.5) samples the source at
  // (2 + (x - 1.5) / 2, 1.5 + (y - 1) / 2), i.e. pixel coordinates 0.75, 1.25, 1.75, 2.25 across and 0.5, 1, 1.5
  // down. On a grid of steps of 20 every value is a whole number (PIL 9.4 gives the same bytes; it truncates where
  // we round, which matters only off whole numbers).
  const Image grid20 = image_of(3, 4, 1, {0, 20, 40, 60, 80, 100, 120, 140, 160, 180, 200, 220});
  CHECK(pixels_of(affine(grid20, 0, 0, 0, 2.0, 0)) ==
        std::vector<int>{55, 65, 75, 85, 95, 105, 115, 125, 135, 145, 155, 165});
  CHECK_THROWS_AS(affine(im, 0, 0, 0, 0.0, 0), std::invalid_argument);
}

TEST_CASE("transforms: normalise writes channel-major floats as ToTensor + Normalize", "[experiments][image]") {
  const Image rgb = image_of(1, 2, 3, {0, 51, 255, 255, 102, 0});
  std::vector<float> out(6);
  normalize_to_chw(rgb, {0.5f, 0.25f, 0.0f}, {0.5f, 0.25f, 1.0f}, out.data());
  // (v / 255 - mean) / std; R = 0, 255 -> -1, 1; G = 51, 102 -> (0.2 - 0.25) / 0.25, (0.4 - 0.25) / 0.25; B = 1, 0.
  // Single-precision arithmetic as torchvision's; 4 ulp covers the two roundings of 0.2 and 0.4.
  const std::vector<float> want{-1.0f, 1.0f, -0.2f, 0.6f, 1.0f, 0.0f};
  for (std::size_t i = 0; i < 6; ++i) CHECK_THAT(out[i], Catch::Matchers::WithinULP(want[i], 4));
  CHECK_THROWS_AS(normalize_to_chw(rgb, {0.5f, 0.5f}, {1.0f, 1.0f}, out.data()), std::invalid_argument);
}

TEST_CASE("transforms: random resized crop boxes follow torchvision's draws and fallback", "[experiments][image]") {
  std::mt19937_64 rng(Catch::rngSeed());
  const std::array<double, 2> scale{0.16, 1.0}, ratio{3.0 / 4.0, 4.0 / 3.0};
  std::set<std::tuple<int, int, int, int>> seen;
  for (int i = 0; i < 2000; ++i) {
    const CropBox b = random_resized_crop_box(120, 90, scale, ratio, rng);
    REQUIRE(b.top >= 0);
    REQUIRE(b.left >= 0);
    REQUIRE(b.top + b.rows <= 120);
    REQUIRE(b.left + b.cols <= 90);
    // the rounding of each side to whole pixels moves the area fraction and the aspect ratio a little: a side of
    // n pixels is within 0.5 of its drawn length, and every side here is >= 0.4 * 90 = 36 pixels, so both stay
    // within (1 +- 0.5 / 36)^2 of their ranges (the fallback box has ratio 0.75 and area 1: inside too)
    const double area = double(b.rows) * b.cols / (120.0 * 90.0), aspect = double(b.cols) / b.rows;
    const double slack = std::pow(1 + 0.5 / 36, 2);
    CHECK(area >= scale[0] / slack);
    CHECK(area <= scale[1] * slack);
    CHECK(aspect >= ratio[0] / slack);
    CHECK(aspect <= ratio[1] * slack);
    seen.insert({b.top, b.left, b.rows, b.cols});
  }
  CHECK(seen.size() > 1000);  // the boxes vary
  // no draw fits a box of 2 to 3 times the image: the centre crop of the ratio clamped into [3/4, 4/3]. A 10 x 20
  // image (ratio 2) keeps its 10 rows and takes round(10 * 4/3) = 13 columns from (20 - 13) // 2 = 3.
  std::mt19937_64 r2(1);
  const CropBox fb = random_resized_crop_box(10, 20, {2.0, 3.0}, ratio, r2);
  CHECK(std::tuple{fb.top, fb.left, fb.rows, fb.cols} == std::tuple{0, 3, 10, 13});
  const CropBox tall = random_resized_crop_box(20, 10, {2.0, 3.0}, ratio, r2);  // ratio 1/2: 13 rows from 3
  CHECK(std::tuple{tall.top, tall.left, tall.rows, tall.cols} == std::tuple{3, 0, 13, 10});
  // repeatable for a seed, different for another
  std::mt19937_64 a(42), b(42), c(43);
  const CropBox ba = random_resized_crop_box(120, 90, scale, ratio, a);
  const CropBox bb = random_resized_crop_box(120, 90, scale, ratio, b);
  const CropBox bc = random_resized_crop_box(120, 90, scale, ratio, c);
  CHECK(std::tuple{ba.top, ba.left, ba.rows, ba.cols} == std::tuple{bb.top, bb.left, bb.rows, bb.cols});
  CHECK(std::tuple{ba.top, ba.left, ba.rows, ba.cols} != std::tuple{bc.top, bc.left, bc.rows, bc.cols});
  CHECK_THROWS_AS(random_resized_crop_box(10, 10, {0.5, 0.2}, ratio, a), std::invalid_argument);
}

TEST_CASE("transform pipeline: JSON spec, defaults, sizes and repeatable draws", "[experiments][image]") {
  const auto spec = nlohmann::json::parse(R"([
    {"op": "random_resized_crop", "size": 24, "scale": [0.16, 1]},
    {"op": "hflip"},
    {"op": "random_affine", "degrees": 10, "translate": [0.1, 0.05], "scale": [0.9, 1.1]},
    {"op": "pad", "padding": [1, 2]},
    {"op": "normalize", "mean": [0.485, 0.456, 0.406], "std": [0.229, 0.224, 0.225]}])");
  const TransformPipeline p(spec);
  CHECK(p.spec()[0]["ratio"][0].get<double>() == 0.75);  // defaults filled in
  CHECK(p.spec()[1]["p"].get<double>() == 0.5);
  CHECK(p.fixed_output_size() == std::pair{28, 26});  // 24 x 24, then 2 rows and 1 column each side
  CHECK(p.output_size(100, 50) == std::pair{28, 26});
  const Image im = smooth_image(60, 50, 3);
  std::mt19937_64 a(7), b(7), c(8);
  const auto out_a = p.apply(im, a), out_b = p.apply(im, b), out_c = p.apply(im, c);
  CHECK(out_a.size() == 3u * 28 * 26);
  CHECK(out_a == out_b);  // bit for bit for one seed
  CHECK(out_a != out_c);  // another seed draws another crop
  // no fixed size: the shorter side is resized, then the output depends on the input
  const auto shorter = TransformPipeline::parse(R"([{"op": "resize", "size": 32}])");
  CHECK_FALSE(shorter.fixed_output_size().has_value());
  CHECK(shorter.output_size(60, 50) == std::pair{38, 32});
  CHECK(TransformPipeline::parse(R"([{"op": "resize", "size": 32}, {"op": "center_crop", "size": [30, 20]}])")
            .fixed_output_size() == std::pair{30, 20});
  // the empty pipeline is v / 255
  const auto plain = TransformPipeline().apply(image_of(1, 1, 1, {51}), a);
  CHECK_THAT(plain[0], Catch::Matchers::WithinULP(0.2f, 1));  // 51 / 255 in float, one rounding
  CHECK_NOTHROW(p.check_channels(3));
  CHECK_THROWS_AS(p.check_channels(1), std::invalid_argument);
}

TEST_CASE("transform pipeline: random crop after padding ([XHN] Sec 6: random crops padded by 10 pixels on each side)",
          "[experiments][image]") {
  const auto p = TransformPipeline::parse(R"([{"op": "pad", "padding": 10}, {"op": "random_crop", "size": 16}])");
  CHECK(p.fixed_output_size() == std::pair{16, 16});  // the crop fixes the size
  CHECK(p.output_size(16, 16) == std::pair{16, 16});
  // a 15 x 15 image of distinct values 1..225 padded to 35 x 35 and cropped back to 15 x 15: every output is the
  // image shifted by (dy, dx) in [-10, 10]^2 with zeros shifted in, and the draws cover many shifts
  std::vector<int> px(225);
  for (int i = 0; i < 225; ++i) px[std::size_t(i)] = 1 + i;
  const Image im = image_of(15, 15, 1, px);
  const auto p15 = TransformPipeline::parse(R"([{"op": "pad", "padding": 10}, {"op": "random_crop", "size": 15}])");
  std::mt19937_64 rng(3);
  std::set<std::pair<int, int>> shifts;
  for (int k = 0; k < 400; ++k) {
    const auto out = p15.apply(im, rng);
    REQUIRE(out.size() == 225u);
    // the shift from any image pixel in the window (a shift of at most 10 keeps some of a 15-pixel image)
    int dy = 99, dx = 99;
    for (int i = 0; i < 225 && dy == 99; ++i)
      if (out[std::size_t(i)] > 0) {
        const int v = int(std::lround(out[std::size_t(i)] * 255.0f)) - 1;
        dy = i / 15 - v / 15;
        dx = i % 15 - v % 15;
      }
    REQUIRE(dy != 99);
    CHECK((dy >= -10 && dy <= 10 && dx >= -10 && dx <= 10));
    for (int r = 0; r < 15; ++r)
      for (int c = 0; c < 15; ++c) {
        const int sr = r - dy, sc = c - dx;
        const float want = sr >= 0 && sr < 15 && sc >= 0 && sc < 15 ? float(px[std::size_t(sr * 15 + sc)]) / 255.0f : 0.0f;
        REQUIRE(out[std::size_t(r * 15 + c)] == want);
      }
    shifts.insert({dy, dx});
  }
  CHECK(shifts.size() > 200);  // 441 shifts, 400 uniform draws: about 250 distinct expected
  // a crop larger than the image is an error naming the sizes (torchvision raises too without pad_if_needed)
  std::mt19937_64 g(1);
  CHECK(p.output_size(16, 16) == std::pair{16, 16});
  CHECK_THROWS_WITH(TransformPipeline::parse(R"([{"op": "random_crop", "size": 20}])").apply(im, g),
                    Catch::Contains("random_crop") && Catch::Contains("20 x 20"));
}

TEST_CASE("transform pipeline: bad specs are errors naming the step and key", "[experiments][image]") {
  const auto fails = [](const std::string& text, const std::string& fragment) {
    CHECK_THROWS_WITH(TransformPipeline::parse(text), Catch::Contains(fragment));
  };
  fails(R"([{"op": "rotate", "degrees": 3}])", "transform 0: unknown op \"rotate\" (valid: resize,");
  fails(R"([{"op": "hflip", "prob": 0.5}])", "transform 0 (hflip): unknown key \"prob\" (valid: op, p)");
  fails(R"([{"op": "hflip", "p": 1.5}])", "\"p\" must be a number in [0.0, 1.0], got 1.5");
  fails(R"([{"op": "center_crop", "size": 22.5}])", "\"size\" must be an integer");
  fails(R"([{"op": "center_crop"}])", "transform 0 (center_crop): missing \"size\"");
  fails(R"([{"op": "resize", "size": [1, 2, 3]}])", "\"size\" must be one size or [rows, cols]");
  fails(R"([{"op": "random_resized_crop", "size": 8, "scale": [0.9, 0.1]}])", "\"scale\" must be [lo, hi]");
  fails(R"([{"op": "random_resized_crop", "size": 8, "ratio": [0, 1]}])", "\"ratio\" must be [lo, hi] with 0 < lo");
  fails(R"([{"op": "random_affine", "degrees": 5, "translate": [0.1, 2]}])", "\"translate\" must be a number in");
  fails(R"([{"op": "pad", "padding": [1, 2, 3]}])", "\"padding\" must be one number");
  fails(R"([{"op": "normalize", "mean": [0.5], "std": [0]}])", "\"std\" must be a non-empty list of numbers > 0");
  fails(R"([{"op": "normalize", "mean": [0.5, 0.5], "std": [1]}])", "2 means but 1 stds");
  fails(R"([{"op": "normalize", "mean": [0.5], "std": [1]}, {"op": "hflip"}])",
        "transform 1 (hflip): normalize must be the last step");
  fails(R"({"op": "hflip"})", "the spec must be a JSON list");
  fails(R"([{"size": 3}])", "transform 0: each step must be an object with an \"op\" name");
  fails(R"([{"op": "hflip",}])", "not valid JSON");
  CHECK_NOTHROW(TransformPipeline::parse(R"([{"op": "hflip", "p": 1}])"));  // control: a valid spec parses
}

// ----------------------------------------------------------------------------------------------------------- loader

namespace {

struct LoaderFixture {
  ScratchDir scratch_dir;
  fs::path dir;
  std::vector<std::string> paths;
  std::vector<Image> images;
  explicit LoaderFixture(const std::string& name)
      : scratch_dir("dmlbench-test-image-" + name), dir(scratch_dir.dir()) {
    for (int i = 0; i < 10; ++i) {
      // varying sizes, gray and RGB, PNG and JPEG
      Image im = smooth_image(30 + 3 * i, 40 - 2 * i, i % 3 == 0 ? 1 : 3);
      for (auto& p : im.pixels) p = std::uint8_t(p + 17 * i);
      const auto path = (dir / ("im" + std::to_string(i) + (i % 2 ? ".jpg" : ".png"))).string();
      if (i % 2)
        write_jpeg(path, im, 90);
      else
        write_png(path, im);
      paths.push_back(path);
      images.push_back(decode_image(path, 0));
    }
  }
};

const char* kLoaderSpec = R"([{"op": "random_resized_crop", "size": [20, 16], "scale": [0.16, 1]},
  {"op": "hflip"}, {"op": "random_affine", "degrees": 8, "translate": [0.05, 0.05]},
  {"op": "normalize", "mean": [0.5], "std": [0.25]}])";

std::vector<Batch> drain(PrefetchLoader& loader) {
  std::vector<Batch> out;
  Batch b;
  while (loader.next(b)) out.push_back(b);
  return out;
}

}  // namespace

TEST_CASE("image loader: the same bytes, in plan order, for any thread count and prefetch depth",
          "[experiments][image][loader]") {
  const LoaderFixture fx("loader-threads");
  const std::vector<std::vector<int>> plan{{0, 1, 2}, {3, 4, 5, 6}, {7, 8}, {9, 0, 9}, {5}};
  const auto pipeline = TransformPipeline::parse(kLoaderSpec);
  for (int channels : {1, 3}) {
    LoaderOptions opt;
    opt.channels = channels;
    opt.seed = 11;
    opt.epoch = 2;
    PrefetchLoader inline_loader(ImageSource::files(fx.paths), plan, pipeline, opt);
    const auto reference = drain(inline_loader);
    REQUIRE(reference.size() == plan.size());
    for (std::size_t b = 0; b < plan.size(); ++b) {
      CHECK(reference[b].number == b);
      CHECK(reference[b].indices == plan[b]);
      CHECK(reference[b].channels == channels);
      CHECK(reference[b].rows == 20);
      CHECK(reference[b].cols == 16);
      REQUIRE(reference[b].data.size() == plan[b].size() * std::size_t(channels) * 20 * 16);
      // each item is the pipeline applied with its own seed: order and content
      for (std::size_t p = 0; p < plan[b].size(); ++p) {
        std::mt19937_64 rng(item_seed(11, 2, b, p));
        const auto one = pipeline.apply(decode_image(fx.paths[std::size_t(plan[b][p])], channels), rng);
        CHECK(std::equal(one.begin(), one.end(), reference[b].data.begin() + std::ptrdiff_t(p * one.size())));
      }
    }
    for (int threads : {1, 2, 3}) {
      for (int depth : {1, 3}) {
        opt.threads = threads;
        opt.prefetch_batches = depth;
        PrefetchLoader loader(ImageSource::files(fx.paths), plan, pipeline, opt);
        const auto got = drain(loader);
        REQUIRE(got.size() == reference.size());
        for (std::size_t b = 0; b < got.size(); ++b) {
          CHECK(got[b].indices == reference[b].indices);
          CHECK(std::memcmp(got[b].data.data(), reference[b].data.data(), got[b].data.size() * sizeof(float)) == 0);
        }
        Batch again;
        CHECK_FALSE(loader.next(again));  // the plan is done
      }
    }
    // in-memory images give the bytes of their files; another epoch draws other transforms (negative control)
    opt.threads = 2;
    PrefetchLoader memory(ImageSource::memory(fx.images), plan, pipeline, opt);
    const auto from_memory = drain(memory);
    CHECK(from_memory[1].data == reference[1].data);
    opt.epoch = 3;
    PrefetchLoader other_epoch(ImageSource::files(fx.paths), plan, pipeline, opt);
    CHECK(drain(other_epoch)[1].data != reference[1].data);
  }
}

TEST_CASE("image loader: a broken file surfaces in the consumer as the data error naming it",
          "[experiments][image][loader]") {
  LoaderFixture fx("loader-errors");
  const auto bad = spit(fx.dir / "bad.png", "not an image");
  const auto cut = spit(fx.dir / "cut.jpg", slurp(fx.paths[1]).substr(0, 200));
  fx.paths.push_back(bad);  // index 10
  fx.paths.push_back(cut);  // index 11
  const std::vector<std::vector<int>> plan{{0, 1}, {2, 3}, {4, 11, 10}, {5, 6}, {7}};
  for (int threads : {0, 1, 2}) {
    LoaderOptions opt;
    opt.threads = threads;
    PrefetchLoader loader(ImageSource::files(fx.paths), plan, TransformPipeline::parse(kLoaderSpec), opt);
    Batch b;
    CHECK(loader.next(b));
    CHECK(loader.next(b));
    CHECK(b.number == 1);
    // the first broken item of the batch by position (cut.jpg at 1, not bad.png at 2), whatever finished first
    CHECK_DATA_ERROR(loader.next(b), cut);
    CHECK_DATA_ERROR(loader.next(b), cut);  // and the loader stays failed
  }
  // an item whose output size differs from the batch's (no fixed-size step) names its file
  LoaderOptions opt;
  opt.threads = 2;
  PrefetchLoader sized(ImageSource::files(fx.paths), {{0}, {2}}, TransformPipeline(), opt);
  Batch b;
  CHECK(sized.next(b));
  CHECK(b.rows == 30);
  CHECK_DATA_ERROR(sized.next(b), fx.paths[2]);
}

TEST_CASE("image loader: destruction mid-epoch joins the workers, bad plans are rejected",
          "[experiments][image][loader]") {
  const LoaderFixture fx("loader-stop");
  std::vector<std::vector<int>> plan;
  for (int b = 0; b < 200; ++b) plan.push_back({b % 10, (b + 3) % 10, (b + 7) % 10});
  const auto pipeline = TransformPipeline::parse(kLoaderSpec);
  LoaderOptions opt;
  opt.threads = 2;
  opt.prefetch_batches = 4;
  {
    PrefetchLoader loader(ImageSource::files(fx.paths), plan, pipeline, opt);
    Batch b;
    CHECK(loader.next(b));
    CHECK(loader.next(b));
  }  // 198 batches left: the destructor must stop the workers, not wait for the epoch or hang
  { PrefetchLoader never_read(ImageSource::files(fx.paths), plan, pipeline, opt); }
  {
    PrefetchLoader empty(ImageSource::files(fx.paths), {}, pipeline, opt);
    Batch b;
    CHECK_FALSE(empty.next(b));
  }
  CHECK_THROWS_WITH(PrefetchLoader(ImageSource::files(fx.paths), {{0, 10}}, pipeline, opt),
                    Catch::Contains("index 10, outside the 10 items"));
  CHECK_THROWS_WITH(PrefetchLoader(ImageSource::files(fx.paths), {{0}, {}}, pipeline, opt),
                    Catch::Contains("batch 1 of the plan is empty"));
  opt.channels = 2;
  CHECK_THROWS_AS(PrefetchLoader(ImageSource::files(fx.paths), {{0}}, pipeline, opt), std::invalid_argument);
  opt.channels = 3;
  opt.prefetch_batches = 0;
  CHECK_THROWS_AS(PrefetchLoader(ImageSource::files(fx.paths), {{0}}, pipeline, opt), std::invalid_argument);
  opt.prefetch_batches = 1;
  CHECK_THROWS_AS(PrefetchLoader(ImageSource::files(fx.paths), {{0}},
                                 TransformPipeline::parse(R"([{"op": "normalize", "mean": [0, 0], "std": [1, 1]}])"),
                                 opt),
                  std::invalid_argument);
}

TEST_CASE("a PNG header of 10^5 x 10^5 pixels is refused before decoding, naming the size and the limit",
          "[image]") {
  const auto be32 = [](std::vector<std::uint8_t>& b, std::uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) b.push_back(std::uint8_t(v >> s));
  };
  const auto chunk = [&](std::vector<std::uint8_t>& png, const char* type, std::vector<std::uint8_t> body) {
    std::vector<std::uint8_t> typed(type, type + 4);
    typed.insert(typed.end(), body.begin(), body.end());
    be32(png, std::uint32_t(body.size()));
    png.insert(png.end(), typed.begin(), typed.end());
    be32(png, std::uint32_t(crc32(0, typed.data(), unsigned(typed.size()))));
  };
  // an 8-bit gray PNG of side x side whose one IDAT holds a single deflated zero byte: libpng reads the header, then
  // the decoder is to refuse the size before it allocates rows
  const auto png_of_side = [&](std::uint32_t side) {
    std::vector<std::uint8_t> png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}, ihdr;
    be32(ihdr, side);
    be32(ihdr, side);
    for (int v : {8, 0, 0, 0, 0}) ihdr.push_back(std::uint8_t(v));
    chunk(png, "IHDR", ihdr);
    std::vector<std::uint8_t> idat(64);
    uLongf n = idat.size();
    const std::uint8_t zero = 0;
    REQUIRE(compress(idat.data(), &n, &zero, 1) == Z_OK);
    idat.resize(n);
    chunk(png, "IDAT", idat);
    chunk(png, "IEND", {});
    return png;
  };
  const auto huge = png_of_side(100000);
  CHECK_THROWS_WITH(decode_image(huge.data(), huge.size(), "huge.png", 0),
                    "huge.png: image of 100000 x 100000 x 1 bytes is larger than the 1 GiB limit (corrupt header?)");
  // negative control: the same file at 4 x 4 passes the size check and fails later, on its missing rows
  const auto small = png_of_side(4);
  CHECK_THROWS_WITH(decode_image(small.data(), small.size(), "small.png", 0), Catch::Contains("corrupt or truncated PNG"));
}
