// The report folder: built beside the old one (OUT.new) from the work folder's files, then swapped in, so that the
// previous report stays until the new one is complete.
#include "dmlbench/experiments/report_folder.hpp"

#include "dmlbench/experiments/report_io.hpp"

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <tuple>

namespace dmlbench::experiments {

namespace fs = std::filesystem;

void copy_report_files(const ReportConfig& cfg, const std::vector<NotebookSpec>& manifest,
                       const std::vector<Reproduction>& reproductions, const std::string& dest) {
  fs::remove_all(dest);
  fs::create_directories(dest + "/figures");
  for (const auto& nb : manifest)
    for (const auto& f : nb.figures) {
      const std::string src = cfg.work + "/figures/" + f.file;
      if (!fs::exists(src)) throw std::runtime_error("figure " + f.file + " is missing from " + cfg.work + "/figures");
      fs::copy_file(src, dest + "/figures/" + f.file, fs::copy_options::overwrite_existing);
    }
  std::vector<std::tuple<std::string, std::string, std::string>> copies = {
      {"theory-claims", "CLAIMS.md", "theory/CLAIMS.md"},
      {"theory-claims", "claims.json", "theory/claims.json"},
      {"sims-claims", "CLAIMS.md", "sims/CLAIMS.md"},
      {"sims-claims", "claims.json", "sims/claims.json"}};
  for (const auto& r : reproductions) copies.emplace_back(r.stage, "summary.json", "experiments/" + r.stage + "_summary.json");
  for (const auto& [stage, file, to] : copies) {
    const std::string src = cfg.work + "/" + stage + "/" + file;
    if (!fs::exists(src)) continue;
    fs::create_directories(fs::path(dest + "/" + to).parent_path());
    if (file != "summary.json") {
      fs::copy_file(src, dest + "/" + to, fs::copy_options::overwrite_existing);
      continue;
    }
    // a summary without its resolved config, which holds this machine's paths (data_dir): the reproduction file and
    // the overrides it keeps (config.reproduction, config.set) say how it was made
    auto j = read_json_file(src);
    if (j.contains("config") && j["config"].is_object()) j["config"].erase("base_config");
    std::ofstream(dest + "/" + to) << j.dump(2) << "\n";
  }
}

void swap_in_report(const std::string& built, const std::string& out) {
  const std::string old = out + ".old";
  fs::remove_all(old);
  if (fs::exists(out)) fs::rename(out, old);
  fs::rename(built, out);
  fs::remove_all(old);
}

}  // namespace dmlbench::experiments
