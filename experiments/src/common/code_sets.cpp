// The source files a piece of work runs, from its roots through #include (code_sets.hpp).
#include "dmlbench/experiments/code_sets.hpp"

#include "dmlbench/experiments/content_hash.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace dmlbench::experiments {

namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kTrainerFolders = {
    "experiments/src/engine", "experiments/src/models",  "experiments/src/evaluation",
    "experiments/src/losses", "experiments/src/miners", "experiments/src/samplers"};
// The run config and the registries the losses, miners and samplers register into: the trainer reads its config
// through them (their headers bring the rest of experiments/src/config that it uses).
const std::vector<std::string> kTrainerFiles = {"experiments/src/config/run_config.cpp",
                                                "experiments/src/config/run_config_rules.cpp",
                                                "experiments/src/config/component_registries.cpp"};

std::vector<CodeSetRoots> make_sets() {
  CodeSetRoots trainer{"trainer", kTrainerFolders, kTrainerFiles};
  CodeSetRoots training = trainer;
  training.name = "training";
  // the executable's dispatch (and the BLAS kernel it picks), the LibTorch module's commands
  training.files.insert(training.files.end(), {"apps/main.cpp", "apps/torch_plugin.cpp", "apps/torch_commands.cpp"});
  CodeSetRoots theory{"theory", {"theory/src", "theory/papers"}, {"apps/main.cpp", "apps/theory_commands.cpp"}};
  CodeSetRoots sims{"sims", {"theory/src", "theory/papers", "sims/src"}, {"apps/main.cpp", "apps/sim_commands.cpp"}};
  CodeSetRoots spending{"seed-spending", {}, {"experiments/src/report/report_seed_spending.cpp"}};
  return {trainer, training, theory, sims, spending};
}

const std::vector<std::string> kIncludeRoots = {"theory/include", "sims/include", "experiments/include", "apps"};
// Each layer: the folder its headers are included from, and where its sources lie.
struct Layer {
  std::string top, include, src;
};
const std::vector<Layer> kLayers = {{"theory", "theory/include", "theory"},
                                    {"sims", "sims/include", "sims/src"},
                                    {"experiments", "experiments/include", "experiments/src"},
                                    {"apps", "apps", "apps"}};

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The quoted includes of a source file, as written.
std::vector<std::string> quoted_includes(const fs::path& file) {
  std::vector<std::string> out;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    std::size_t i = line.find_first_not_of(" \t");
    if (i == std::string::npos || line[i] != '#') continue;
    i = line.find_first_not_of(" \t", i + 1);
    if (i == std::string::npos || line.compare(i, 7, "include") != 0) continue;
    const auto open = line.find('"', i + 7);
    const auto close = open == std::string::npos ? open : line.find('"', open + 1);
    if (close != std::string::npos) out.push_back(line.substr(open + 1, close - open - 1));
  }
  return out;
}

// The layer a repository path belongs to (its first component), or nullptr.
const Layer* layer_of(const std::string& rel) {
  const std::string top = rel.substr(0, rel.find('/'));
  for (const auto& l : kLayers)
    if (l.top == top) return &l;
  return nullptr;
}

// Every .cpp under each layer's src, by file name (several may share one, in different folders).
std::multimap<std::string, std::string> sources_by_stem(const fs::path& root) {
  std::multimap<std::string, std::string> by;
  for (const auto& l : kLayers) {
    std::error_code ec;
    if (!fs::is_directory(root / l.src, ec)) continue;
    for (auto it = fs::recursive_directory_iterator(root / l.src, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
      if (it->path().extension() == ".cpp")
        by.emplace(it->path().stem().string(), fs::relative(it->path(), root).generic_string());
  }
  return by;
}

struct Closure {
  fs::path root;
  std::multimap<std::string, std::string> stems;
  std::set<std::string> files;
  std::vector<std::string> pending;

  void add(const std::string& rel) {
    if (rel.empty() || files.count(rel) || !is_file(root / rel)) return;
    files.insert(rel);
    pending.push_back(rel);
  }
  // A quoted include of file `from`: beside it, else under the include roots.
  std::string resolve(const std::string& from, const std::string& name) const {
    const auto beside = (fs::path(from).parent_path() / name).lexically_normal().generic_string();
    if (is_file(root / beside)) return beside;
    for (const auto& inc : kIncludeRoots) {
      const auto rel = (fs::path(inc) / name).lexically_normal().generic_string();
      if (is_file(root / rel)) return rel;
    }
    return {};
  }
  // The sources that implement header h: the .cpp of its name in its own folder or its layer, and those named by
  // sources_implementing.
  void add_implementations(const std::string& h) {
    const fs::path hp(h);
    const std::string stem = hp.stem().string();
    const Layer* l = layer_of(h);
    const auto range = stems.equal_range(stem);
    for (auto it = range.first; it != range.second; ++it) {
      const bool beside = fs::path(it->second).parent_path() == hp.parent_path();
      if (beside || (l && it->second.rfind(l->src + "/", 0) == 0)) add(it->second);
    }
    for (const auto& [source, headers] : sources_implementing())
      if (std::find(headers.begin(), headers.end(), h) != headers.end()) add(source);
  }
  void run() {
    while (!pending.empty()) {
      const std::string f = pending.back();
      pending.pop_back();
      if (fs::path(f).extension() != ".cpp") add_implementations(f);
      for (const auto& inc : quoted_includes(root / f)) add(resolve(f, inc));
    }
  }
};

}  // namespace

const CodeSetRoots& code_set_roots(const std::string& name) {
  static const std::vector<CodeSetRoots> sets = make_sets();
  for (const auto& s : sets)
    if (s.name == name) return s;
  throw std::invalid_argument("no code set named '" + name + "' (trainer, training, theory, sims, seed-spending)");
}

const std::map<std::string, std::vector<std::string>>& sources_implementing() {
  static const std::map<std::string, std::vector<std::string>> m = {
      {"experiments/src/config/component_registries.cpp",
       {"experiments/include/dmlbench/experiments/loss_spec.hpp", "experiments/include/dmlbench/experiments/miner_spec.hpp",
        "experiments/include/dmlbench/experiments/batch_sampler_spec.hpp"}},
      {"experiments/src/config/run_config_rules.cpp", {"experiments/include/dmlbench/experiments/run_config.hpp"}},
      {"experiments/src/report/report_audit.cpp", {"experiments/include/dmlbench/experiments/report_claims_table.hpp"}},
      {"experiments/src/runs/slurm_submit.cpp", {"experiments/include/dmlbench/experiments/slurm_array_script.hpp"}},
  };
  return m;
}

std::vector<std::string> code_set_files(const std::string& source_dir, const CodeSetRoots& roots) {
  Closure c{fs::path(source_dir), sources_by_stem(source_dir), {}, {}};
  for (const auto& folder : roots.folders) {
    std::error_code ec;
    if (!fs::is_directory(c.root / folder, ec)) continue;
    for (const auto& e : fs::directory_iterator(c.root / folder, ec))
      if (e.path().extension() == ".cpp") c.add(fs::relative(e.path(), c.root).generic_string());
  }
  for (const auto& f : roots.files) c.add(f);
  c.run();
  std::set<std::string> out = c.files;
  out.insert("CMakeLists.txt");
  for (const auto& f : c.files)
    if (const Layer* l = layer_of(f)) out.insert(l->top + "/CMakeLists.txt");
  std::vector<std::string> present;
  for (const auto& f : out)
    if (is_file(c.root / f)) present.push_back(f);
  return present;  // a std::set's order: sorted
}

CodeFingerprint code_fingerprint(const std::string& source_dir, const CodeSetRoots& roots) {
  CodeFingerprint fp;
  std::string all;
  for (const auto& f : code_set_files(source_dir, roots)) {
    const std::string h = fnv1a_hex(read_bytes(fs::path(source_dir) / f));
    fp.files[f] = h;
    all += f + '\0' + h + '\n';
  }
  fp.hash = fnv1a_hex(all);
  return fp;
}

CodeFingerprint code_fingerprint(const std::string& source_dir, const std::string& set_name) {
  return code_fingerprint(source_dir, code_set_roots(set_name));
}

std::vector<std::string> fingerprint_changes(const std::map<std::string, std::string>& before,
                                             const std::map<std::string, std::string>& after) {
  std::vector<std::string> out;
  for (const auto& [f, h] : after) {
    const auto it = before.find(f);
    if (it == before.end())
      out.push_back(f + " (added)");
    else if (it->second != h)
      out.push_back(f + " (changed)");
  }
  for (const auto& [f, h] : before)
    if (!after.count(f)) out.push_back(f + " (removed)");
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace dmlbench::experiments
