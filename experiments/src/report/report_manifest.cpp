// The figures the report's notebooks must draw (notebooks/figures.json): one entry per notebook, its figures.
#include "dmlbench/experiments/report_manifest.hpp"

#include "dmlbench/experiments/report_io.hpp"

#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <vector>
#include <stdexcept>

namespace dmlbench::experiments {

using json = nlohmann::ordered_json;

static FigureSpec read_figure(const json& f, const std::string& path) {
  FigureSpec fig;
  fig.file = f.at("file");
  fig.paper = f.at("paper");
  fig.caption = f.at("caption");
  fig.inputs = f.value("inputs", std::vector<std::string>{});
  fig.command_filter = f.value("commands", std::vector<std::string>{});
  if (fig.file.find('/') != std::string::npos || fig.file.size() < 5 || fig.file.substr(fig.file.size() - 4) != ".png")
    throw std::runtime_error(path + ": figure \"" + fig.file + "\" must be a plain .png file name");
  return fig;
}

// True for a glob of one stage's run files, STAGE/ARM/seedN/FILE...: a stage named without wildcards, a seed folder
// ("seed" then digits, or a wildcard), at least one part below it, and no empty, "." or ".." part, so that the glob
// can reach neither another stage's folder nor outside the work folder.
static bool is_run_files_glob(const std::string& g) {
  std::vector<std::string> parts;
  for (std::size_t a = 0;;) {
    const std::size_t b = g.find('/', a);
    parts.push_back(g.substr(a, b == std::string::npos ? std::string::npos : b - a));
    if (b == std::string::npos) break;
    a = b + 1;
  }
  for (const auto& p : parts)
    if (p.empty() || p == "." || p == "..") return false;
  const auto seed = parts.size() >= 4 ? parts[2] : std::string();
  const bool seed_folder = seed.rfind("seed", 0) == 0 && seed.size() > 4 &&
                           seed.find_first_not_of("0123456789*?", 4) == std::string::npos;
  return seed_folder && parts[0].find_first_of("*?[") == std::string::npos;
}

std::vector<NotebookSpec> read_manifest(const std::string& path) {
  const json j = read_json_file(path);
  if (!j.contains("notebooks") || !j["notebooks"].is_array())
    throw std::runtime_error(path + ": no \"notebooks\" array");
  std::vector<NotebookSpec> out;
  std::set<std::string> files;
  for (const auto& nb : j["notebooks"]) {
    NotebookSpec s;
    s.notebook = nb.at("notebook");
    s.run_files_read = nb.value("run_files_read", std::vector<std::string>{});
    for (const auto& g : s.run_files_read)
      if (!is_run_files_glob(g))
        throw std::runtime_error(path + ": " + s.notebook + "'s run_files_read \"" + g +
                                 "\" is no glob of a run's files (STAGE/ARM/seedN/...) under the work folder");
    for (const auto& f : nb.at("figures")) {
      FigureSpec fig = read_figure(f, path);
      if (!files.insert(fig.file).second) throw std::runtime_error(path + ": figure " + fig.file + " listed twice");
      s.figures.push_back(std::move(fig));
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<std::string> run_files_read(const std::vector<NotebookSpec>& manifest) {
  std::vector<std::string> out;
  for (const auto& nb : manifest) out.insert(out.end(), nb.run_files_read.begin(), nb.run_files_read.end());
  return out;
}

}  // namespace dmlbench::experiments
