// The image transform presets (transform_presets.hpp): one table, [XHN] Sec 6's pad-crop-flip among them.
#include "dmlbench/experiments/transform_presets.hpp"

namespace dmlbench::experiments {

namespace {
using json = nlohmann::json;

json square_resize(int s) { return {{"op", "resize"}, {"size", {s, s}}}; }
}  // namespace

const std::vector<TransformPreset>& transform_presets() {
  static const std::vector<TransformPreset> table = {
      {"resize", "", false, false, [](int s) { return s > 0 ? json::array({square_resize(s)}) : json::array(); }},
      {"rrc-flip", "", true, true,
       [](int s) { return json::array({{{"op", "random_resized_crop"}, {"size", s}}, {{"op", "hflip"}}}); }},
      {"center-crop", "", true, true,
       [](int s) {
         return json::array({{{"op", "resize"}, {"size", (s * 256 + 112) / 224}}, {{"op", "center_crop"}, {"size", s}}});
       }},
      {"pad-crop-flip", "[XHN] Sec 6", true, true,  // resized to S x S, random crops padded by 10, random flips
       [](int s) {
         return json::array({square_resize(s), {{"op", "pad"}, {"padding", 10}}, {{"op", "random_crop"}, {"size", s}},
                             {{"op", "hflip"}}});
       }},
      {"resize-normalize", "", true, true, [](int s) { return json::array({square_resize(s)}); }},  // eval side
  };
  return table;
}

std::vector<std::string> transform_preset_names() {
  std::vector<std::string> n;
  for (const auto& p : transform_presets()) n.push_back(p.name);
  return n;
}

const TransformPreset* find_transform_preset(const std::string& name) {
  for (const auto& p : transform_presets())
    if (p.name == name) return &p;
  return nullptr;
}

std::string transform_presets_help() {
  std::string out;
  for (const auto& p : transform_presets())
    out += (out.empty() ? "" : " | ") + p.name + (p.cite.empty() ? "" : ", " + p.cite);
  return out;
}

const json& imagenet_normalize_step() {
  static const json step = {{"op", "normalize"}, {"mean", {0.485, 0.456, 0.406}}, {"std", {0.229, 0.224, 0.225}}};
  return step;
}

}  // namespace dmlbench::experiments
