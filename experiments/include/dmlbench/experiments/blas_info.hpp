// Which BLAS library this process's matrix products (LibTorch's sgemm_) run on, and with how many threads.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace dmlbench::experiments {

struct BlasInfo {
  std::string path;                 // realpath of the library sgemm_ binds to in this process; "" when none is loaded
  std::string name;                 // blas_name_of(path); "none" when no BLAS is loaded
  std::optional<int> blas_threads;  // OpenBLAS's own thread pool (openblas_get_num_threads), only for OpenBLAS
  std::string config;               // openblas_get_config() (version, kernel, MAX_THREADS); "" when absent
  int torch_threads = 0;            // torch::get_num_threads(): LibTorch's intra-op threads
  std::vector<std::string> loaded;  // realpaths of every BLAS library mapped into the process (path among them)
};

// The BLAS of this process: the library the global lookup of sgemm_ finds (what LibTorch calls), not merely a
// libblas.so.3 that is mapped (Debian's ATLAS libf77blas.so.3 linked ahead of it once took every sgemm_ call).
BlasInfo blas_info();

// LibTorch's intra-op threads and, where the bound BLAS is OpenBLAS, its own pool (found as blas_info finds it).
// Throws std::invalid_argument for threads < 1.
void set_compute_threads(int threads);

// While it lives, OpenBLAS's own pool runs one thread, so that each of the caller's threads can run its own GEMMs
// (OpenBLAS calls from several threads at once are safe); restores the count it found. A no-op for other BLAS
// libraries, which Debian builds single-threaded.
class SerialBlas {
 public:
  SerialBlas();
  ~SerialBlas();
  SerialBlas(const SerialBlas&) = delete;
  SerialBlas& operator=(const SerialBlas&) = delete;

 private:
  int was_ = 0;                  // OpenBLAS's thread count before; 0 when it was not set here
  void (*set_)(int) = nullptr;  // openblas_set_num_threads, looked up once
};

// While it lives, LibTorch's intra-op threads are one (OpenBLAS's pool keeps its own count); restores the count it found.
class OneTorchThread {
 public:
  OneTorchThread();
  ~OneTorchThread();
  OneTorchThread(const OneTorchThread&) = delete;
  OneTorchThread& operator=(const OneTorchThread&) = delete;

 private:
  int was_;
};

// "OpenBLAS", "ATLAS", "reference BLAS" (Debian's netlib libblas in .../blas/) or "unknown", from a library's path.
std::string blas_name_of(const std::string& path);

// One line, e.g. "BLAS: OpenBLAS (/usr/lib/.../openblas-pthread/libblas.so.3; OpenBLAS 0.3.21 ...), 2 BLAS threads,
// 2 LibTorch intra-op threads"; a BLAS of another kind loaded alongside is named after "also loaded:".
std::string describe_blas();

}  // namespace dmlbench::experiments
