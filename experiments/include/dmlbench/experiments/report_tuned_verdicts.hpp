// The report's default and tuned verdicts side by side: each tuned reproduction's claims decided in
// their own family (Holm over the tuned rows), each marked robust where the tuned verdict is the default one and
// fragile where it is not, with each arm's chosen settings.
#pragma once

#include "dmlbench/experiments/multiplicity.hpp"
#include "dmlbench/experiments/report_claim_rows.hpp"
#include "dmlbench/experiments/report_plan.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace dmlbench::experiments {

struct TunedVerdicts {
  std::vector<TunedReproduction> studies;  // those whose tuned stage has a summary
  std::vector<ClaimRow> rows;              // their claim rows, decided over this family
  std::map<std::string, nlohmann::ordered_json> summaries;  // tuned stage -> its summary.json
};

// The tuned stages' summaries under work and their claim rows, each read at its own stop in its stage's design
// (report_claim_stops.hpp; `stages`: the report's plan) and decided over the tuned rows' own family.
TunedVerdicts gather_tuned_verdicts(const std::string& work, const std::vector<TunedReproduction>& tuned,
                                    PAdjustment method, const std::vector<Stage>& stages = {});

// "reversed" when the default and the tuned difference are each significant at their raw p (p < alpha) and of
// opposite signs (a sign that flipped, whatever the adjusted verdicts say); else "robust" when the tuned
// row's verdict is the default row's, "fragile" when not; "-" without a default row.
std::string robustness(const ClaimRow& tuned, const std::vector<ClaimRow>& default_rows);

// The counting rule for a sign that turns on settings the paper does not print: a default training row decided in one
// direction (verified or direction-only against refuted) whose tuned row, both arms tuned with the same budget, is
// decided in the other direction at the tuned family's level, is **contested**: its verdict becomes "contested" and its
// note says both readings; the per-paper counts keep it apart from verified and refuted. Its statistics keep the
// default decision ("outcome"). Returns the ids marked.
// The premise rule (report_claim_premise.hpp) on the tuned rows, so that a tuned twin is judged as its default row is:
// each tuned row takes its default row's scope, and its premise is read from the tuned runs (a side's mean) or from
// the report's rows (another row's verdict). Call before mark_contested, on the default rows as they are before their
// own premises are marked. Returns the tuned ids marked premise-not-reached.
std::vector<std::string> mark_tuned_premises(TunedVerdicts& t, const std::vector<ClaimRow>& default_rows);

std::vector<std::string> mark_contested(std::vector<ClaimRow>& default_rows, const TunedVerdicts& t);

// Per default row with a tuned twin, what the twin found, for the sheets: "<tuned verdict> (<robustness>): <its
// evidence>", so that a finding at the default settings shows beside it what equal tuning of both arms gives.
std::map<std::string, std::string> tuned_readings(const TunedVerdicts& t, const std::vector<ClaimRow>& default_rows);

// The section of REPORT.md ("" without tuned studies): per tuned reproduction, each claim's default and tuned verdict
// and its mark, then each arm's chosen settings, validation objective and trials.
std::string tuned_verdicts_markdown(const TunedVerdicts& t, const std::vector<ClaimRow>& default_rows,
                                    PAdjustment method);

// claims.json's "tuned": per claim, the default and tuned verdict, the mark, the tuned statistics; per study, the
// chosen settings.
nlohmann::ordered_json tuned_verdicts_json(const TunedVerdicts& t, const std::vector<ClaimRow>& default_rows);

}  // namespace dmlbench::experiments
