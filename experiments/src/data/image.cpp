#include "dmlbench/experiments/image.hpp"

#include "dmlbench/theory/memory_budget.hpp"

#include "dmlbench/experiments/atomic_file.hpp"
#include "dmlbench/experiments/idx_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <system_error>

// After <cstdio>: jpeglib.h uses FILE and size_t without including their headers.
#include <jerror.h>
#include <jpeglib.h>
#include <png.h>

namespace dmlbench::experiments {

namespace {

// The largest decoded image accepted (bytes): a corrupt header must not ask for tens of gigabytes.
constexpr std::size_t kMaxDecodedBytes = std::size_t(1) << 30;

void check_decoded_size(std::size_t rows, std::size_t cols, std::size_t channels, const std::string& name) {
  if (rows == 0 || cols == 0) throw data_error(name + ": image with an empty side (" + std::to_string(rows) + " x " +
                                               std::to_string(cols) + ")");
  if (rows * cols * channels > kMaxDecodedBytes)
    throw data_error(name + ": image of " + std::to_string(rows) + " x " + std::to_string(cols) + " x " +
                     std::to_string(channels) + " bytes is larger than the 1 GiB limit (corrupt header?)");
  try {
    theory::require_memory(double(rows) * double(cols) * double(channels), name + ": the decoded image");
  } catch (const std::invalid_argument& e) {
    throw data_error(e.what());
  }
}

std::vector<std::uint8_t> read_whole_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    if (e == ENOENT) throw data_error("image not found: " + path);
    throw data_error("cannot open image " + path + ": " + std::error_code(e, std::generic_category()).message());
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) throw data_error("not a regular file: " + path);
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(st.st_size));
  std::size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t r = ::read(fd, bytes.data() + got, bytes.size() - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0)
      throw data_error("cannot read image " + path + ": " + std::error_code(errno, std::generic_category()).message());
    if (r == 0) throw data_error("cannot read image " + path + ": it shrank while being read");
    got += std::size_t(r);
  }
  return bytes;
}

// ---- PNG (libpng). Its errors longjmp back to the one function that calls setjmp; every object whose state must
// survive the jump lives in PngState (the caller's frame), and no C++ object with a destructor is created between
// the setjmp and a libpng call, so the jump skips no destructor.

struct PngState {
  const std::uint8_t* data = nullptr;
  std::size_t size = 0, pos = 0;
  png_structp png = nullptr;
  png_infop info = nullptr;
  char message[256] = {};
  Image* out = nullptr;
  std::vector<png_bytep> rows;
  std::string* sink = nullptr;  // writing
};

void png_error_to_state(png_structp png, png_const_charp msg) {
  auto* s = static_cast<PngState*>(png_get_error_ptr(png));
  std::snprintf(s->message, sizeof s->message, "%s", msg);
  png_longjmp(png, 1);
}

void png_ignore_warning(png_structp, png_const_charp) {}

void png_read_from_state(png_structp png, png_bytep out, std::size_t n) {
  auto* s = static_cast<PngState*>(png_get_io_ptr(png));
  if (n > s->size - s->pos) png_error(png, "the file ends early");
  std::memcpy(out, s->data + s->pos, n);
  s->pos += n;
}

// Returns false (with s.message) when libpng reported an error; throws data_error for an oversized image.
bool png_decode_steps(PngState& s, const std::string& name) {
  if (setjmp(png_jmpbuf(s.png))) return false;
  png_set_read_fn(s.png, &s, png_read_from_state);
  png_read_info(s.png, s.info);
  const int color = png_get_color_type(s.png, s.info);
  const int depth = png_get_bit_depth(s.png, s.info);
  if (depth == 16) png_set_strip_16(s.png);  // the high byte, as PIL reads 16-bit RGB
  if (color == PNG_COLOR_TYPE_PALETTE) {
    png_set_palette_to_rgb(s.png);
    if (png_get_valid(s.png, s.info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(s.png);
  }
  if (color == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(s.png);
  png_set_interlace_handling(s.png);
  png_read_update_info(s.png, s.info);
  const std::size_t rows = png_get_image_height(s.png, s.info), cols = png_get_image_width(s.png, s.info);
  const std::size_t channels = png_get_channels(s.png, s.info);
  check_decoded_size(rows, cols, channels, name);
  if (png_get_rowbytes(s.png, s.info) != cols * channels) png_error(s.png, "unexpected row size after conversion");
  s.out->rows = int(rows);
  s.out->cols = int(cols);
  s.out->channels = int(channels);
  s.out->pixels.resize(rows * cols * channels);
  s.rows.resize(rows);
  for (std::size_t r = 0; r < rows; ++r) s.rows[r] = s.out->pixels.data() + r * cols * channels;
  png_read_image(s.png, s.rows.data());
  png_read_end(s.png, nullptr);  // up to IEND: a file cut after its image data is still truncated
  return true;
}

Image decode_png(const std::uint8_t* data, std::size_t size, const std::string& name) {
  Image out;
  PngState s;
  s.data = data;
  s.size = size;
  s.out = &out;
  s.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &s, png_error_to_state, png_ignore_warning);
  if (!s.png) throw std::bad_alloc();
  struct Destroy {
    PngState& s;
    ~Destroy() { png_destroy_read_struct(&s.png, s.info ? &s.info : nullptr, nullptr); }
  } destroy{s};
  s.info = png_create_info_struct(s.png);
  if (!s.info) throw std::bad_alloc();
  if (!png_decode_steps(s, name)) throw data_error(name + ": corrupt or truncated PNG (" + s.message + ")");
  return out;
}

// ---- JPEG (libjpeg-turbo). libjpeg's default error_exit calls exit(): ours longjmps back. Its "premature end"
// warnings (the file or a scan ends before the image does) are errors here: libjpeg would fill the rest with grey.

struct JpegError {
  jpeg_error_mgr mgr;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void jpeg_error_to_state(j_common_ptr c) {
  auto* e = reinterpret_cast<JpegError*>(c->err);
  (*c->err->format_message)(c, e->message);
  std::longjmp(e->jump, 1);
}

void jpeg_warning_filter(j_common_ptr c, int level) {
  if (level == -1 && (c->err->msg_code == JWRN_JPEG_EOF || c->err->msg_code == JWRN_HIT_MARKER))
    jpeg_error_to_state(c);
  if (level == -1) ++c->err->num_warnings;  // other warnings (e.g. stray bytes before a marker) leave the image whole
}

struct JpegDecodeState {
  jpeg_decompress_struct cinfo;
  JpegError err;
  bool created = false;
  Image* out = nullptr;
};

bool jpeg_decode_steps(JpegDecodeState& s, const std::uint8_t* data, std::size_t size, const std::string& name) {
  s.cinfo.err = jpeg_std_error(&s.err.mgr);
  s.err.mgr.error_exit = jpeg_error_to_state;
  s.err.mgr.emit_message = jpeg_warning_filter;
  if (setjmp(s.err.jump)) return false;
  jpeg_create_decompress(&s.cinfo);
  s.created = true;
  jpeg_mem_src(&s.cinfo, data, static_cast<unsigned long>(size));
  jpeg_read_header(&s.cinfo, TRUE);
  const bool cmyk = s.cinfo.jpeg_color_space == JCS_CMYK || s.cinfo.jpeg_color_space == JCS_YCCK;
  s.cinfo.out_color_space = s.cinfo.jpeg_color_space == JCS_GRAYSCALE ? JCS_GRAYSCALE : cmyk ? JCS_CMYK : JCS_RGB;
  jpeg_start_decompress(&s.cinfo);
  const std::size_t rows = s.cinfo.output_height, cols = s.cinfo.output_width;
  const std::size_t channels = std::size_t(s.cinfo.output_components);
  check_decoded_size(rows, cols, channels, name);
  s.out->rows = int(rows);
  s.out->cols = int(cols);
  s.out->channels = int(channels);
  s.out->pixels.resize(rows * cols * channels);
  while (s.cinfo.output_scanline < s.cinfo.output_height) {
    JSAMPROW row = s.out->pixels.data() + std::size_t(s.cinfo.output_scanline) * cols * channels;
    jpeg_read_scanlines(&s.cinfo, &row, 1);
  }
  jpeg_finish_decompress(&s.cinfo);
  return true;
}

// CMYK to RGB as PIL converts it; Adobe's (Photoshop's) files store the samples inverted.
Image cmyk_to_rgb(const Image& cmyk, bool inverted) {
  Image rgb{cmyk.rows, cmyk.cols, 3, std::vector<std::uint8_t>(std::size_t(cmyk.rows) * std::size_t(cmyk.cols) * 3)};
  for (std::size_t i = 0, n = std::size_t(cmyk.rows) * std::size_t(cmyk.cols); i < n; ++i) {
    const std::uint8_t* p = &cmyk.pixels[4 * i];
    const unsigned k = inverted ? p[3] : 255u - p[3];
    for (int c = 0; c < 3; ++c) {
      const unsigned v = inverted ? p[c] : 255u - p[c];
      rgb.pixels[3 * i + std::size_t(c)] = std::uint8_t((v * k + 127) / 255);
    }
  }
  return rgb;
}

Image decode_jpeg(const std::uint8_t* data, std::size_t size, const std::string& name) {
  Image out;
  auto s = std::make_unique<JpegDecodeState>();
  s->out = &out;
  struct Destroy {
    JpegDecodeState& s;
    ~Destroy() {
      if (s.created) jpeg_destroy_decompress(&s.cinfo);
    }
  } destroy{*s};
  if (!jpeg_decode_steps(*s, data, size, name))
    throw data_error(name + ": corrupt or truncated JPEG (" + s->err.message + ")");
  if (s->cinfo.out_color_space == JCS_CMYK) return cmyk_to_rgb(out, s->cinfo.saw_Adobe_marker);
  return out;
}

void png_write_to_state(png_structp png, png_bytep in, std::size_t n) {
  auto* s = static_cast<PngState*>(png_get_io_ptr(png));
  s->sink->append(reinterpret_cast<const char*>(in), n);
}

void png_flush_nothing(png_structp) {}

bool png_encode_steps(PngState& s, const Image& image) {
  static constexpr int kColorType[] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                       PNG_COLOR_TYPE_RGB_ALPHA};
  if (setjmp(png_jmpbuf(s.png))) return false;
  png_set_write_fn(s.png, &s, png_write_to_state, png_flush_nothing);
  png_set_IHDR(s.png, s.info, png_uint_32(image.cols), png_uint_32(image.rows), 8, kColorType[image.channels - 1],
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(s.png, s.info);
  png_write_image(s.png, s.rows.data());
  png_write_end(s.png, nullptr);
  return true;
}

struct JpegEncodeState {
  jpeg_compress_struct cinfo;
  JpegError err;
  bool created = false;
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
};

bool jpeg_encode_steps(JpegEncodeState& s, const Image& image, int quality) {
  s.cinfo.err = jpeg_std_error(&s.err.mgr);
  s.err.mgr.error_exit = jpeg_error_to_state;
  if (setjmp(s.err.jump)) return false;
  jpeg_create_compress(&s.cinfo);
  s.created = true;
  jpeg_mem_dest(&s.cinfo, &s.buffer, &s.size);
  s.cinfo.image_width = JDIMENSION(image.cols);
  s.cinfo.image_height = JDIMENSION(image.rows);
  s.cinfo.input_components = image.channels;
  s.cinfo.in_color_space = image.channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&s.cinfo);
  jpeg_set_quality(&s.cinfo, quality, TRUE);
  jpeg_start_compress(&s.cinfo, TRUE);
  while (s.cinfo.next_scanline < s.cinfo.image_height) {
    // libjpeg's API takes non-const rows; it only reads them.
    JSAMPROW row = const_cast<std::uint8_t*>(image.pixels.data()) +
                   std::size_t(s.cinfo.next_scanline) * std::size_t(image.cols) * std::size_t(image.channels);
    jpeg_write_scanlines(&s.cinfo, &row, 1);
  }
  jpeg_finish_compress(&s.cinfo);
  return true;
}

}  // namespace

Image decode_image(const std::uint8_t* data, std::size_t size, const std::string& name, int channels) {
  if (channels != 0 && channels != 1 && channels != 3)
    throw std::invalid_argument("decode_image: channels must be 0 (as stored), 1 (gray) or 3 (RGB), not " +
                                std::to_string(channels));
  static constexpr std::uint8_t kPng[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (size == 0) throw data_error(name + ": empty file, not an image");
  Image image;
  if (size >= 8 && std::memcmp(data, kPng, 8) == 0) {
    image = decode_png(data, size, name);
  } else if (size >= 3 && data[0] == 0xff && data[1] == 0xd8 && data[2] == 0xff) {
    image = decode_jpeg(data, size, name);
  } else {
    char head[40];
    std::snprintf(head, sizeof head, "%02x %02x %02x %02x", data[0], size > 1 ? data[1] : 0, size > 2 ? data[2] : 0,
                  size > 3 ? data[3] : 0);
    throw data_error(name + ": not a PNG or JPEG image (it starts with the bytes " + head + ")");
  }
  return channels == 0 || channels == image.channels ? image : convert_channels(image, channels);
}

Image decode_image(const std::string& path, int channels) {
  if (channels != 0 && channels != 1 && channels != 3)
    throw std::invalid_argument("decode_image: channels must be 0 (as stored), 1 (gray) or 3 (RGB), not " +
                                std::to_string(channels));
  const auto bytes = read_whole_file(path);
  return decode_image(bytes.data(), bytes.size(), path, channels);
}

void check_image(const Image& image, const std::string& what) {
  if (image.rows < 1 || image.cols < 1 || image.channels < 1 || image.channels > 4 ||
      image.pixels.size() != std::size_t(image.rows) * std::size_t(image.cols) * std::size_t(image.channels))
    throw std::invalid_argument(what + ": malformed image (" + std::to_string(image.rows) + " x " +
                                std::to_string(image.cols) + " x " + std::to_string(image.channels) + ", " +
                                std::to_string(image.pixels.size()) + " bytes)");
}

Image convert_channels(const Image& image, int channels) {
  check_image(image, "convert_channels");
  if (channels != 1 && channels != 3)
    throw std::invalid_argument("convert_channels: channels must be 1 or 3, not " + std::to_string(channels));
  if (channels == image.channels) return image;
  const std::size_t n = std::size_t(image.rows) * std::size_t(image.cols), in = std::size_t(image.channels);
  Image out{image.rows, image.cols, channels, std::vector<std::uint8_t>(n * std::size_t(channels))};
  const std::uint8_t* p = image.pixels.data();
  std::uint8_t* q = out.pixels.data();
  if (channels == 1 && in >= 3) {
    // ITU-R 601-2 luma in PIL's fixed point: L = (19595 R + 38470 G + 7471 B + 2^15) >> 16.
    for (std::size_t i = 0; i < n; ++i, p += in)
      q[i] = std::uint8_t((19595u * p[0] + 38470u * p[1] + 7471u * p[2] + 0x8000u) >> 16);
  } else if (channels == 1) {  // gray + alpha
    for (std::size_t i = 0; i < n; ++i) q[i] = p[2 * i];
  } else if (in <= 2) {  // gray (+ alpha) to RGB
    for (std::size_t i = 0; i < n; ++i, p += in) q[3 * i] = q[3 * i + 1] = q[3 * i + 2] = p[0];
  } else {  // RGBA to RGB
    for (std::size_t i = 0; i < n; ++i, p += 4) std::memcpy(q + 3 * i, p, 3);
  }
  return out;
}

void write_png(const std::string& path, const Image& image) {
  check_image(image, "write_png " + path);
  std::string bytes;
  PngState s;
  s.sink = &bytes;
  s.rows.resize(std::size_t(image.rows));
  for (std::size_t r = 0; r < s.rows.size(); ++r)
    s.rows[r] = const_cast<std::uint8_t*>(image.pixels.data()) +  // libpng only reads the rows it writes
                r * std::size_t(image.cols) * std::size_t(image.channels);
  s.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &s, png_error_to_state, png_ignore_warning);
  if (!s.png) throw std::bad_alloc();
  struct Destroy {
    PngState& s;
    ~Destroy() { png_destroy_write_struct(&s.png, s.info ? &s.info : nullptr); }
  } destroy{s};
  s.info = png_create_info_struct(s.png);
  if (!s.info) throw std::bad_alloc();
  if (!png_encode_steps(s, image)) throw std::runtime_error("cannot encode PNG " + path + ": " + s.message);
  write_file_atomically(path, bytes);
}

void write_jpeg(const std::string& path, const Image& image, int quality) {
  check_image(image, "write_jpeg " + path);
  if (image.channels != 1 && image.channels != 3)
    throw std::invalid_argument("write_jpeg " + path + ": JPEG takes 1 or 3 channels, not " +
                                std::to_string(image.channels));
  if (quality < 1 || quality > 100)
    throw std::invalid_argument("write_jpeg " + path + ": quality must lie in 1..100, not " + std::to_string(quality));
  auto s = std::make_unique<JpegEncodeState>();
  const bool ok = jpeg_encode_steps(*s, image, quality);
  std::string bytes;
  if (ok) bytes.assign(reinterpret_cast<const char*>(s->buffer), s->size);
  if (s->created) jpeg_destroy_compress(&s->cinfo);
  std::free(s->buffer);  // jpeg_mem_dest's buffer outlives the compressor and is the caller's to free
  if (!ok) throw std::runtime_error("cannot encode JPEG " + path + ": " + s->err.message);
  write_file_atomically(path, bytes);
}

}  // namespace dmlbench::experiments
