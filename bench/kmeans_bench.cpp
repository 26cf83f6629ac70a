// k-means for NMI at scale: dmlbench's kmeans (kmeans.hpp) on an embedding file, its rows L2-normalised as the cosine
// evaluation clusters them; prints one JSON line with the seeding and Lloyd cost, the rows the bounds skipped and a
// hash of the assignment (equal hashes: the same clustering). Run by bench/kmeans_bench.py beside faiss's k-means on
// the same rows and threads.
//   bench_kmeans EMBEDDINGS K ITERATIONS THREADS [MODE]
// MODE: bounds (default: Yinyang bounds, k-means++ draws computed where they can matter), plain (every row every
// iteration and torch::multinomial's draws: the loop as it was before the bounds), plain-draws (the plain loop with
// the faster draws).
#include "dmlbench/experiments/blas_info.hpp"
#include "dmlbench/experiments/embedding_file.hpp"
#include "dmlbench/experiments/kmeans.hpp"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

namespace ex = dmlbench::experiments;

int main(int argc, char** argv) {
  if (argc != 5 && argc != 6) {
    std::cerr << "usage: bench_kmeans EMBEDDINGS K ITERATIONS THREADS [bounds|plain|plain-draws]\n";
    return 2;
  }
  try {
    const int k = std::stoi(argv[2]), iterations = std::stoi(argv[3]);
    const std::string mode = argc == 6 ? argv[5] : "bounds";
    ex::KMeansOptions o;
    o.iterations = iterations;
    if (mode == "plain") {
      o.bounds = false;
      o.fast_draws = false;
    } else if (mode == "plain-draws") {
      o.bounds = false;
    } else if (mode != "bounds") {
      throw std::invalid_argument("MODE must be bounds, plain or plain-draws, got " + mode);
    }
    ex::set_compute_threads(std::stoi(argv[4]));
    auto m = ex::read_embedding_file(argv[1]);
    const auto x = torch::nn::functional::normalize(torch::from_blob(m.values.data(), {m.rows, m.cols}),
                                                    torch::nn::functional::NormalizeFuncOptions().dim(1));
    ex::KMeansStats st;
    const auto t0 = std::chrono::steady_clock::now();
    const auto a = ex::kmeans(x, k, 0, o, &st);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::uint64_t hash = 1469598103934665603ull;  // FNV-1a of the cluster ids
    for (int c : a) hash = (hash ^ std::uint64_t(std::uint32_t(c))) * 1099511628211ull;
    std::cout << nlohmann::json{{"mode", mode}, {"rows", m.rows}, {"dims", m.cols}, {"k", k},
                                {"seeding", st.seeding}, {"seeding_seconds", st.seeding_seconds},
                                {"iterations", st.iterations}, {"converged", st.converged},
                                {"seconds_per_iteration", st.seconds_per_iteration},
                                {"lloyd_seconds", st.seconds_per_iteration * st.iterations},
                                {"flops_per_iteration", st.flops_per_iteration}, {"groups", st.groups},
                                {"rows_scored", st.rows_scored}, {"rows_replayed", st.rows_replayed},
                                {"same_bits", st.same_bits},
                                {"rows_skipped_fraction",
                                 1.0 - double(st.rows_scored) / (double(m.rows) * st.iterations)},
                                {"seconds", seconds}, {"assignment_hash", std::to_string(hash)},
                                {"blas", ex::describe_blas()}}
                     .dump()
              << "\n";
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
