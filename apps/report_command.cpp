// dmlbench report: run every stage (theory, sims, experiments), execute the notebooks, write reports/REPORT.md.
#include "dmlbench/experiments/reproduction.hpp"
#include "repository_dir.hpp"
#include "commands.hpp"

#include "report_builder.hpp"

#include <filesystem>
#include <memory>
#include <stdexcept>

namespace dmlbench::app {

// --kernel-recurrence: the file given ("none": no record), else the committed record for the default profile where it
// exists; "" for none.
static std::string kernel_recurrence_file(const std::string& src, const std::string& profile, const std::string& given) {
  namespace fs = std::filesystem;
  if (given == "none") return "";
  if (!given.empty()) {
    if (!fs::is_regular_file(given)) throw std::runtime_error("--kernel-recurrence " + given + " is not a file");
    return fs::weakly_canonical(fs::absolute(given)).string();
  }
  const std::string committed = src + "/bench/results/kernel_recurrence.json";
  return profile == "default" && fs::is_regular_file(committed) ? committed : "";
}

void add_report_command(CLI::App& app, int& exit_code) {
  namespace fs = std::filesystem;
  auto* rep = app.add_subcommand("report", "regenerate every figure and the claims table: run the stages whose "
                                           "config changed, execute the notebooks, write REPORT.md");
  auto cfg = std::make_shared<report::ReportConfig>();
  const std::string src = repository_dir();
  cfg->out = src + "/reports";
  cfg->work = src + "/out/report";
  cfg->notebooks = src + "/notebooks";
  cfg->reproductions = src + "/experiments/reproductions";
  cfg->source_dir = src;
  auto quick = std::make_shared<bool>(false);
  auto profile = std::make_shared<std::string>("default");
  auto stages = std::make_shared<std::string>();
  rep->add_flag("--quick", *quick, "= --profile quick: minutes; writes out/quick-report (the committed reports/ is the "
                                   "default profile's and stays as it is)");
  rep->add_option("--profile", *profile, "quick | default | full (the papers' seeds and epochs: hours, for a GPU or "
                                         "a cluster; writes out/full-report)")->capture_default_str();
  auto* out_opt = rep->add_option("--out", cfg->out, "report folder, replaced only when every stage succeeded "
                                                     "(default: reports/ for the default profile)");
  auto* work_opt = rep->add_option("--work", cfg->work, "stage outputs, kept between runs (a stage with an unchanged "
                                                        "config hash is not rerun)");
  rep->add_option("--reproductions", cfg->reproductions, "folder of reproduction files (one stage each)")
      ->capture_default_str();
  rep->add_option("--notebooks", cfg->notebooks, "notebooks folder holding figures.json")->capture_default_str();
  rep->add_option("--jupyter", cfg->jupyter, "the jupyter command that executes the notebooks")->capture_default_str();
  rep->add_option("--stages", *stages, "comma-separated stages to run (the others are used as they are): theory-claims, "
                                       "theory-figures, sims-claims, sims-phase, sims-minimizers, one per reproduction file (its \"stage\"), figures");
  rep->add_option("--sweep", cfg->sweeps, "a sweep folder (dmlbench sweep, e.g. a Slurm job array) whose reproduction's "
                                         "stage takes its runs, collected, instead of running them (repeatable)");
  rep->add_option("--multiplicity", cfg->multiplicity, "bh | holm: how the training claims are decided over the "
                                                     "report's family (bh: e-BH on their e-values, false discovery "
                                                     "rate; holm: Bonferroni on e-values, family-wise error)")
      ->check(CLI::IsMember({"holm", "bh"}))
      ->capture_default_str();
  rep->add_option("--store-from", cfg->store_min_seconds, "seconds: a finished stage that ran at least this long is "
                                                          "kept in the report folder's stages/ and restored from "
                                                          "there by a later run (another session or machine)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  auto kernels = std::make_shared<std::string>();
  auto* kernels_opt = rep->add_option("--kernel-recurrence", *kernels, "bench/kernel_recurrence.py's record of the "
                                      "verdicts under other kernels, shown beside each row while it matches this "
                                      "report (default: bench/results/kernel_recurrence.json for the default "
                                      "profile, where it exists; none: no record)");
  rep->add_flag("--force", cfg->force, "rerun every selected stage even when its config hash is unchanged");
  rep->add_flag("--explain", cfg->explain, "run nothing: say for each stage whether it is current, restored from the "
                                           "stage store or runs, and why (the config parts and code files that moved)");
  rep->add_flag("--allow-dirty", cfg->allow_dirty, "write the committed reports/ from a tree with uncommitted changes "
                                                    "(refused otherwise; the report then says it cannot be regenerated "
                                                    "exactly)");
  rep->callback([cfg, quick, profile, stages, out_opt, work_opt, kernels, kernels_opt, src, &exit_code] {
    cfg->profile = *quick ? "quick" : *profile;
    dmlbench::experiments::check_profile_name(cfg->profile, "--profile");
    cfg->kernel_recurrence = kernel_recurrence_file(src, cfg->profile, kernels_opt->count() > 0 ? *kernels : "");
    if (cfg->profile != "default") {  // never overwrite the committed default report with another profile's
      if (out_opt->count() == 0) cfg->out = src + "/out/" + cfg->profile + "-report";
      if (work_opt->count() == 0) cfg->work = src + "/out/report-" + cfg->profile;
    }
    for (std::string* p : {&cfg->out, &cfg->work, &cfg->notebooks, &cfg->reproductions})
      *p = fs::weakly_canonical(fs::absolute(*p)).string();
    for (auto& d : cfg->sweeps) d = fs::weakly_canonical(fs::absolute(d)).string();
    cfg->self = fs::read_symlink("/proc/self/exe").string();
    cfg->only.clear();
    std::string s = *stages;
    for (std::size_t pos = 0; !s.empty() && pos <= s.size();) {
      const auto comma = s.find(',', pos);
      const std::string name = s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
      if (!name.empty()) cfg->only.push_back(name);
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
    if (!fs::exists(cfg->jupyter))
      throw std::runtime_error("--jupyter " + cfg->jupyter + " does not exist (apt install jupyter-nbconvert "
                               "python3-ipykernel, or run scripts/setup.sh)");
    exit_code = report::run_report(*cfg);
  });
}

}  // namespace dmlbench::app
