// The image transform presets of dataset.transform_train / transform_eval, named once: the config's
// help, the parser and the pipeline all read this table, so that a preset lives in one place. Presets: resize (to
// image_size x image_size; nothing at the native size), rrc-flip (random resized crop and flip, torchvision's ImageNet
// training transform), center-crop (shorter side to image_size x 256/224, centre crop), pad-crop-flip ([XHN] Sec 6:
// resized, padded by 10, random crop, flip) and resize-normalize (its evaluation side); all but resize append
// torchvision's ImageNet normalisation for 3 channels.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace dmlbench::experiments {

struct TransformPreset {
  std::string name;
  std::string cite;   // where a paper prints it ("" if none)
  bool needs_size;    // refuses dataset.image_size = 0
  bool normalize_rgb;  // appends torchvision's ImageNet mean and std for 3-channel images
  std::function<nlohmann::json(int image_size)> steps;  // its JSON list of transforms (image_transforms.hpp)
};

const std::vector<TransformPreset>& transform_presets();
std::vector<std::string> transform_preset_names();
// The preset named `name`, or nullptr.
const TransformPreset* find_transform_preset(const std::string& name);
// "resize | rrc-flip | ... | pad-crop-flip, [XHN] Sec 6 | resize-normalize" (the config's help)
std::string transform_presets_help();
// torchvision's ImageNet statistics as a normalize step, which the presets append for RGB inputs.
const nlohmann::json& imagenet_normalize_step();

}  // namespace dmlbench::experiments
