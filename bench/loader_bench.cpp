// Times one epoch of the prefetching image loader (experiments/image_loader.hpp) over the image files listed in a
// text file, in plan order, batch by batch, with a JSON transform pipeline; prints one JSON line per repetition
// (bench/loader_bench.py compares it with a torchvision DataLoader in the same run). --dump FILE writes the first
// batch's floats (the Python side checks them against torchvision on a pipeline with no random step). The heap
// keeps freed memory as the training commands set it (experiments/heap_policy.hpp).
#include "dmlbench/experiments/heap_policy.hpp"
#include "dmlbench/experiments/image_loader.hpp"

#include <chrono>
#include <fstream>
#include <iostream>
#include <string>

int main(int argc, char** argv) {
  namespace ex = dmlbench::experiments;
  if (argc != 7 && !(argc == 9 && std::string(argv[7]) == "--dump")) {
    std::cerr << "usage: bench_loader PATHS.txt CHANNELS THREADS BATCH REPS SPEC.json [--dump FILE]\n";
    return 2;
  }
  try {
    ex::keep_freed_memory_in_heap();
    std::vector<std::string> paths;
    std::ifstream list(argv[1]);
    for (std::string line; std::getline(list, line);)
      if (!line.empty()) paths.push_back(line);
    const int batch = std::stoi(argv[4]), reps = std::stoi(argv[5]);
    std::ifstream spec_file(argv[6]);
    const std::string spec((std::istreambuf_iterator<char>(spec_file)), std::istreambuf_iterator<char>());
    const auto pipeline = ex::TransformPipeline::parse(spec);
    std::vector<std::vector<int>> plan;  // consecutive batches, as a DataLoader with shuffle=False
    for (std::size_t i = 0; i < paths.size(); i += std::size_t(batch)) {
      plan.emplace_back();
      for (std::size_t j = i; j < std::min(paths.size(), i + std::size_t(batch)); ++j) plan.back().push_back(int(j));
    }
    ex::LoaderOptions opt;
    opt.channels = std::stoi(argv[2]);
    opt.threads = std::stoi(argv[3]);
    opt.prefetch_batches = 2;
    for (int r = 0; r < reps; ++r) {
      opt.epoch = std::uint64_t(r);
      const auto t0 = std::chrono::steady_clock::now();
      ex::PrefetchLoader loader(ex::ImageSource::files(paths), plan, pipeline, opt);
      ex::Batch b;
      std::size_t images = 0;
      double checksum = 0;
      while (loader.next(b)) {
        images += b.indices.size();
        checksum += double(b.data[0]) + double(b.data.back());  // touch the output, as a trainer would
        if (argc == 9 && b.number == 0 && r == 0)
          std::ofstream(argv[8], std::ios::binary)
              .write(reinterpret_cast<const char*>(b.data.data()), std::streamsize(b.data.size() * sizeof(float)));
      }
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::cout << "{\"rep\":" << r << ",\"images\":" << images << ",\"seconds\":" << s
                << ",\"images_per_second\":" << double(images) / s << ",\"threads\":" << opt.threads
                << ",\"rows\":" << b.rows << ",\"cols\":" << b.cols << ",\"checksum\":" << checksum << "}"
                << std::endl;
    }
  } catch (const std::exception& e) {
    std::cerr << "bench_loader: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
