#include "dmlbench/experiments/blas_info.hpp"

#include <torch/utils.h>

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>

namespace dmlbench::experiments {

namespace {

std::string real_path(const char* p) {
  char buf[PATH_MAX];
  return ::realpath(p, buf) ? std::string(buf) : std::string(p);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string basename_of(const std::string& p) { return p.substr(p.find_last_of('/') + 1); }

// A CPU BLAS's file: libblas, libopenblas*, ATLAS's libf77blas / libcblas / libatlas (not CUDA's libcublas).
bool is_blas_file(const std::string& path) {
  const auto b = lower(basename_of(path));
  return (b.find("blas") != std::string::npos || b.find("atlas") != std::string::npos) &&
         b.find("cublas") == std::string::npos;
}

int collect_blas(dl_phdr_info* info, std::size_t, void* data) {
  auto* out = static_cast<std::vector<std::string>*>(data);
  if (info->dlpi_name && *info->dlpi_name && is_blas_file(info->dlpi_name)) {
    const auto p = real_path(info->dlpi_name);
    if (std::find(out->begin(), out->end(), p) == out->end()) out->push_back(p);
  }
  return 0;
}

template <class F>
F symbol(void* handle, const char* name) {
  return reinterpret_cast<F>(dlsym(handle, name));
}

}  // namespace

std::string blas_name_of(const std::string& path) {
  const auto p = lower(path), b = lower(basename_of(path));
  if (p.find("openblas") != std::string::npos) return "OpenBLAS";
  if (p.find("atlas") != std::string::npos || b.rfind("libf77blas", 0) == 0 || b.rfind("libptf77blas", 0) == 0 ||
      b.rfind("libcblas", 0) == 0 || b.rfind("libptcblas", 0) == 0)
    return "ATLAS";
  if (p.find("/blas/") != std::string::npos && b.rfind("libblas", 0) == 0) return "reference BLAS";
  return "unknown";
}

namespace {

// The library the global lookup of sgemm_ finds, as the loader named it (LibTorch's own sgemm_ reference binds the
// same way), else a mapped libblas; "" when there is none.
std::string bound_blas(const std::vector<std::string>& loaded) {
  Dl_info di{};
  if (void* s = dlsym(RTLD_DEFAULT, "sgemm_"); s && dladdr(s, &di) && di.dli_fname && *di.dli_fname) return di.dli_fname;
  std::string found;
  for (const auto& p : loaded)
    if (lower(basename_of(p)).rfind("libblas", 0) == 0) found = p;
  return found;
}

// f(handle) with the bound library and its dependencies (libopenblas.so.0) as the scope of dlsym, not a second
// OpenBLAS loaded elsewhere (RTLD_DEFAULT where the library cannot be reopened).
template <class F>
void in_library(const std::string& loaded_as, F f) {
  void* h = dlopen(loaded_as.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  f(h ? h : RTLD_DEFAULT);
  if (h) dlclose(h);
}

}  // namespace

BlasInfo blas_info() {
  BlasInfo r;
  dl_iterate_phdr(collect_blas, &r.loaded);
  const auto loaded_as = bound_blas(r.loaded);
  r.path = loaded_as.empty() ? "" : real_path(loaded_as.c_str());
  r.name = r.path.empty() ? "none" : blas_name_of(r.path);
  if (r.name == "OpenBLAS")
    in_library(loaded_as, [&r](void* where) {
      if (auto threads = symbol<int (*)()>(where, "openblas_get_num_threads")) r.blas_threads = threads();
      if (auto config = symbol<char* (*)()>(where, "openblas_get_config")) {
        const char* c = config();
        r.config = c ? c : "";
        while (!r.config.empty() && std::isspace(static_cast<unsigned char>(r.config.back()))) r.config.pop_back();
      }
    });
  r.torch_threads = torch::get_num_threads();
  return r;
}

namespace {

// f(handle) with the bound library when it is OpenBLAS; nothing otherwise.
template <class F>
void in_openblas(F f) {
  std::vector<std::string> loaded;
  dl_iterate_phdr(collect_blas, &loaded);
  const auto loaded_as = bound_blas(loaded);
  if (!loaded_as.empty() && blas_name_of(real_path(loaded_as.c_str())) == "OpenBLAS") in_library(loaded_as, f);
}

void set_openblas_threads(int threads) {
  in_openblas([threads](void* where) {
    if (auto set = symbol<void (*)(int)>(where, "openblas_set_num_threads")) set(threads);
  });
}

}  // namespace

void set_compute_threads(int threads) {
  if (threads < 1) throw std::invalid_argument("the thread count must be >= 1, got " + std::to_string(threads));
  torch::set_num_threads(threads);
  set_openblas_threads(threads);
}

OneTorchThread::OneTorchThread() : was_(torch::get_num_threads()) { torch::set_num_threads(1); }

OneTorchThread::~OneTorchThread() { torch::set_num_threads(was_); }

SerialBlas::SerialBlas() {
  in_openblas([this](void* where) {
    const auto get = symbol<int (*)()>(where, "openblas_get_num_threads");
    set_ = symbol<void (*)(int)>(where, "openblas_set_num_threads");
    if (get && set_) was_ = get();
  });
  if (was_ > 1) set_(1);
}

SerialBlas::~SerialBlas() {
  if (was_ > 1) set_(was_);
}

std::string describe_blas() {
  const auto b = blas_info();
  std::ostringstream o;
  o << "BLAS: " << b.name;
  if (!b.path.empty()) o << " (" << b.path << (b.config.empty() ? "" : "; " + b.config) << ")";
  if (const char* was = std::getenv("DMLBENCH_OPENBLAS_CORE_FORCED"); was && std::getenv("OPENBLAS_CORETYPE"))
    o << " [OPENBLAS_CORETYPE=" << std::getenv("OPENBLAS_CORETYPE") << " set by dmlbench: OpenBLAS's own choice on this "
      << "CPU was " << was << "]";
  if (b.blas_threads) o << ", " << *b.blas_threads << " BLAS threads";
  o << ", " << b.torch_threads << " LibTorch intra-op threads";
  std::string also;
  for (const auto& p : b.loaded)
    if (blas_name_of(p) != b.name) also += (also.empty() ? "" : ", ") + p + " (" + blas_name_of(p) + ")";
  if (!also.empty()) o << "; also loaded: " << also;
  return o.str();
}

}  // namespace dmlbench::experiments
