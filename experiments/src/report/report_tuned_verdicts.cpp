// Default and tuned verdicts side by side (Musgrave et al. 2020's question asked of each claim).
#include "dmlbench/experiments/report_tuned_verdicts.hpp"

#include "dmlbench/experiments/claim_statistics.hpp"
#include "dmlbench/experiments/json_fields.hpp"
#include "dmlbench/experiments/report_claim_premise.hpp"
#include "dmlbench/experiments/report_claim_stops.hpp"
#include "report_text.hpp"
#include "dmlbench/experiments/report_training_outcomes.hpp"

#include <cmath>
#include <filesystem>
#include <sstream>

namespace dmlbench::experiments {

using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

TunedVerdicts gather_tuned_verdicts(const std::string& work, const std::vector<TunedReproduction>& tuned,
                                    PAdjustment method, const std::vector<Stage>& stages) {
  TunedVerdicts t;
  for (const auto& s : tuned) {
    const std::string p = work + "/" + s.tuned.stage + "/summary.json";
    if (!fs::exists(p)) continue;
    const json j = read_json_file(p, "the tuned stage's summary");
    t.summaries[s.tuned.stage] = j;
    t.studies.push_back(s);
    auto rows = claim_rows_from_reproduction_summary(j, s.tuned.paper, s.tuned.where);
    for (auto& r : rows) r.layer = "experiments";
    t.rows.insert(t.rows.end(), rows.begin(), rows.end());
  }
  read_claims_at_their_stops(t.rows, t.summaries, stages);
  decide_training_claims(t.rows, method);  // the tuned family: its own multiplicity
  return t;
}

namespace {

// j[key], or `absent` where a hand-edited results file has no such key (a const operator[] there would abort).
json field_or(const json& j, const char* key, json absent) {
  return j.is_object() && j.contains(key) ? j[key] : absent;
}

// "optimizer.lr 0.0021, loss.margin 0.31; 4 epochs"
std::string settings_text(const json& best) {
  std::ostringstream o;
  o.precision(2);
  bool first = true;
  const json params = field_or(best, "params", json::object());
  for (auto it = params.begin(); it != params.end(); ++it) {
    o << (first ? "" : ", ") << it.key() << " ";
    if (it.value().is_number())
      o << it.value().get<double>();
    else
      o << it.value().dump();
    first = false;
  }
  o << "; " << best.value("epochs", 0) << " epochs";
  return o.str();
}

// Whether the study searched the trainer code its tuned runs train with (its recorded trainer code set against this
// tree's): a study searched under other code chose its settings for another trainer.
std::string searched_code_text(const TunedReproduction& s) {
  if (s.trainer_code_now.empty()) return "";
  const std::string then = s.results.value("trainer_code", "");
  if (then.empty())
    return " **The trainer code at its search is not recorded**: the tuned runs may train other code than the study "
           "searched (experiments/tuning.md says what is known to differ).";
  if (then == s.trainer_code_now) return " Searched under the trainer code the tuned runs train with.";
  return " **Searched under other trainer code** than the tuned runs train with (trainer code set " + then +
         " at the search, " + s.trainer_code_now + " now): its settings were chosen for another trainer.";
}

std::string study_table(const TunedReproduction& s) {
  std::ostringstream o;
  const auto& res = s.results;
  const json objective = field_or(res, "objective", json::object()), budget = field_or(res, "budget", json::object());
  o << "Study `" << fs::path(s.results_file).filename().string() << "`: " << res.value("trials_per_arm", 0)
    << " TPE trials per arm on " << res.value("folds", 0) << " class-disjoint folds (level "
    << res.value("fold_level", std::string("training")) << "), objective " << objective.value("path", "")
    << ", up to " << budget.value("epochs", 0) << " epochs with patience " << budget.value("patience", 0)
    << "; git " << res.value("git_revision", "") << ", " << fixed1(res.value("wall_seconds", 0.0) / 60)
    << " min of trials." << searched_code_text(s) << "\n\n| arm | chosen settings | validation MAP@R | trials (failed) |\n|---|---|---|---|\n";
  for (const auto& a : field_or(res, "arms", json::array())) {
    int failed = 0;
    const json trials = field_or(a, "trials", json::array());
    for (const auto& t : trials) failed += t.value("state", "") == "failed" ? 1 : 0;
    const json b = a.value("best", json());
    o << "| " << markdown_cell(a.value("name", "")) << " | "
      << markdown_cell(b.is_object() ? settings_text(b) : "no complete trial") << " | "
      << (b.is_object() ? fixed1(100 * b.value("objective", 0.0)) : "-") << " | " << trials.size() << " ("
      << failed << ") |\n";
  }
  return o.str();
}

// The sign of a training row's difference where its own anytime interval (level alpha, the claim alone, as its
// reproduction decides it) excludes 0; 0 where not (or no per-seed statistics).
int significant_sign(const json& statistics) {
  if (!statistics.is_object() || !claim_statistics_testable(statistics)) return 0;
  const ClaimDecision alone = claim_decision(statistics, ClaimFamily{});
  if (alone.outcome == TrainingOutcome::inconclusive || alone.outcome == TrainingOutcome::not_reproduced) return 0;
  const int paper = statistics.at("paper_sign").get<int>();
  return alone.outcome == TrainingOutcome::refuted ? -paper : paper;
}

}  // namespace

namespace {

// +1 for a row decided on the paper's side (verified, direction-only), -1 for refuted, 0 otherwise.
int decided_side(const std::string& outcome) {
  if (outcome == "verified" || outcome == "direction-only") return +1;
  return outcome == "refuted" ? -1 : 0;
}

// The default row's own verdict (a contested row's is the outcome its statistics keep).
std::string default_outcome(const ClaimRow& d) {
  return d.verdict == "contested" && d.training() ? d.statistics.value("outcome", d.verdict) : d.verdict;
}

}  // namespace

std::string robustness(const ClaimRow& tuned, const std::vector<ClaimRow>& default_rows) {
  const auto* d = row_with_id(default_rows, tuned.id);
  if (!d) return "-";
  const int a = significant_sign(d->statistics), b = significant_sign(tuned.statistics);
  if (a != 0 && b != 0 && a != b) return "reversed";
  return default_outcome(*d) == tuned.verdict ? "robust" : "fragile";
}

std::vector<std::string> mark_tuned_premises(TunedVerdicts& t, const std::vector<ClaimRow>& default_rows) {
  for (auto& r : t.rows)
    if (const auto* d = row_with_id(default_rows, r.id)) r.scope = d->scope;
  return mark_premise_not_reached(t.rows, default_rows);
}

std::map<std::string, std::string> tuned_readings(const TunedVerdicts& t, const std::vector<ClaimRow>& default_rows) {
  std::map<std::string, std::string> out;
  for (const auto& tuned : t.rows)
    if (row_with_id(default_rows, tuned.id))
      out[tuned.id] = tuned.verdict + " (" + robustness(tuned, default_rows) + "): " + tuned.measured;
  return out;
}

std::vector<std::string> mark_contested(std::vector<ClaimRow>& default_rows, const TunedVerdicts& t) {
  std::vector<std::string> marked;
  for (auto& d : default_rows) {
    const ClaimRow* tuned = row_with_id(t.rows, d.id);
    if (!d.training() || !tuned) continue;
    const int a = decided_side(default_outcome(d)), b = decided_side(tuned->verdict);
    if (a == 0 || b == 0 || a == b) continue;
    d.note = default_outcome(d) + " at the default settings, " + tuned->verdict +
             " with both arms tuned by the same search budget (" + tuned->measured.substr(0, 400) +
             "): the direction turns on settings the paper does not print. " + d.note;
    d.verdict = "contested";
    marked.push_back(d.id);
  }
  return marked;
}

std::string tuned_verdicts_markdown(const TunedVerdicts& t, const std::vector<ClaimRow>& default_rows,
                                    PAdjustment method) {
  if (t.studies.empty()) return "";
  std::ostringstream o;
  o << "## Default and tuned verdicts\n\n"
    << "Each tuned reproduction trains every arm with the settings its own hyperparameter search chose: the same "
       "number of TPE trials per arm, scored on class-disjoint folds of the training classes and never on the test "
       "classes (experiments/tuning.md; the protocol of Musgrave, Belongie and Lim, \"A Metric Learning Reality "
       "Check\", 2020). A claim is **robust** when its tuned verdict is its default verdict and **fragile** when not; "
       "**reversed** when its default and tuned differences each lie apart from 0 by the claim's own anytime "
       "interval at level alpha (the claim alone, as its reproduction decides it), in opposite directions, whatever "
       "the family's verdicts. "
       "The tuned rows are decided like the default ones, over their own family of "
    << t.rows.size() << " tuned rows (" << (method == PAdjustment::holm ? "Bonferroni" : "e-BH")
    << " on e-values); claims read at a fixed curve point are left out (a tuned length moves the point).\n\n";
  for (const auto& s : t.studies) {
    o << "### " << s.tuned.title << "\n\n" << study_table(s) << "\n"
      << "| claim | default | tuned | mark | tuned measurement |\n|---|---|---|---|---|\n";
    for (const auto& r : t.rows) {
      bool mine = false;
      for (const auto& m : s.tuned.metrics) mine = mine || m.claim == r.id;
      if (!mine) continue;
      const auto* d = row_with_id(default_rows, r.id);
      o << "| " << markdown_cell(r.id) << " | " << (d ? default_outcome(*d) : std::string("-")) << " | " << r.verdict << " | "
        << robustness(r, default_rows) << " | " << markdown_cell(r.measured) << " |\n";
    }
    o << "\n";
  }
  return o.str();
}

json tuned_verdicts_json(const TunedVerdicts& t, const std::vector<ClaimRow>& default_rows) {
  json claims = json::array(), studies = json::array();
  for (const auto& r : t.rows) {
    const auto* d = row_with_id(default_rows, r.id);
    claims.push_back({{"id", r.id}, {"default", d ? json(default_outcome(*d)) : json(nullptr)}, {"tuned", r.verdict},
                      {"mark", robustness(r, default_rows)}, {"measured", r.measured}, {"statistics", r.statistics}});
  }
  for (const auto& s : t.studies) {
    json arms = json::array();
    for (const auto& a : field_or(s.results, "arms", json::array()))
      arms.push_back({{"arm", a.value("name", "")}, {"best", a.value("best", json())}});
    studies.push_back({{"stage", s.tuned.stage}, {"default_stage", s.default_stage},
                       {"results", fs::path(s.results_file).filename().string()},
                       {"space_hash", s.results.value("space_hash", "")}, {"arms", arms}});
  }
  return {{"claims", claims}, {"studies", studies}};
}

}  // namespace dmlbench::experiments
