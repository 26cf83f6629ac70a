// Entry point of the LibTorch sub-commands (info; later train), called by apps/ through dlopen.
#include "dmlbench/experiments/atomic_file.hpp"
#include "dmlbench/experiments/device.hpp"
#include "dmlbench/experiments/evenodd_training.hpp"
#include "dmlbench/experiments/heap_policy.hpp"

#include <boost/math/distributions/students_t.hpp>
#include <nlohmann/json.hpp>

#include <CLI/CLI.hpp>
#include <Eigen/Core>
#include <boost/version.hpp>

#include <exception>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

extern "C" int dmlbench_torch_command(int argc, char** argv) {
  dmlbench::experiments::keep_freed_memory_in_heap();
  CLI::App app{"dmlbench LibTorch commands"};
  app.name("dmlbench");
  app.require_subcommand(1);
  auto* info = app.add_subcommand("info", "versions of the libraries and the device --device auto selects");
  info->callback([] {
    std::cout << "dmlbench " << DMLBENCH_VERSION << " (" << DMLBENCH_GIT_REV << ")\n"
              << "Eigen " << EIGEN_WORLD_VERSION << "." << EIGEN_MAJOR_VERSION << "." << EIGEN_MINOR_VERSION
              << ", Boost " << BOOST_VERSION / 100000 << "." << BOOST_VERSION / 100 % 1000 << "\n"
              << dmlbench::experiments::describe_torch() << "\n"
              << "--device auto selects: " << dmlbench::experiments::resolve_device("auto") << "\n";
  });
  namespace ex = dmlbench::experiments;
  auto* train = app.add_subcommand("train", "metric-learning training runs (LibTorch)");
  train->require_subcommand(1);
  auto* eo = train->add_subcommand("mnist-evenodd", "[LCC] Sec 5.1: train on digits 0-5 with parity labels, triplet vs "
                                                    "triplet + EPS, Recall@K with digit labels (Table 1, Fig 2)");
  auto cfg = std::make_shared<ex::EvenOddConfig>();
  auto samplers = std::make_shared<std::string>("both");
  auto seeds = std::make_shared<int>(5);
  eo->add_option("--data-dir", cfg->data_dir, "MNIST layout folder (prefix train), e.g. data/mnist")->required();
  eo->add_option("--out", cfg->out_dir, "output folder")->required();
  eo->add_option("--sampler", *samplers, "random | eps | both")->capture_default_str();
  eo->add_option("--seeds", *seeds, "number of seeds (1, 2, ...)")->capture_default_str();
  eo->add_option("--epochs", cfg->epochs)->capture_default_str();
  eo->add_option("--samples-per-class", cfg->samples_per_class, "batch = 2 x this")->capture_default_str();
  eo->add_option("--lr", cfg->lr)->capture_default_str();
  eo->add_option("--margin", cfg->margin, "triplet margin, in units of --distance")->capture_default_str();
  eo->add_option("--distance", cfg->distance, "squared | euclidean (triplet loss and miner)")->capture_default_str();
  eo->add_flag("--normalize", cfg->normalize, "L2-normalise the embedding (the unit circle in 2-D)");
  eo->add_option("--holdout", cfg->holdout, "held-out fraction of digits 0-5")->capture_default_str();
  eo->add_option("--max-steps", cfg->max_steps, "stop each run after this many steps (smoke runs)")->capture_default_str();
  eo->add_option("--device", cfg->device, "auto | cpu | cuda")->capture_default_str();
  eo->add_option("--kernels", cfg->kernels, "fused (ReLU-BN-pool fused on the CPU) | stock (torch::nn modules)")
      ->capture_default_str();
  eo->add_flag("--resume", cfg->resume, "continue runs from their checkpoints");
  eo->callback([cfg, samplers, seeds] {
    if (*seeds < 1) throw std::invalid_argument("--seeds must be >= 1");
    std::vector<std::string> which = *samplers == "both" ? std::vector<std::string>{"random", "eps"}
                                                         : std::vector<std::string>{*samplers};
    using json = nlohmann::ordered_json;
    std::map<std::string, std::vector<ex::EvenOddResult>> res;
    const std::string root = cfg->out_dir;
    for (const auto& smp : which)
      for (int k = 1; k <= *seeds; ++k) {
        ex::EvenOddConfig c = *cfg;
        c.sampler = smp;
        c.seed = std::uint64_t(k);
        c.out_dir = (std::filesystem::path(root) / smp / ("seed" + std::to_string(k))).string();
        res[smp].push_back(ex::train_evenodd(c, std::cerr));
      }
    // the paper's Table 1 (R@1, R@5, R@10; train digits then test digits) and our mean +- std
    const std::map<std::string, std::vector<double>> paper = {{"random", {42.0, 87.5, 96.6, 35.2, 80.9, 93.3}},
                                                              {"eps", {65.8, 93.6, 97.4, 42.3, 83.9, 93.6}}};
    auto stats = [](const std::vector<double>& v) {
      double m = 0, s = 0;
      for (double x : v) m += x;
      m /= double(v.size());
      for (double x : v) s += (x - m) * (x - m);
      return std::pair{m, v.size() > 1 ? std::sqrt(s / double(v.size() - 1)) : 0.0};
    };
    json summary = {{"config", {{"experiment", "mnist-evenodd"}, {"samplers", which}, {"seeds", *seeds},
                                {"epochs", cfg->epochs}, {"samples_per_class", cfg->samples_per_class},
                                {"lr", cfg->lr}, {"margin", cfg->margin}, {"distance", cfg->distance},
                                {"normalize", cfg->normalize}, {"holdout", cfg->holdout}, {"kernels", cfg->kernels},
                                {"max_steps", cfg->max_steps}, {"data_dir", cfg->data_dir}}},
                    {"git_revision", DMLBENCH_GIT_REV}, {"paper", "LCC Table 1"}, {"rows", json::array()}};
    const char* names[] = {"R@1 train digits", "R@5 train digits", "R@10 train digits", "R@1 test digits",
                           "R@5 test digits", "R@10 test digits"};
    std::cout << std::left << std::setw(20) << "metric (%)";
    for (const auto& smp : which) std::cout << std::setw(18) << ("ours " + smp) << std::setw(10) << ("paper");
    std::cout << "\n";
    std::map<std::string, std::vector<std::vector<double>>> per_metric;  // sampler -> metric -> seeds
    for (const auto& smp : which) {
      per_metric[smp].assign(6, {});
      for (const auto& r : res[smp])
        for (int m = 0; m < 3; ++m) {
          per_metric[smp][std::size_t(m)].push_back(100 * r.recall_train_digits[std::size_t(m)]);
          per_metric[smp][std::size_t(m + 3)].push_back(100 * r.recall_test_digits[std::size_t(m)]);
        }
    }
    for (int m = 0; m < 6; ++m) {
      json row = {{"metric", names[m]}};
      std::cout << std::left << std::setw(20) << names[m];
      for (const auto& smp : which) {
        const auto [mean, sd] = stats(per_metric[smp][std::size_t(m)]);
        std::ostringstream cell;
        cell << std::fixed << std::setprecision(1) << mean << " +- " << sd;
        std::ostringstream pp;
        pp << std::fixed << std::setprecision(1) << paper.at(smp)[std::size_t(m)];
        std::cout << std::setw(18) << cell.str() << std::setw(10) << pp.str();
        row[smp] = {{"mean", mean}, {"std", sd}, {"seeds", per_metric[smp][std::size_t(m)]},
                    {"paper", paper.at(smp)[std::size_t(m)]}};
      }
      if (which.size() == 2) {  // Welch's t-test, EPS minus random
        const auto& a = per_metric["eps"][std::size_t(m)];
        const auto& b = per_metric["random"][std::size_t(m)];
        const auto [ma, sa] = stats(a);
        const auto [mb, sb] = stats(b);
        const double va = sa * sa / double(a.size()), vb = sb * sb / double(b.size());
        double p = NAN, tstat = NAN;
        if (va + vb > 0 && a.size() > 1) {
          tstat = (ma - mb) / std::sqrt(va + vb);
          const double df = (va + vb) * (va + vb) / (va * va / double(a.size() - 1) + vb * vb / double(b.size() - 1));
          p = 2 * boost::math::cdf(boost::math::complement(boost::math::students_t(df), std::abs(tstat)));
        }
        const bool paper_dir = paper.at("eps")[std::size_t(m)] > paper.at("random")[std::size_t(m)];
        row["eps_minus_random"] = ma - mb;
        row["welch_t"] = tstat;
        row["p_value"] = p;
        row["paper_direction_holds"] = (ma > mb) == paper_dir;
        std::ostringstream d;
        d << std::fixed << std::showpos << std::setprecision(1) << ma - mb << std::noshowpos << " (Welch p = "
          << std::setprecision(3) << p << ")";
        std::cout << "  EPS-random " << d.str();
      }
      std::cout << "\n";
      summary["rows"].push_back(row);
    }
    // not in [LCC] Table 1, but what tells collapse from sub-clusters: how well the trained embedding orders random
    // held-out parity triplets (collapse orders them all), k-means NMI with digit labels, and NMI / NMI+ with parity
    json diag = json::object();
    for (const auto& smp : which) {
      std::vector<double> acc0, acc1, nmi_tr, nmi_te, nmi_p, nmi_pp;
      for (const auto& r : res[smp]) {
        acc0.push_back(r.triplet_accuracy_before);
        acc1.push_back(r.triplet_accuracy_after);
        nmi_tr.push_back(r.nmi_train_digits);
        nmi_te.push_back(r.nmi_test_digits);
        nmi_p.push_back(r.nmi_parity);
        nmi_pp.push_back(r.nmi_plus_parity);
      }
      auto ms = [&](const std::vector<double>& v) {
        const auto [m, sd] = stats(v);
        return json{{"mean", m}, {"std", sd}, {"seeds", v}};
      };
      diag[smp] = {{"heldout_triplet_accuracy_before", ms(acc0)}, {"heldout_triplet_accuracy_after", ms(acc1)},
                   {"nmi_train_digits", ms(nmi_tr)}, {"nmi_test_digits", ms(nmi_te)},
                   {"nmi_parity_k2", ms(nmi_p)}, {"nmi_plus_parity_k20", ms(nmi_pp)}};
    }
    summary["diagnostics"] = diag;
    const auto path = (std::filesystem::path(root) / "summary.json").string();
    ex::write_file_atomically(path, summary.dump(2) + "\n");
    std::cout << "wrote " << path << "\n";
  });

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::cerr << "dmlbench: error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
