// k-means for NMI at scale (issue 30 item 5): dmlbench's kmeans (kmeans.hpp) on an embedding file, its rows
// L2-normalised as the cosine evaluation clusters them; prints one JSON line with the seeding and per-iteration cost.
// Run by bench/kmeans_bench.py beside faiss's k-means on the same rows and threads.
#include "dmlbench/experiments/blas_info.hpp"
#include "dmlbench/experiments/embedding_file.hpp"
#include "dmlbench/experiments/kmeans.hpp"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>

namespace ex = dmlbench::experiments;

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: bench_kmeans EMBEDDINGS K ITERATIONS THREADS\n";
    return 2;
  }
  try {
    const int k = std::stoi(argv[2]), iterations = std::stoi(argv[3]);
    ex::set_compute_threads(std::stoi(argv[4]));
    auto m = ex::read_embedding_file(argv[1]);
    const auto x = torch::nn::functional::normalize(torch::from_blob(m.values.data(), {m.rows, m.cols}),
                                                    torch::nn::functional::NormalizeFuncOptions().dim(1));
    ex::KMeansStats st;
    const auto t0 = std::chrono::steady_clock::now();
    ex::kmeans(x, k, 0, iterations, &st);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::cout << nlohmann::json{{"rows", m.rows}, {"dims", m.cols}, {"k", k}, {"seeding", st.seeding},
                                {"seeding_seconds", st.seeding_seconds}, {"iterations", st.iterations},
                                {"converged", st.converged}, {"seconds_per_iteration", st.seconds_per_iteration},
                                {"flops_per_iteration", st.flops_per_iteration}, {"seconds", seconds},
                                {"blas", ex::describe_blas()}}
                     .dump()
              << "\n";
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
