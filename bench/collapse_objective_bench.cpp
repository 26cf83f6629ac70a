// Times objective + gradient evaluations per second of E O_trip and E O_EPStrip ([LCC] Thm 1, App. B) on given
// points; prints one JSON line per (objective, repetition) with the value and gradient norm, so that
// bench/collapse_objective_bench.py can check them against its PyTorch-autograd reference in the same run.
#include "dmlbench/sims/noisy_label_objective.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>
#include <iostream>
#include <string>

int main(int argc, char** argv) {
  namespace sm = dmlbench::sims;
  std::string points;
  int n = 32, t = 2, dim = 8, reps = 3;
  double p = 0.8, alpha = 0.2, min_seconds = 0.5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--points") points = v;
    else if (k == "--n") n = std::stoi(v);
    else if (k == "--classes") t = std::stoi(v);
    else if (k == "--dim") dim = std::stoi(v);
    else if (k == "--p-correct") p = std::stod(v);  // p = P(correct label)
    else if (k == "--noise") {
      std::cerr << "bench_collapse_objective: --noise was renamed --p-correct (p = P(correct label))\n";
      return 2;
    }
    else if (k == "--margin") alpha = std::stod(v);
    else if (k == "--reps") reps = std::stoi(v);
    else if (k == "--min-seconds") min_seconds = std::stod(v);
    else {
      std::cerr << "usage: bench_collapse_objective --points FILE [--n N --classes T --dim M --p-correct P "
                   "--margin A]\n";
      return 2;
    }
  }
  std::vector<double> x(std::size_t(n * dim));
  std::ifstream f(points);
  for (auto& v : x)
    if (!(f >> v)) {
      std::cerr << "bench_collapse_objective: cannot read " << n * dim << " coordinates from '" << points << "'\n";
      return 2;
    }
  for (auto sampling : {sm::Sampling::all, sm::Sampling::eps}) {
    sm::ObjectiveConfig c;
    c.objective = sm::Objective::triplet;
    c.sampling = sampling;
    c.model = {n, t, p, sm::Triples::distinct};
    c.alpha = alpha;
    c.dim = dim;
    c.validate();
    std::vector<double> g(x.size());
    for (int r = 0; r < reps; ++r) {
      int evals = 0;
      double value = 0;
      const auto t0 = std::chrono::steady_clock::now();
      double s = 0;
      do {
        value = sm::expected_objective(c, x.data(), g.data());
        ++evals;
        s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      } while (s < min_seconds);
      double gn = 0;
      for (double v : g) gn += v * v;
      std::cout << nlohmann::json{{"impl", "cpp"}, {"objective", sampling == sm::Sampling::all ? "trip" : "eps_trip"},
                                  {"n", n}, {"rep", r}, {"evals_per_second", evals / s}, {"value", value},
                                  {"grad_norm", std::sqrt(gn)}}
                       .dump()
                << std::endl;
    }
  }
  return 0;
}
