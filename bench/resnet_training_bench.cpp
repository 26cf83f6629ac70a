// Times ResNet training steps (forward + backward + SGD step) of the engine's model (make_embedding_model: resnet18
// or resnet50 with a linear embedding head) on one fixed random batch; prints one JSON line with images/s
// (bench/resnet_training_bench.py compares it with the same loop in Python PyTorch in the same run). The heap keeps
// freed memory as the training commands set it (experiments/heap_policy.hpp).
#include "dmlbench/experiments/embedding_model.hpp"
#include "dmlbench/experiments/heap_policy.hpp"

#include <ATen/Context.h>

#include <chrono>
#include <iostream>
#include <string>

int main(int argc, char** argv) {
  namespace ex = dmlbench::experiments;
  if (argc != 8) {
    std::cerr << "usage: bench_resnet_training ARCH BATCH SIZE EMBEDDING_DIM WARMUP STEPS THREADS\n";
    return 2;
  }
  try {
    ex::keep_freed_memory_in_heap();
    const std::string arch = argv[1];
    const int batch = std::stoi(argv[2]), size = std::stoi(argv[3]), dim = std::stoi(argv[4]),
              warmup = std::stoi(argv[5]), steps = std::stoi(argv[6]), threads = std::stoi(argv[7]);
    torch::set_num_threads(threads);
    torch::manual_seed(0);
    auto model = ex::make_embedding_model(arch, dim, "fused", 3);
    model.train();
    torch::optim::SGD opt(model.parameters(), torch::optim::SGDOptions(0.01).momentum(0.9).weight_decay(5e-4));
    const auto x = torch::randn({batch, 3, size, size});
    double seconds = 0, loss = 0;
    for (int s = 0; s < warmup + steps; ++s) {
      const auto t0 = std::chrono::steady_clock::now();
      const auto l = model.forward(x).pow(2).mean();
      opt.zero_grad();
      l.backward();
      opt.step();
      loss = l.item<double>();
      if (s >= warmup) seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    std::cout << "{\"images_per_second\":" << double(batch) * steps / seconds << ",\"threads\":"
              << torch::get_num_threads() << ",\"mkldnn\":" << (at::hasMKLDNN() ? "true" : "false")
              << ",\"last_loss\":" << loss << "}" << std::endl;
  } catch (const std::exception& e) {
    std::cerr << "bench_resnet_training: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
