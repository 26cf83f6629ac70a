// Times Recall@{1,2,4,8} (query excluded) and k-means NMI (k = number of classes) on N x d embeddings read from a
// .npy-free raw float32 file; prints one JSON line per repetition (bench/retrieval_metrics_bench.py compares it with
// a plain PyTorch reference in the same run).
#include "dmlbench/experiments/retrieval_metrics.hpp"

#include <chrono>
#include <fstream>
#include <iostream>
#include <string>

int main(int argc, char** argv) {
  namespace ex = dmlbench::experiments;
  if (argc != 7) {
    std::cerr << "usage: bench_retrieval_metrics EMB.f32 LABELS.i64 N D CLASSES REPS\n";
    return 2;
  }
  const long n = std::stol(argv[3]), d = std::stol(argv[4]);
  const int classes = std::stoi(argv[5]), reps = std::stoi(argv[6]);
  std::vector<float> e(std::size_t(n * d));
  std::vector<std::int64_t> l(static_cast<std::size_t>(n));
  std::ifstream(argv[1], std::ios::binary).read(reinterpret_cast<char*>(e.data()), std::streamsize(e.size() * 4));
  std::ifstream(argv[2], std::ios::binary).read(reinterpret_cast<char*>(l.data()), std::streamsize(l.size() * 8));
  const auto emb = torch::from_blob(e.data(), {n, d}, torch::kFloat32).clone();
  const auto lab = torch::from_blob(l.data(), {n}, torch::kInt64).clone();
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    const auto rk = ex::recall_at_k(emb, lab, {1, 2, 4, 8});
    const double t_recall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    t0 = std::chrono::steady_clock::now();
    const double nmi = ex::nmi_of_kmeans(emb, lab, classes, 1);
    const double t_nmi = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::cout << "{\"rep\":" << r << ",\"recall_seconds\":" << t_recall << ",\"nmi_seconds\":" << t_nmi
              << ",\"recall\":[" << rk[0] << "," << rk[1] << "," << rk[2] << "," << rk[3] << "],\"nmi\":" << nmi
              << ",\"threads\":" << torch::get_num_threads() << "}" << std::endl;
  }
  return 0;
}
