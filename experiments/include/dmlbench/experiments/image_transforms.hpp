// Image transforms as torchvision 0.14 applies them to PIL images (resize, RandomResizedCrop, CenterCrop,
// RandomHorizontalFlip, RandomAffine, Pad, ToTensor + Normalize), seeded from a std::mt19937_64 so that a run repeats
// bit for bit, and a TransformPipeline built from a small JSON list. Torch-free.
#pragma once

#include "dmlbench/experiments/image.hpp"

#include <nlohmann/json_fwd.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace dmlbench::experiments {

// A rectangle of an image in pixels: its top-left corner and its size.
struct CropBox {
  int top = 0, left = 0, rows = 0, cols = 0;
};

// Bilinear resampling as PIL's BILINEAR (torchvision's PIL path): half-pixel centres (align_corners=False), edges
// clamped, and when shrinking the triangle filter widened by the shrink factor (antialiased). Computed in float
// and rounded once (PIL rounds after each of its two passes too, so a value can differ from PIL's by 1).
Image resize(const Image& image, int rows, int cols);
// The box of `image`, resampled to rows x cols as resize does (torchvision resized_crop: crop, then resize).
Image resized_crop(const Image& image, const CropBox& box, int rows, int cols);
// torchvision Resize(size) with one number: the shorter side becomes `size`, the longer int(size * long / short).
std::pair<int, int> shorter_side_size(int rows, int cols, int size);
// The box, which must lie inside the image.
Image crop(const Image& image, const CropBox& box);
// torchvision CenterCrop: top = round((H - rows) / 2) with Python's round-half-even; an image smaller than the crop
// is first padded with zeros ((d / 2) before, the rest after).
Image center_crop(const Image& image, int rows, int cols);
Image hflip(const Image& image);
// Constant padding of each side.
Image pad(const Image& image, int left, int top, int right, int bottom, std::uint8_t fill);
// torchvision F.affine on a PIL image (no shear): rotation by `angle_degrees` clockwise and scaling about the image
// centre (W / 2, H / 2), then a translation by (tx, ty) pixels; output pixel centres map back through the inverse,
// sampled bilinearly (edges clamped) where they land inside the image and `fill` where outside.
Image affine(const Image& image, double angle_degrees, double tx, double ty, double scale, std::uint8_t fill);
// ToTensor + Normalize: out[c][y][x] = (v / 255 - mean[c]) / stdev[c] in float, as torchvision computes it; mean
// and stdev hold one value per channel or one for all.
void normalize_to_chw(const Image& image, const std::vector<float>& mean, const std::vector<float>& stdev,
                      float* out);

// Uniform in [0, 1) from the top 53 bits of one draw; the same on every platform (std::uniform_real_distribution
// is not).
double uniform01(std::mt19937_64& rng);
// torchvision RandomResizedCrop.get_params: up to 10 draws of an area fraction in `scale` and a log-uniform aspect
// ratio in `ratio`, the first box that fits (at a uniform position); else the centre crop of the ratio clamped
// into `ratio`.
CropBox random_resized_crop_box(int rows, int cols, std::array<double, 2> scale, std::array<double, 2> ratio,
                                std::mt19937_64& rng);

// A list of transforms from JSON, applied in order to a uint8 image, then normalised into float CHW. Immutable and
// cheap to copy; apply() is safe to call from several threads at once (each with its own generator). Ops and keys
// (defaults in brackets; a size is one number or [rows, cols]):
//   {"op": "resize", "size": S}                    one number: the shorter side (torchvision Resize(int))
//   {"op": "random_resized_crop", "size": S, "scale": [0.08, 1], "ratio": [0.75, 1.3333333333333333]}
//   {"op": "random_crop", "size": S}             a uniform position (torchvision RandomCrop; pad first for its padding)
//   {"op": "center_crop", "size": S}
//   {"op": "hflip", "p": [0.5]}
//   {"op": "random_affine", "degrees": D or [lo, hi], "translate": [fx, fy] [[0, 0]], "scale": [1, 1], "fill": [0]}
//   {"op": "pad", "padding": P, [left/right, top/bottom] or [l, t, r, b] (torchvision's orders), "fill": [0]}
//   {"op": "normalize", "mean": [...], "std": [...]}   last, at most once; without it the output is v / 255
// Unknown ops or keys, wrong types and out-of-range values throw std::invalid_argument naming the step and key.
class TransformPipeline {
 public:
  TransformPipeline();  // no transform: the image as it is, v / 255
  explicit TransformPipeline(const nlohmann::json& spec);
  static TransformPipeline parse(const std::string& json_text);

  // The spec with every default filled in (for a run's resolved config).
  nlohmann::json spec() const;
  // The output rows x cols for an input of rows x cols (every draw gives the same size).
  std::pair<int, int> output_size(int rows, int cols) const;
  // The output size when it does not depend on the input (a resize to [rows, cols] or a crop after the last
  // shorter-side resize, with only flips and affines after it, and pads counted in).
  std::optional<std::pair<int, int>> fixed_output_size() const;
  // No step draws (no random crop, flip or affine): every image gives the same output whatever the seed, so the
  // output may be decoded once and kept.
  bool deterministic() const;
  // std::invalid_argument when normalize's mean/std do not fit `channels`.
  void check_channels(int channels) const;

  Image transform(const Image& image, std::mt19937_64& rng) const;  // the geometric steps, uint8
  void to_chw(const Image& image, float* out) const;                 // normalise (channels x rows x cols floats)
  std::vector<float> apply(const Image& image, std::mt19937_64& rng) const;

 private:
  struct Steps;
  std::shared_ptr<const Steps> steps_;
};

}  // namespace dmlbench::experiments
