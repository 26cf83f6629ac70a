// The report's provenance: the tree's revision at run time, and no committed report from a dirty tree.
#include "dmlbench/experiments/report_provenance.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace dmlbench::experiments {

namespace fs = std::filesystem;

// The path in single quotes for /bin/sh, each ' written as '\''.
static std::string shell_quoted(const std::string& s) {
  std::string o = "'";
  for (char c : s) o += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return o + "'";
}

// The pathspec that leaves `unwatched` out of git status: ":(exclude)REL" with REL its path inside the tree, or ""
// when it is empty or outside the tree.
static std::string unwatched_pathspec(const std::string& source_dir, const std::string& unwatched) {
  if (unwatched.empty()) return "";
  std::error_code ec;
  const fs::path root = fs::weakly_canonical(fs::absolute(source_dir), ec);
  const fs::path rel = fs::weakly_canonical(fs::absolute(unwatched), ec).lexically_relative(root);
  if (ec || rel.empty() || rel == "." || *rel.begin() == "..") return "";
  return " " + shell_quoted(":(exclude)" + rel.generic_string());
}

// The commit, with "-dirty" when a tracked file outside `unwatched` has uncommitted changes.
std::string tree_revision(const std::string& source_dir, const std::string& unwatched) {
  const std::string dir = shell_quoted(source_dir);
  const std::string cmd = "git -C " + dir + " update-index -q --refresh >/dev/null 2>&1; r=$(git -C " + dir +
                          " describe --always --abbrev=12 2>/dev/null) && { printf '%s' \"$r\"; git -C " + dir +
                          " status --porcelain --untracked-files=no -- ." + unwatched_pathspec(source_dir, unwatched) +
                          " 2>/dev/null | grep -q . && printf -- -dirty; echo; }";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  if (!pipe) return "unknown";
  std::string out;
  std::array<char, 256> buf{};
  while (fgets(buf.data(), static_cast<int>(buf.size()), pipe.get())) out += buf.data();
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out.empty() ? "unknown" : out;
}

nlohmann::ordered_json machine_record() {
  std::string model = "unknown", flags;
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
    const std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : std::string();
    if (key == "model name" && model == "unknown") model = value;
    if (key == "flags" && flags.empty()) flags = " " + value + " ";
  }
  const std::string isa = flags.find(" avx512f ") != std::string::npos ? "avx512f"
                          : flags.find(" avx2 ") != std::string::npos  ? "avx2"
                                                                       : "neither avx2 nor avx512f";
  const char* coretype = std::getenv("OPENBLAS_CORETYPE");
  return {{"cpu", model},
          {"cores", std::thread::hardware_concurrency()},
          {"isa", isa},
          {"openblas_coretype", coretype ? coretype : ""}};
}

std::string machine_text(const nlohmann::ordered_json& machine) {
  if (!machine.is_object() || !machine.contains("cpu")) return "not recorded";
  std::ostringstream o;
  o << machine.value("cpu", "unknown") << ", " << machine.value("cores", 0) << " cores, "
    << machine.value("isa", "unknown");
  const std::string coretype = machine.value("openblas_coretype", "");
  if (!coretype.empty()) o << ", OPENBLAS_CORETYPE=" << coretype;
  return o.str();
}

bool revision_is_unreproducible(const std::string& revision) {
  const std::string dirty = "-dirty";
  return revision == "unknown" ||
         (revision.size() >= dirty.size() && revision.compare(revision.size() - dirty.size(), dirty.size(), dirty) == 0);
}

bool writes_committed_report(const ReportConfig& cfg) {
  std::error_code ec;
  const fs::path out = fs::weakly_canonical(fs::absolute(cfg.out), ec);
  const fs::path committed = fs::weakly_canonical(fs::absolute(fs::path(cfg.source_dir) / "reports"), ec);
  return out == committed;
}

void check_report_provenance(const ReportConfig& cfg, const std::string& revision) {
  if (!writes_committed_report(cfg) || cfg.allow_dirty || !revision_is_unreproducible(revision)) return;
  throw std::runtime_error("the committed reports/ is written only from a clean tree, and the tree is at git " +
                           revision + " (uncommitted changes, or no git): commit first, write elsewhere with --out, "
                           "or pass --allow-dirty (the report then says it cannot be regenerated exactly)");
}

std::string provenance_warning_markdown(const std::string& revision) {
  if (!revision_is_unreproducible(revision)) return "";
  return "\n**Not reproducible exactly:** generated from a tree with uncommitted changes or outside git (git " +
         revision + "), so no commit regenerates this report byte for byte.\n";
}

}  // namespace dmlbench::experiments
