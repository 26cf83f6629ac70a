// A reproduction as data (experiments/reproductions/*.json): which run config, which arms, how many seeds
// per profile, which metrics at which set and level, the paper's printed numbers and claimed direction, and the test
// (Welch's t, alpha 0.05) that gives each claim its verdict. Torch-free: the report builder reads the same file.
#pragma once

#include "dmlbench/experiments/json_fields.hpp"  // check_only_keys
#include "dmlbench/experiments/metric_path.hpp"  // metric_at
#include "dmlbench/experiments/run_config.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <utility>
#include <stdexcept>
#include <cstdint>
#include <string>
#include <vector>

namespace dmlbench::experiments {

struct ReproductionArm {
  std::string name, label;
  std::vector<std::string> set;  // "key=value" overrides of the run config
  std::string init_from;         // an earlier arm whose run of the same seed gives this arm its starting weights
};
struct ReproductionMetric {
  std::string label, path, claim, statement;  // path: a dotted path into metrics.json (metric_at)
  std::string where;  // the claim's own section, table or figure; empty: the file's "where"
  double scale = 1;
  std::map<std::string, double> paper;        // arm -> the paper's printed number
  std::string direction;                      // increase | decrease (treatment vs baseline), from the paper's numbers
  bool in_variant_table = false;
  // "compare": this metric's own sides of the test, each an arm and a path (empty: the reproduction's comparison and
  // `path`): e.g. one arm early in its curve against another at the end, or one arm's first epoch against its last
  std::string baseline_arm, treatment_arm, baseline_path, treatment_path;
  // "compare": {"treatment": ..., "bound": b}: the treatment side against a fixed number (a one-sample t-test; a claim
  // such as "no top-left movement" against a share the reproduction states), with no baseline arm
  std::optional<double> bound;
  // "counts": {"successes": path, "trials": [paths], "unit": "seed", "unit_reason"} beside a bound: the metric (its
  // path) is each run's share successes / (sum of the trials' paths), and the claim is tested on those per-seed shares
  // like any claim; the counts pooled over the runs are kept beside them as a description (an exact
  // binomial test, count_claim_statistics.hpp, that takes every counted item as an independent trial). Empty: no counts
  std::string count_successes;
  std::vector<std::string> count_trials;
  std::string count_unit_reason;
  // The smallest effect of interest delta, absolute, in the metric's scaled units: the equivalence margin
  // of "not-reproduced" (TOST). Stated here with its reason, or (where the paper prints both arms' numbers) the
  // comparison's smallest_effect_fraction times |the paper's printed difference|; a claim whose paper prints no number
  // must state it.
  std::optional<double> smallest_effect;
  std::string smallest_effect_reason;
  // What the claim judges (claim_test.hpp): "estimand" mean (default; the t-test, for continuous metrics), "bounded
  // mean" (needs "range": [lo, hi], every per-seed value's range in scaled units) or "typical seed", with
  // "estimand_reason" (required for all but the mean). A share ("counts") cannot take the mean: its per-seed values
  // are bounded and pile up at 0, which the t-test does not model.
  std::string estimand = "mean", estimand_reason;
  // "reading": superiority (default) or non-inferiority (a claim of likeness, judged against the margin
  // smallest_effect; claim_statistics.hpp)
  std::string reading = "superiority";
  std::optional<std::pair<double, double>> range;
};
struct ReproductionVariant {
  std::string name, change;
  std::vector<std::string> set;
};
struct ReproductionProfile {
  int seeds = 1;       // the first look's seeds
  std::vector<std::string> set;
  double estimate_seconds = 60;  // for `seeds` seeds
  int jobs = 1;  // runs at a time, each its own process
  // "seeds_cap" (default: seeds): the report adds one seed at a time to the stage while a claim of it
  // is undecided at the family's level and its seeds could still decide it, up to this many; "stopping": the rule
  // that decides at every look, "anytime" (the only one: the anytime-valid interval, whose error the Monte Carlo test
  // checks under looks after every seed).
  int seeds_cap = 0;
  std::string stopping = "anytime";
  // "design": the report's design file (report_design.hpp) the seeds, cap and e-BH's planned share come from; "" when
  // the profile sets its seeds and cap itself (its looks then plan with kPlannedSelectedShare)
  std::string design, design_text;
  double planned_selected_share = 0, design_alpha = 0, g = 0;  // from the design file (0 without one)
  int cap() const { return seeds_cap > 0 ? seeds_cap : seeds; }
  // the report decides the stage's claims at looks: its cap lies above its first seeds, or a design file sets them
  // (one look at the cap where the design's first look is its cap)
  bool has_looks() const { return cap() > seeds || !design.empty(); }
};
// The profiles a reproduction may be run in, in order of size: quick, default, full.
const std::vector<std::string>& profile_names();
// Throws config_error "<what> must be quick, default or full, got '<name>'" unless `name` is one of profile_names().
void check_profile_name(const std::string& name, const std::string& what);

struct Reproduction {
  std::string file, id, stage, title, paper, where, config;
  std::vector<std::string> set;
  std::vector<ReproductionArm> arms;
  std::map<std::string, ReproductionProfile> profiles;  // quick | default | full; a missing profile: not run there
  std::string baseline, treatment;
  double alpha = 0.05;
  double smallest_effect_fraction = 0.5;  // comparison.smallest_effect_fraction: delta = this x |paper's difference|
  std::vector<ReproductionMetric> metrics, diagnostics;
  std::vector<ReproductionVariant> variants;  // empty: the config as it is
  bool claims = true;                         // its rows enter the report's claims table
  std::string compare_with;                   // another reproduction's stage shown first in the variants table
  std::string needs;  // what a run needs that a CPU machine with the bundled data lacks (the report's "not run here")
  nlohmann::ordered_json source;              // the file as read
};


// Reads and checks a reproduction file (unknown keys, missing arms, a comparison naming no arm: one error naming the
// key). Relative config paths resolve against `repo_root`.
Reproduction read_reproduction(const std::string& path, const std::string& repo_root);
// The same from the file's JSON (a sweep keeps its reproduction's text, so that its summary never depends on a later
// edit of the file); `path` names it in errors.
Reproduction parse_reproduction(const nlohmann::ordered_json& source, const std::string& path,
                                const std::string& repo_root);

// Welch's unequal-variance t-test of mean(a) - mean(b): t, degrees of freedom, two-sided p. p is NaN when either
// sample has fewer than two values or both have no spread.
struct WelchResult {
  double difference = 0, t = 0, df = 0, p = 0;
};
WelchResult welch_test(const std::vector<double>& a, const std::vector<double>& b);

// The verdict of one claimed direction: verified (the paper's direction, p < alpha), refuted (the opposite, p < alpha),
// not-reproducible otherwise; with a note saying why ("n/a (1 seed)", "not significant", "no spread").
struct Verdict {
  std::string verdict, note;
  bool direction_holds = false;
};
Verdict judge(const std::string& direction, const WelchResult& w, std::size_t seeds_a, std::size_t seeds_b,
              double alpha);

// The paper's printed difference of a claim metric, treatment - baseline (or - bound), in its printed units: where the
// paper prints a number for both sides at the metric's own path; none otherwise.
std::optional<double> paper_difference(const Reproduction& r, const ReproductionMetric& m);
// The smallest effect of interest of a claim metric and why: the metric's smallest_effect, else the fraction of the
// paper's difference. Throws config_error (file, claim, key) where neither exists.
std::pair<double, std::string> smallest_effect_of(const Reproduction& r, const ReproductionMetric& m);

// The summary of one variant from the runs' metrics.json: runs[arm] = one metrics JSON per seed. Each claim metric's
// row carries "statistics": the test's inputs (each side's mean, sd and seeds, or the bound; the paper's
// sign; alpha; delta and its reason; the paper's difference) and its unadjusted results: difference with its
// (1 - alpha) interval, raw p, TOST p, the minimum detectable effect at 80% power, the seeds per side that detect the
// paper's difference (else delta) at 80% power, where the paper's difference lies against the interval, and the
// four-way outcome of training_outcome.hpp at the raw p (inconclusive "1 seed" with fewer than two seeds a side). The
// report decides with the p adjusted over its family (report_training_outcomes.hpp).
nlohmann::ordered_json summarize_variant(const Reproduction& r, const ReproductionVariant& v,
                                         const std::map<std::string, std::vector<nlohmann::ordered_json>>& runs);

// "mean +- std", or "mean (1 seed)"; the report and the command line print the same.
std::string mean_std_text(const nlohmann::ordered_json& arm_entry, int precision = 1);

// The variants to run: those named (all when `names` is empty; one unnamed variant, the config as it is, when the file
// has none). Throws config_error for a name that is no variant of the file.
std::vector<ReproductionVariant> selected_variants(const Reproduction& r, const std::vector<std::string>& names);
// The reproduction restricted to the named arms (all when empty; no comparison when fewer than two remain). Throws
// config_error when the names match no arm.
Reproduction with_arms(const Reproduction& r, const std::vector<std::string>& names);

// One training run of a reproduction: its variant, arm and folder (<out>/[<variant>/]<arm>/seed<k>), the overrides of
// the reproduction's config that make it, its resolved config, and the run whose final weights start it (an arm's
// init_from: the same variant and seed of that arm), or -1.
struct ReproductionRun {
  std::string variant, arm, dir;
  std::vector<std::string> set;
  RunConfig config;
  long depends = -1;
};
// Every (variant, arm, seed) in that order, each config resolved before anything runs (a bad key: config_error).
// Overrides apply in the order reproduction, profile, variant, arm, `set`, then seed=k. `arm_seeds` (seeds
// by arm): the arms named run seeds 1..n of their own count, the others `seeds` (then 1..N); an arm that another
// starts from (init_from) runs at least as many seeds as that arm. Throws config_error for a name that is no arm or a
// count below 1.
std::vector<ReproductionRun> plan_reproduction_runs(const Reproduction& r, const ReproductionProfile& profile,
                                                    const std::vector<ReproductionVariant>& variants,
                                                    const std::vector<ReproductionArm>& arms,
                                                    const std::vector<std::uint64_t>& seeds,
                                                    const std::vector<std::string>& set, const std::string& out,
                                                    const std::string& repo_root,
                                                    const std::map<std::string, int>& arm_seeds = {});
// Each arm's seeds under `arm_seeds` as plan_reproduction_runs runs them (`seeds` for every arm when it is empty).
std::map<std::string, std::vector<std::uint64_t>> seeds_of_arms(const std::vector<ReproductionArm>& arms,
                                                                const std::vector<std::uint64_t>& seeds,
                                                                const std::map<std::string, int>& arm_seeds);

// summary.json of `reproduce` (and `sweep collect`): the config that made it, then one summarize_variant per variant.
// runs[variant][arm] = the finished runs' metrics.json, in seed order.
nlohmann::ordered_json reproduction_summary(
    const Reproduction& r, const std::vector<ReproductionVariant>& variants, const std::string& profile, int seeds,
    const std::vector<std::string>& set, const nlohmann::ordered_json& base_config, const std::string& git_revision,
    const std::map<std::string, std::map<std::string, std::vector<nlohmann::ordered_json>>>& runs);

// The command line's table of a summary: per variant, one line per metric (ours next to the paper's, the difference,
// Welch's p, the verdict).
std::string summary_table_text(const nlohmann::ordered_json& summary, const Reproduction& r);

// {"key": value, ...} -> "key=value" overrides (strings as they are, the rest as JSON); `where` names it in errors.
std::vector<std::string> config_overrides(const nlohmann::ordered_json& j, const std::string& where);
// {"mean", "std", "seeds": values}: mean null without values, std null with fewer than two (mean_std_text prints it).
nlohmann::ordered_json mean_std_entry(const std::vector<double>& values);

}  // namespace dmlbench::experiments
