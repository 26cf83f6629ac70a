// PNG (libpng) and JPEG (libjpeg-turbo) images decoded to 8-bit interleaved pixels, the format told by its magic bytes,
// and written back (PNG exactly, JPEG at a quality). Torch-free. A file that cannot be read in full is a data_error
// naming it: never a crash, never a silently filled (black or grey) image.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dmlbench::experiments {

// A decoded image: rows x cols x channels, uint8, row-major interleaved (HWC). Channels: 1 gray, 2 gray + alpha,
// 3 RGB, 4 RGBA.
struct Image {
  int rows = 0, cols = 0, channels = 0;
  std::vector<std::uint8_t> pixels;
};

// channels 0: as stored (PNG: gray, gray + alpha, RGB or RGBA; a palette expands to RGB, or RGBA when it has
// transparency; 16-bit samples keep their high byte and 1-, 2- and 4-bit gray scales to 0..255, as PIL reads them.
// JPEG: gray or RGB; CMYK and YCCK convert to RGB as PIL does). channels 1: gray, the ITU-R 601 luma of the RGB
// (PIL's convert("L") integer formula), alpha dropped. channels 3: RGB, gray replicated, alpha dropped.
// Throws data_error naming the file: missing or unreadable, empty, unknown format (not PNG or JPEG by its first
// bytes), corrupt or truncated. Throws std::invalid_argument for channels other than 0, 1 or 3.
Image decode_image(const std::string& path, int channels);
// The same from bytes in memory; `name` is what an error message calls them.
Image decode_image(const std::uint8_t* data, std::size_t size, const std::string& name, int channels);

// std::invalid_argument naming `what` unless 1..4 channels, both sides >= 1 and rows x cols x channels pixels.
void check_image(const Image& image, const std::string& what);

// An image in 1 or 3 channels from any of 1 to 4 (the conversions of decode_image); a copy when they already agree.
Image convert_channels(const Image& image, int channels);

// 8-bit PNG of 1 to 4 channels, lossless; JPEG of 1 or 3 channels, quality 1..100 (4:2:0 chroma, libjpeg's default).
// Both write a temporary file and rename it. std::invalid_argument for a malformed image or quality,
// std::runtime_error when the file cannot be written.
void write_png(const std::string& path, const Image& image);
void write_jpeg(const std::string& path, const Image& image, int quality);

}  // namespace dmlbench::experiments
