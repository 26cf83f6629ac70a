#include "dmlbench/experiments/image_transforms.hpp"

#include "dmlbench/experiments/nearest_name.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <tuple>

namespace dmlbench::experiments {

namespace {

using nlohmann::json;

constexpr double kPi = 3.14159265358979323846;

void check_size(int rows, int cols, const char* what) {
  if (rows < 1 || cols < 1)
    throw std::invalid_argument(std::string(what) + ": output size " + std::to_string(rows) + " x " +
                                std::to_string(cols) + " must be at least 1 x 1");
}

void check_box(const Image& image, const CropBox& box, const char* what) {
  if (box.rows < 1 || box.cols < 1 || box.top < 0 || box.left < 0 || box.top + box.rows > image.rows ||
      box.left + box.cols > image.cols)
    throw std::invalid_argument(std::string(what) + ": box " + std::to_string(box.rows) + " x " +
                                std::to_string(box.cols) + " at (" + std::to_string(box.top) + ", " +
                                std::to_string(box.left) + ") is not inside the " + std::to_string(image.rows) +
                                " x " + std::to_string(image.cols) + " image");
}

Image blank(int rows, int cols, int channels, std::uint8_t fill = 0) {
  return Image{rows, cols, channels,
               std::vector<std::uint8_t>(std::size_t(rows) * std::size_t(cols) * std::size_t(channels), fill)};
}

// PIL's precompute_coeffs for its bilinear (triangle) filter, for a source span of in_size samples.
struct Taps {
  std::vector<int> first, count;
  std::vector<float> weights;  // out_size x stride
  int stride = 0;
};

Taps bilinear_taps(int in_size, int out_size) {
  const double scale = double(in_size) / double(out_size);
  const double filterscale = std::max(scale, 1.0), support = filterscale;
  Taps t;
  t.stride = int(std::ceil(support)) * 2 + 1;
  t.first.resize(std::size_t(out_size));
  t.count.resize(std::size_t(out_size));
  t.weights.assign(std::size_t(out_size) * std::size_t(t.stride), 0.0f);
  std::vector<double> w(std::size_t(t.stride));
  for (int xx = 0; xx < out_size; ++xx) {
    const double center = (xx + 0.5) * scale;
    const int xmin = std::max(int(center - support + 0.5), 0);  // int() truncates, as PIL's (int) cast
    const int xmax = std::min(int(center + support + 0.5), in_size);
    double total = 0.0;
    const int n = std::min(xmax - xmin, t.stride);
    for (int k = 0; k < n; ++k) {
      const double x = std::abs((xmin + k - center + 0.5) / filterscale);
      w[std::size_t(k)] = x < 1.0 ? 1.0 - x : 0.0;
      total += w[std::size_t(k)];
    }
    t.first[std::size_t(xx)] = xmin;
    t.count[std::size_t(xx)] = n;
    for (int k = 0; k < n; ++k) t.weights[std::size_t(xx) * std::size_t(t.stride) + std::size_t(k)] = float(w[std::size_t(k)] / total);
  }
  return t;
}

// Horizontal pass into float rows, then the vertical pass rounded once to uint8.
template <int C>
void resample(const Image& src, const CropBox& box, Image& out) {
  const Taps h = bilinear_taps(box.cols, out.cols), v = bilinear_taps(box.rows, out.rows);
  const std::size_t width = std::size_t(out.cols) * C;
  std::vector<float> tmp(std::size_t(box.rows) * width);
  for (int r = 0; r < box.rows; ++r) {
    const std::uint8_t* srow =
        src.pixels.data() + (std::size_t(box.top + r) * std::size_t(src.cols) + std::size_t(box.left)) * C;
    float* trow = tmp.data() + std::size_t(r) * width;
    for (int x = 0; x < out.cols; ++x) {
      const float* w = &h.weights[std::size_t(x) * std::size_t(h.stride)];
      const std::uint8_t* p = srow + std::size_t(h.first[std::size_t(x)]) * C;
      float acc[C] = {};
      for (int k = 0, n = h.count[std::size_t(x)]; k < n; ++k)
        for (int c = 0; c < C; ++c) acc[c] += w[k] * float(p[k * C + c]);
      for (int c = 0; c < C; ++c) trow[std::size_t(x) * C + std::size_t(c)] = acc[c];
    }
  }
  std::vector<float> acc(width);
  for (int y = 0; y < out.rows; ++y) {
    std::fill(acc.begin(), acc.end(), 0.0f);
    const float* w = &v.weights[std::size_t(y) * std::size_t(v.stride)];
    for (int k = 0, n = v.count[std::size_t(y)]; k < n; ++k) {
      const float* trow = tmp.data() + std::size_t(v.first[std::size_t(y)] + k) * width;
      for (std::size_t i = 0; i < width; ++i) acc[i] += w[k] * trow[i];
    }
    std::uint8_t* orow = out.pixels.data() + std::size_t(y) * width;
    for (std::size_t i = 0; i < width; ++i) orow[i] = std::uint8_t(std::min(acc[i] + 0.5f, 255.0f));
  }
}

// Uniform integer in [0, n), n >= 1, without modulo bias.
int uniform_below(std::mt19937_64& rng, int n) {
  const std::uint64_t m = std::uint64_t(n), limit = std::numeric_limits<std::uint64_t>::max() -
                                                      std::numeric_limits<std::uint64_t>::max() % m;
  std::uint64_t x;
  do x = rng();
  while (x >= limit);
  return int(x % m);
}

double uniform(std::mt19937_64& rng, double lo, double hi) { return lo + (hi - lo) * uniform01(rng); }

int python_round(double x) { return int(std::nearbyint(x)); }  // round half to even, as Python's round()

}  // namespace

Image resized_crop(const Image& image, const CropBox& box, int rows, int cols) {
  check_image(image, "resize");
  check_size(rows, cols, "resize");
  check_box(image, box, "resized_crop");
  Image out = blank(rows, cols, image.channels);
  switch (image.channels) {
    case 1: resample<1>(image, box, out); break;
    case 2: resample<2>(image, box, out); break;
    case 3: resample<3>(image, box, out); break;
    case 4: resample<4>(image, box, out); break;
    default: throw std::invalid_argument("resize: images have 1 to 4 channels, not " + std::to_string(image.channels));
  }
  return out;
}

Image resize(const Image& image, int rows, int cols) {
  return resized_crop(image, CropBox{0, 0, image.rows, image.cols}, rows, cols);
}

std::pair<int, int> shorter_side_size(int rows, int cols, int size) {
  if (rows < 1 || cols < 1 || size < 1)
    throw std::invalid_argument("resize: sizes must be positive (" + std::to_string(rows) + " x " +
                                std::to_string(cols) + " to shorter side " + std::to_string(size) + ")");
  const int shorter = std::min(rows, cols), longer = std::max(rows, cols);
  const int new_longer = int(double(size) * double(longer) / double(shorter));  // Python's int(): truncation
  return cols <= rows ? std::pair{new_longer, size} : std::pair{size, new_longer};
}

Image crop(const Image& image, const CropBox& box) {
  check_image(image, "crop");
  check_box(image, box, "crop");
  Image out = blank(box.rows, box.cols, image.channels);
  const std::size_t c = std::size_t(image.channels), row_bytes = std::size_t(box.cols) * c;
  for (int r = 0; r < box.rows; ++r)
    std::memcpy(out.pixels.data() + std::size_t(r) * row_bytes,
                image.pixels.data() + (std::size_t(box.top + r) * std::size_t(image.cols) + std::size_t(box.left)) * c,
                row_bytes);
  return out;
}

Image center_crop(const Image& image, int rows, int cols) {
  check_image(image, "center_crop");
  check_size(rows, cols, "center_crop");
  if (rows > image.rows || cols > image.cols) {
    const int dr = std::max(rows - image.rows, 0), dc = std::max(cols - image.cols, 0);
    const Image padded = pad(image, dc / 2, dr / 2, (dc + 1) / 2, (dr + 1) / 2, 0);
    return center_crop(padded, rows, cols);
  }
  return crop(image, CropBox{python_round((image.rows - rows) / 2.0), python_round((image.cols - cols) / 2.0), rows,
                             cols});
}

Image hflip(const Image& image) {
  check_image(image, "hflip");
  Image out = blank(image.rows, image.cols, image.channels);
  const std::size_t c = std::size_t(image.channels), cols = std::size_t(image.cols);
  for (std::size_t r = 0; r < std::size_t(image.rows); ++r) {
    const std::uint8_t* in = image.pixels.data() + r * cols * c;
    std::uint8_t* o = out.pixels.data() + r * cols * c;
    for (std::size_t x = 0; x < cols; ++x) std::memcpy(o + x * c, in + (cols - 1 - x) * c, c);
  }
  return out;
}

Image pad(const Image& image, int left, int top, int right, int bottom, std::uint8_t fill) {
  check_image(image, "pad");
  if (left < 0 || top < 0 || right < 0 || bottom < 0)
    throw std::invalid_argument("pad: padding must be >= 0");
  Image out = blank(image.rows + top + bottom, image.cols + left + right, image.channels, fill);
  const std::size_t c = std::size_t(image.channels), row_bytes = std::size_t(image.cols) * c;
  for (int r = 0; r < image.rows; ++r)
    std::memcpy(out.pixels.data() + (std::size_t(r + top) * std::size_t(out.cols) + std::size_t(left)) * c,
                image.pixels.data() + std::size_t(r) * row_bytes, row_bytes);
  return out;
}

Image affine(const Image& image, double angle_degrees, double tx, double ty, double scale, std::uint8_t fill) {
  check_image(image, "affine");
  if (!(scale > 0) || !std::isfinite(scale) || !std::isfinite(angle_degrees) || !std::isfinite(tx) ||
      !std::isfinite(ty))
    throw std::invalid_argument("affine: scale must be > 0 and every parameter finite");
  // torchvision's _get_inverse_affine_matrix with no shear: M = R(angle)^-1 / scale about the centre, then the
  // translation undone.
  const double rot = angle_degrees * kPi / 180.0, cx = image.cols * 0.5, cy = image.rows * 0.5;
  double m[6] = {std::cos(rot) / scale, std::sin(rot) / scale, 0.0, -std::sin(rot) / scale, std::cos(rot) / scale, 0.0};
  m[2] = m[0] * (-cx - tx) + m[1] * (-cy - ty) + cx;
  m[5] = m[3] * (-cx - tx) + m[4] * (-cy - ty) + cy;
  Image out = blank(image.rows, image.cols, image.channels, fill);
  const int c = image.channels, w = image.cols, h = image.rows;
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      // PIL's affine_transform and BILINEAR_HEAD/BODY: a centre landing outside the image takes the fill
      const double u = m[0] * (x + 0.5) + m[1] * (y + 0.5) + m[2], v = m[3] * (x + 0.5) + m[4] * (y + 0.5) + m[5];
      if (u < 0.0 || u >= w || v < 0.0 || v >= h) continue;
      const double fx = u - 0.5, fy = v - 0.5, x0f = std::floor(fx), y0f = std::floor(fy);
      const double dx = fx - x0f, dy = fy - y0f;
      const int x0 = std::max(int(x0f), 0), x1 = std::min(int(x0f) + 1, w - 1);
      const int y0 = std::max(int(y0f), 0), y1 = std::min(int(y0f) + 1, h - 1);
      const std::uint8_t* p00 = &image.pixels[(std::size_t(y0) * std::size_t(w) + std::size_t(x0)) * std::size_t(c)];
      const std::uint8_t* p01 = &image.pixels[(std::size_t(y0) * std::size_t(w) + std::size_t(x1)) * std::size_t(c)];
      const std::uint8_t* p10 = &image.pixels[(std::size_t(y1) * std::size_t(w) + std::size_t(x0)) * std::size_t(c)];
      const std::uint8_t* p11 = &image.pixels[(std::size_t(y1) * std::size_t(w) + std::size_t(x1)) * std::size_t(c)];
      std::uint8_t* o = &out.pixels[(std::size_t(y) * std::size_t(w) + std::size_t(x)) * std::size_t(c)];
      for (int k = 0; k < c; ++k) {
        const double top = p00[k] + (p01[k] - p00[k]) * dx, bottom = p10[k] + (p11[k] - p10[k]) * dx;
        o[k] = std::uint8_t(std::min(top + (bottom - top) * dy + 0.5, 255.0));
      }
    }
  }
  return out;
}

void normalize_to_chw(const Image& image, const std::vector<float>& mean, const std::vector<float>& stdev,
                      float* out) {
  check_image(image, "normalize");
  const std::size_t c = std::size_t(image.channels), n = std::size_t(image.rows) * std::size_t(image.cols);
  if ((mean.size() != 1 && mean.size() != c) || mean.size() != stdev.size())
    throw std::invalid_argument("normalize: " + std::to_string(mean.size()) + " means and " +
                                std::to_string(stdev.size()) + " stds for an image of " + std::to_string(c) +
                                " channels (give one per channel, or one for all)");
  for (std::size_t k = 0; k < c; ++k) {
    const float m = mean[mean.size() == 1 ? 0 : k], s = stdev[stdev.size() == 1 ? 0 : k];
    const std::uint8_t* p = image.pixels.data() + k;
    float* o = out + k * n;
    for (std::size_t i = 0; i < n; ++i) o[i] = (float(p[i * c]) / 255.0f - m) / s;
  }
}

double uniform01(std::mt19937_64& rng) { return double(rng() >> 11) * 0x1.0p-53; }

CropBox random_resized_crop_box(int rows, int cols, std::array<double, 2> scale, std::array<double, 2> ratio,
                                std::mt19937_64& rng) {
  if (rows < 1 || cols < 1 || !(scale[0] > 0) || !(scale[0] <= scale[1]) || !(ratio[0] > 0) ||
      !(ratio[0] <= ratio[1]) || !std::isfinite(scale[1]) || !std::isfinite(ratio[1]))
    throw std::invalid_argument("random_resized_crop: needs an image and ranges 0 < lo <= hi");
  const double area = double(rows) * double(cols), log_lo = std::log(ratio[0]), log_hi = std::log(ratio[1]);
  for (int attempt = 0; attempt < 10; ++attempt) {
    const double target_area = area * uniform(rng, scale[0], scale[1]);
    const double aspect = std::exp(uniform(rng, log_lo, log_hi));
    const int w = python_round(std::sqrt(target_area * aspect)), h = python_round(std::sqrt(target_area / aspect));
    if (0 < w && w <= cols && 0 < h && h <= rows) {
      const int top = uniform_below(rng, rows - h + 1);
      const int left = uniform_below(rng, cols - w + 1);
      return CropBox{top, left, h, w};
    }
  }
  const double in_ratio = double(cols) / double(rows);
  int w = cols, h = rows;
  if (in_ratio < ratio[0]) {
    h = python_round(w / ratio[0]);
  } else if (in_ratio > ratio[1]) {
    w = python_round(h * ratio[1]);
  }
  return CropBox{(rows - h) / 2, (cols - w) / 2, h, w};
}

// ---- the pipeline

namespace {

struct Step {
  enum class Kind { resize_exact, resize_shorter, random_resized_crop, random_crop, center_crop, hflip, random_affine, pad } kind;
  int rows = 0, cols = 0;                        // the sizes; resize_shorter keeps its size in rows
  std::array<double, 2> scale{1, 1}, ratio{1, 1};  // random_resized_crop; random_affine's scale
  std::array<double, 2> degrees{0, 0}, translate{0, 0};
  double p = 0.5;
  std::array<int, 4> padding{0, 0, 0, 0};  // left, top, right, bottom
  std::uint8_t fill = 0;
};

// Reads the keys of one step of the spec; every message names the step, its op and the key.
class StepReader {
 public:
  StepReader(const json& step, std::size_t index, std::string op, std::vector<std::string> keys)
      : j_(step), where_("transform " + std::to_string(index) + " (" + std::move(op) + ")") {
    keys.insert(keys.begin(), "op");
    for (const auto& [key, value] : step.items()) {
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
        throw std::invalid_argument(where_ + ": unknown key \"" + key + "\" (valid: " + joined_names(keys) + ")");
      }
    }
  }
  [[noreturn]] void fail(const std::string& key, const std::string& message) const {
    throw std::invalid_argument(where_ + ": \"" + key + "\" " + message + ", got " + j_.at(key).dump());
  }
  bool has(const std::string& key) const { return j_.contains(key); }
  void require(const std::string& key) const {
    if (!has(key)) throw std::invalid_argument(where_ + ": missing \"" + key + "\"");
  }
  int integer(const std::string& key, int lo, int hi, const json& value) const {
    if (!value.is_number_integer() || value.get<long long>() < lo || value.get<long long>() > hi)
      fail(key, "must be an integer in " + std::to_string(lo) + ".." + std::to_string(hi));
    return value.get<int>();
  }
  int integer(const std::string& key, int lo, int hi, int fallback) const {
    return has(key) ? integer(key, lo, hi, j_.at(key)) : fallback;
  }
  double number(const std::string& key, double lo, double hi, const json& value) const {
    if (!value.is_number() || !(value.get<double>() >= lo) || !(value.get<double>() <= hi))
      fail(key, "must be a number in [" + json(lo).dump() + ", " + json(hi).dump() + "]");
    return value.get<double>();
  }
  // A size: one number (square, or the shorter side) or [rows, cols].
  std::pair<int, int> size(const std::string& key) const {
    require(key);
    const json& v = j_.at(key);
    if (v.is_array() && v.size() == 2) return {integer(key, 1, 1 << 16, v[0]), integer(key, 1, 1 << 16, v[1])};
    if (v.is_array()) fail(key, "must be one size or [rows, cols]");
    const int s = integer(key, 1, 1 << 16, v);
    return {s, s};
  }
  bool size_is_one_number(const std::string& key) const { return !j_.at(key).is_array(); }
  // [lo, hi] with bound_lo <= lo <= hi <= bound_hi (lo > 0 when positive).
  std::array<double, 2> range(const std::string& key, std::array<double, 2> fallback, double bound_lo,
                              double bound_hi, bool positive) const {
    if (!has(key)) return fallback;
    const json& v = j_.at(key);
    const std::string expect = std::string("must be [lo, hi] with ") + (positive ? "0 < " : json(bound_lo).dump() +
                               " <= ") + "lo <= hi <= " + json(bound_hi).dump();
    if (!v.is_array() || v.size() != 2 || !v[0].is_number() || !v[1].is_number()) fail(key, expect);
    const std::array<double, 2> r{v[0].get<double>(), v[1].get<double>()};
    if (!(r[0] >= bound_lo) || (positive && !(r[0] > 0)) || !(r[0] <= r[1]) || !(r[1] <= bound_hi)) fail(key, expect);
    return r;
  }
  std::vector<float> floats(const std::string& key, bool positive) const {
    require(key);
    const json& v = j_.at(key);
    const std::string expect = positive ? "must be a non-empty list of numbers > 0" : "must be a non-empty list of numbers";
    if (!v.is_array() || v.empty()) fail(key, expect);
    std::vector<float> out;
    for (const auto& x : v) {
      if (!x.is_number() || !std::isfinite(x.get<double>()) || (positive && !(x.get<double>() > 0))) fail(key, expect);
      out.push_back(x.get<float>());
    }
    return out;
  }
  const std::string& where() const { return where_; }

 private:
  const json& j_;
  std::string where_;
};

const std::vector<std::string> kOps = {"resize", "random_resized_crop", "random_crop", "center_crop", "hflip",
                                       "random_affine", "pad", "normalize"};

}  // namespace

struct TransformPipeline::Steps {
  std::vector<Step> steps;
  bool normalize = false;
  std::vector<float> mean, std;
  json spec = json::array();
};

TransformPipeline::TransformPipeline() : steps_(std::make_shared<Steps>()) {}

TransformPipeline::TransformPipeline(const json& spec) {
  auto s = std::make_shared<Steps>();
  if (!spec.is_array()) throw std::invalid_argument("transforms: the spec must be a JSON list of steps, got " + spec.dump());
  for (std::size_t i = 0; i < spec.size(); ++i) {
    const json& j = spec[i];
    const std::string at = "transform " + std::to_string(i);
    if (!j.is_object() || !j.contains("op") || !j.at("op").is_string())
      throw std::invalid_argument(at + ": each step must be an object with an \"op\" name, got " + j.dump());
    const std::string op = j.at("op").get<std::string>();
    if (s->normalize) throw std::invalid_argument(at + " (" + op + "): normalize must be the last step");
    Step st{};
    json resolved = j;
    if (op == "resize") {
      const StepReader r(j, i, op, {"size"});
      const auto [rows, cols] = r.size("size");
      st.kind = r.size_is_one_number("size") ? Step::Kind::resize_shorter : Step::Kind::resize_exact;
      st.rows = rows;
      st.cols = cols;
    } else if (op == "random_resized_crop") {
      const StepReader r(j, i, op, {"size", "scale", "ratio"});
      st.kind = Step::Kind::random_resized_crop;
      std::tie(st.rows, st.cols) = r.size("size");
      st.scale = r.range("scale", {0.08, 1.0}, 0.0, 1e6, true);
      st.ratio = r.range("ratio", {3.0 / 4.0, 4.0 / 3.0}, 0.0, 1e6, true);
      resolved["scale"] = st.scale;
      resolved["ratio"] = st.ratio;
    } else if (op == "random_crop") {
      const StepReader r(j, i, op, {"size"});
      st.kind = Step::Kind::random_crop;
      std::tie(st.rows, st.cols) = r.size("size");
    } else if (op == "center_crop") {
      const StepReader r(j, i, op, {"size"});
      st.kind = Step::Kind::center_crop;
      std::tie(st.rows, st.cols) = r.size("size");
    } else if (op == "hflip") {
      const StepReader r(j, i, op, {"p"});
      st.kind = Step::Kind::hflip;
      st.p = r.has("p") ? r.number("p", 0.0, 1.0, j.at("p")) : 0.5;
      resolved["p"] = st.p;
    } else if (op == "random_affine") {
      const StepReader r(j, i, op, {"degrees", "translate", "scale", "fill"});
      st.kind = Step::Kind::random_affine;
      r.require("degrees");
      if (j.at("degrees").is_array()) {
        st.degrees = r.range("degrees", {}, -360.0, 360.0, false);
      } else {
        const double d = r.number("degrees", 0.0, 360.0, j.at("degrees"));
        st.degrees = {-d, d};
      }
      if (r.has("translate")) {
        const json& v = j.at("translate");
        if (!v.is_array() || v.size() != 2) r.fail("translate", "must be [fraction of width, fraction of height]");
        st.translate = {r.number("translate", 0.0, 1.0, v[0]), r.number("translate", 0.0, 1.0, v[1])};
      }
      st.scale = r.range("scale", {1.0, 1.0}, 0.0, 1e6, true);
      st.fill = std::uint8_t(r.integer("fill", 0, 255, 0));
      resolved["degrees"] = st.degrees;
      resolved["translate"] = st.translate;
      resolved["scale"] = st.scale;
      resolved["fill"] = st.fill;
    } else if (op == "pad") {
      const StepReader r(j, i, op, {"padding", "fill"});
      st.kind = Step::Kind::pad;
      r.require("padding");
      const json& v = j.at("padding");
      if (v.is_array() && v.size() == 2) {
        const int lr = r.integer("padding", 0, 1 << 16, v[0]), tb = r.integer("padding", 0, 1 << 16, v[1]);
        st.padding = {lr, tb, lr, tb};
      } else if (v.is_array() && v.size() == 4) {
        for (std::size_t k = 0; k < 4; ++k) st.padding[k] = r.integer("padding", 0, 1 << 16, v[k]);
      } else if (v.is_array()) {
        r.fail("padding", "must be one number, [left/right, top/bottom] or [left, top, right, bottom]");
      } else {
        const int p = r.integer("padding", 0, 1 << 16, v);
        st.padding = {p, p, p, p};
      }
      st.fill = std::uint8_t(r.integer("fill", 0, 255, 0));
      resolved["fill"] = st.fill;
    } else if (op == "normalize") {
      const StepReader r(j, i, op, {"mean", "std"});
      s->mean = r.floats("mean", false);
      s->std = r.floats("std", true);
      if (s->mean.size() != s->std.size())
        throw std::invalid_argument(r.where() + ": " + std::to_string(s->mean.size()) + " means but " +
                                    std::to_string(s->std.size()) + " stds");
      s->normalize = true;
      s->spec.push_back(resolved);
      continue;
    } else {
      throw std::invalid_argument(at + ": unknown op \"" + op + "\" (valid: " + joined_names(kOps) + ")");
    }
    s->steps.push_back(st);
    s->spec.push_back(resolved);
  }
  steps_ = std::move(s);
}

TransformPipeline TransformPipeline::parse(const std::string& json_text) {
  json spec;
  try {
    spec = json::parse(json_text);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number beyond double
    throw std::invalid_argument(std::string("transforms: not valid JSON: ") + e.what());
  }
  return TransformPipeline(spec);
}

json TransformPipeline::spec() const { return steps_->spec; }

std::pair<int, int> TransformPipeline::output_size(int rows, int cols) const {
  for (const Step& st : steps_->steps) {
    switch (st.kind) {
      case Step::Kind::resize_shorter: std::tie(rows, cols) = shorter_side_size(rows, cols, st.rows); break;
      case Step::Kind::resize_exact:
      case Step::Kind::random_resized_crop:
      case Step::Kind::random_crop:
      case Step::Kind::center_crop: rows = st.rows, cols = st.cols; break;
      case Step::Kind::pad: rows += st.padding[1] + st.padding[3], cols += st.padding[0] + st.padding[2]; break;
      case Step::Kind::hflip:
      case Step::Kind::random_affine: break;
    }
  }
  return {rows, cols};
}

std::optional<std::pair<int, int>> TransformPipeline::fixed_output_size() const {
  std::optional<std::pair<int, int>> size;
  for (const Step& st : steps_->steps) {
    if (st.kind == Step::Kind::resize_shorter) {
      size.reset();
    } else if (st.kind == Step::Kind::resize_exact || st.kind == Step::Kind::random_resized_crop ||
               st.kind == Step::Kind::random_crop || st.kind == Step::Kind::center_crop) {
      size = std::pair{st.rows, st.cols};
    } else if (st.kind == Step::Kind::pad && size) {
      size->first += st.padding[1] + st.padding[3];
      size->second += st.padding[0] + st.padding[2];
    }
  }
  return size;
}

bool TransformPipeline::deterministic() const {
  for (const Step& st : steps_->steps)
    if (st.kind == Step::Kind::random_resized_crop || st.kind == Step::Kind::random_crop ||
        st.kind == Step::Kind::hflip || st.kind == Step::Kind::random_affine)
      return false;
  return true;
}

void TransformPipeline::check_channels(int channels) const {
  if (steps_->normalize && steps_->mean.size() != 1 && steps_->mean.size() != std::size_t(channels))
    throw std::invalid_argument("transforms: normalize has " + std::to_string(steps_->mean.size()) +
                                " means and stds for images of " + std::to_string(channels) +
                                " channels (give one per channel, or one for all)");
}

Image TransformPipeline::transform(const Image& image, std::mt19937_64& rng) const {
  check_image(image, "transforms");
  Image buf;
  const Image* cur = &image;
  for (const Step& st : steps_->steps) {
    switch (st.kind) {
      case Step::Kind::resize_exact: buf = resize(*cur, st.rows, st.cols); break;
      case Step::Kind::resize_shorter: {
        const auto [rows, cols] = shorter_side_size(cur->rows, cur->cols, st.rows);
        buf = resize(*cur, rows, cols);
        break;
      }
      case Step::Kind::random_resized_crop:
        buf = resized_crop(*cur, random_resized_crop_box(cur->rows, cur->cols, st.scale, st.ratio, rng), st.rows,
                           st.cols);
        break;
      case Step::Kind::random_crop: {  // torchvision RandomCrop without padding: a uniform position, rows first
        if (st.rows > cur->rows || st.cols > cur->cols)
          throw std::invalid_argument("random_crop: a " + std::to_string(st.rows) + " x " + std::to_string(st.cols) +
                                      " crop of a " + std::to_string(cur->rows) + " x " + std::to_string(cur->cols) +
                                      " image (pad or resize it first)");
        const int top = std::uniform_int_distribution<int>(0, cur->rows - st.rows)(rng);
        const int left = std::uniform_int_distribution<int>(0, cur->cols - st.cols)(rng);
        buf = crop(*cur, CropBox{top, left, st.rows, st.cols});
        break;
      }
      case Step::Kind::center_crop: buf = center_crop(*cur, st.rows, st.cols); break;
      case Step::Kind::hflip:
        if (uniform01(rng) >= st.p) continue;  // torchvision: flip when rand < p (one draw either way)
        buf = hflip(*cur);
        break;
      case Step::Kind::random_affine: {
        // torchvision RandomAffine.get_params, in its order: angle, translation (rounded to pixels), scale
        const double angle = uniform(rng, st.degrees[0], st.degrees[1]);
        const double max_dx = st.translate[0] * cur->cols, max_dy = st.translate[1] * cur->rows;
        const double tx = python_round(uniform(rng, -max_dx, max_dx));
        const double ty = python_round(uniform(rng, -max_dy, max_dy));
        const double scale = uniform(rng, st.scale[0], st.scale[1]);
        buf = affine(*cur, angle, tx, ty, scale, st.fill);
        break;
      }
      case Step::Kind::pad:
        buf = pad(*cur, st.padding[0], st.padding[1], st.padding[2], st.padding[3], st.fill);
        break;
    }
    cur = &buf;
  }
  return cur == &image ? image : std::move(buf);
}

void TransformPipeline::to_chw(const Image& image, float* out) const {
  static const std::vector<float> kZero{0.0f}, kOne{1.0f};
  if (steps_->normalize)
    normalize_to_chw(image, steps_->mean, steps_->std, out);
  else
    normalize_to_chw(image, kZero, kOne, out);
}

std::vector<float> TransformPipeline::apply(const Image& image, std::mt19937_64& rng) const {
  const Image t = transform(image, rng);
  std::vector<float> out(t.pixels.size());
  to_chw(t, out.data());
  return out;
}

}  // namespace dmlbench::experiments
