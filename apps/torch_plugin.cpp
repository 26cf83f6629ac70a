// The LibTorch sub-commands live in a module loaded on demand (see apps/CMakeLists.txt).
#include "commands.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace dmlbench::app {

namespace {

int run_torch_command(const std::vector<std::string>& args) {
#ifdef DMLBENCH_TORCH_PLUGIN
  const char* env = std::getenv("DMLBENCH_TORCH_PLUGIN");
  const std::string path = env ? env : DMLBENCH_TORCH_PLUGIN;
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) throw std::runtime_error(std::string("cannot load the LibTorch commands: ") + dlerror());
  using Entry = int (*)(int, char**);
  auto entry = reinterpret_cast<Entry>(dlsym(h, "dmlbench_torch_command"));
  if (!entry) throw std::runtime_error(path + " has no dmlbench_torch_command");
  std::vector<std::string> owned = args;
  std::vector<char*> argv;
  for (auto& a : owned) argv.push_back(a.data());
  argv.push_back(nullptr);
  return entry(int(owned.size()), argv.data());
#else
  (void)args;
  throw std::runtime_error("this dmlbench was built without LibTorch (DMLBENCH_WITH_TORCH=OFF)");
#endif
}

}  // namespace

void add_torch_commands(CLI::App& app, int& exit_code) {
  const std::vector<std::pair<const char*, const char*>> commands = {
      {"info", "versions of the libraries and the device --device auto selects"},
      {"train", "train one run from a run config: train --config FILE [--set key=value] --out DIR (LibTorch)"},
      {"reproduce", "run a reproduction file (arms x seeds) and judge its claims: reproduce --file F --out DIR"},
      {"eval", "retrieval metrics of embeddings made elsewhere: eval --embeddings F --labels F (CSV, .npy, idx)"},
      {"tune", "each arm's hyperparameters searched with the same trial budget on class-disjoint folds of the training "
               "classes (Optuna TPE): tune --file F --out DIR [--jobs N] [--slurm]"}};
  for (const auto& command : commands) {
    const char* name = command.first;
    auto* sub = app.add_subcommand(name, command.second);
    sub->allow_extras();
    sub->set_help_flag();  // --help is forwarded to the module
    sub->callback([sub, name, &exit_code] {
      std::vector<std::string> args = {"dmlbench", name};
      for (const auto& r : sub->remaining()) args.push_back(r);
      exit_code = run_torch_command(args);
    });
  }
}

}  // namespace dmlbench::app
