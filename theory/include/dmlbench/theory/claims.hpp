// The claims table: every checked identity of [XHN], [XHN-A], [XGS] and [HTL] with its paper key, equation, largest error
// seen, tolerance and verdict (verified, refuted, erratum with the corrected form, not reproducible here and why).
#pragma once

#include "dmlbench/theory/spn_decomposition.hpp"

#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace dmlbench::theory {

enum class Verdict { verified, refuted, erratum, not_reproducible };
const char* name(Verdict v);

// A row's negative control and what the row's own check made of it: the verdict must differ from the row's (a
// verified row refutes its perturbation; an erratum refutes its perturbed corrected form).
struct ControlResult {
  std::string perturbation;  // what was perturbed, e.g. "S_ap and S_an swapped"
  double error = 0;          // the row's error measure on the perturbed form
  Verdict verdict = Verdict::refuted;
};

struct ClaimResult {
  std::string id;         // stable key, e.g. "xhn-eq19"
  std::string paper;      // XHN, XHN-A, XGS
  std::string equation;   // "eq 19", "Sec 6.1"
  std::string statement;  // the claim in one line
  Verdict verdict = Verdict::refuted;
  double max_error = 0;   // largest error of the printed form over all samples
  double tolerance = 0;
  std::string tolerance_reason;
  std::size_t samples = 0;
  std::optional<double> corrected_error;  // for errata: largest error of the corrected form
  std::string corrected_form;
  std::string witness;    // an input on which the printed form fails
  std::string note;
  // What was measured, where max_error is not an error against a tolerance (a fraction against a threshold, a
  // minimizer's signed margin): the report shows this in place of "error ... (tol ...)". Generated from the values.
  std::string measured;
  // Refuted and erratum rows: the signed amount by which the counterexample wins (positive: it wins), computed from
  // the values the check used, and what it compares ("candidate 0.045375 minus objective 0.0451736").
  std::optional<double> margin;
  std::string margin_of;
  // Every row has one of these two: its pinned negative control, or why it has none.
  std::optional<ControlResult> control;
  std::string control_not_applicable;
};

// A number as a person writes it: `digits` significant digits, no trailing zeros (0.045375, 2e-04 -> "0.0002").
std::string format_short(double v, int digits = 6);
// A signed number in one-digit scientific notation: "+2.0e-04".
std::string format_signed_sci(double v);
// An identity row that fails: its margin is the worst error above the tolerance, and margin_of says so.
void set_identity_margin(ClaimResult& r, const std::string& form = "printed");

struct CheckConfig {
  std::uint64_t seed = 20261121;
  int samples_per_dim = 200;
  std::vector<int> dims = {3, 16, 128};
  bool edge_cases = true;
};

// One sample of a property check: a unit triplet, its similarities, gamma measured from the vectors, a step size.
struct Sample {
  Triplet t;
  TripletSimilarities s;
  double gamma = 0;
  double lr = 0;
  int dim = 0;
  std::string describe() const;
};

// Random triplets in every dimension of the config plus the hand-picked edge cases (S = +-1, gamma = +-1, 0),
// each with a learning rate drawn log-uniformly from [1e-3, 1].
std::vector<Sample> make_samples(const CheckConfig& c);

struct ClaimMeta {
  std::string id, paper, equation, statement;
  double tolerance;
  std::string tolerance_reason;
  // Forms that go through sqrt(1 - S^2) or the measured gamma are ill-conditioned near |S| = 1: a rounding of S by
  // delta moves sqrt(1 - S^2) by delta |S| / sqrt(1 - S^2). For them the error of a sample is divided by its
  // condition number (see condition_number); max_error reports that conditioned error.
  bool conditioned = false;
};

// max(1, 1/sqrt(1-S_ap^2), 1/sqrt(1-S_an^2)) of a sample, a term left out where S is exactly +-1 (then
// sqrt(1-S^2) = 0 exactly and no rounding is amplified). 707 at |S| = 1 - 1e-6, the most awkward sample.
double condition_number(const Sample& s);

using SampleFn = std::function<double(const Sample&)>;

// The pinned negative control of an identity row: the form the verdict rests on (the printed form, or for a row with
// a corrected form the corrected one) perturbed as `name` says (a sign flip, S_ap and S_an swapped, a factor
// dropped), evaluated like the form it replaces. The row's check must refute it.
struct Perturbation {
  std::string name;
  SampleFn form;
};

// The generic identity checker: the printed form against the truth (computed on explicit vectors) on every sample.
// If the printed form fails and a corrected form is given that holds, the verdict is erratum. The perturbation is
// required (an empty one throws): it replaces the corrected form where one is given, the printed form otherwise, and
// its outcome is the row's `control`.
ClaimResult check_identity(const ClaimMeta& meta, const std::vector<Sample>& samples, const SampleFn& printed,
                           const SampleFn& truth, const Perturbation& control, const SampleFn& corrected = nullptr,
                           const std::string& corrected_form = "");

// Errors are relative: |printed - true| / max(1, |true|). Tolerance of a closed-form identity in double: each side is
// a sum of < 20 terms after length-d dot products (d <= 128), each term at most the size of the result times the
// cancellation factor of sqrt(1-S^2) near |S| = 1 (<= 710 at S = 1 - 1e-6 but multiplying a term of size 1.4e-3):
// (128 + 20) eps x 3 = 1e-13, and 1e-12 leaves a factor 10. A wrong coefficient errs by >= 1e-4 on the samples.
inline constexpr double kIdentityTolerance = 1e-12;
inline constexpr const char* kIdentityToleranceReason =
    "relative to max(1,|value|): (d + 20) eps x 3 = 1e-13 for d <= 128, x10 margin";
inline constexpr const char* kConditionedToleranceReason =
    "relative to max(1,|value|) and divided by cond = max(1, 1/sqrt(1-S^2)) (<= 707): (d + 20) eps x 3, x10 margin";

// Autodiff gradients cost O(d^2) (one forward pass per coordinate): the claims that use them take every sample up to
// this dimension and every k-th sample above it.
inline constexpr int kFullAutodiffDim = 16;
std::vector<Sample> thin_high_dimensions(const std::vector<Sample>& samples, int stride);

// [XHN] and [XHN-A] claims (items 1-7 of the bench), [XGS] claims (item 8), and all of them.
std::vector<ClaimResult> xhn_claims(const CheckConfig& c);
std::vector<ClaimResult> xgs_claims(const CheckConfig& c);
std::vector<ClaimResult> htl_claims(const CheckConfig& c);  // [HTL] Sec 4.1-4.2 (claims_htl.cpp)
std::vector<ClaimResult> all_claims(const CheckConfig& c);

// Single claims, for the tests.
std::vector<ClaimResult> check_spn_decomposition(const std::vector<Sample>& s);  // [XHN eq 19], [XHN-A eq 3]
std::vector<ClaimResult> check_printed_gradients(const std::vector<Sample>& s);  // [XHN eqs 4-6, 13-15, 29-34]
std::vector<ClaimResult> check_similarity_updates(const std::vector<Sample>& s); // item 3
std::vector<ClaimResult> check_norm_updates(const std::vector<Sample>& s);       // item 4
std::vector<ClaimResult> check_similarity_deltas(const std::vector<Sample>& s);  // item 5, [XHN eqs 9-10]
std::vector<ClaimResult> check_second_order_integration();                      // item 6 (b), (c)
std::vector<ClaimResult> check_no_top_left_movement();                          // item 7
std::vector<ClaimResult> check_vector_field_problems();
ClaimResult check_htl_class_distance_range(const CheckConfig& c);              // [HTL Sec 3.2]
ClaimResult check_htl_margin_attainable(const CheckConfig& c, double beta);    // [HTL Sec 3.3], beta = 0.1 in [HTL]  // [XHN Sec 4 Problems 1-2, Sec 5] on the Fig 2 field

// The grid of item 7, stated once: it is the claim's definition of "everywhere".
struct TopLeftGrid {
  int grid = 100;  // cell centres of [0,1)^2
  std::vector<double> gammas = {-1.0, -0.5, 0.0, 0.2, 0.5, 0.8, 1.0};
  std::vector<double> entanglements = {0.0, 0.4, 0.8, 1.0};
  std::vector<double> lrs = {1e-6, 1e-3, 1e-2, 0.1, 0.2, 0.5, 0.6, 1.0, 2.0, 5.0};
};

struct TopLeftCount {
  std::string loss;
  double lr;
  std::size_t points = 0, top_left = 0;
  std::string first_witness;
  double first_margin = 0;   // min(-dS_ap^total, dS_an^total) at the first witness: how far it lies inside top-left
  std::size_t swapped = 0;   // down-right points: the quadrant test with S_ap and S_an swapped (a negative control)
  double min_gamma = INFINITY;  // the smallest gamma with a top-left point
};
std::vector<TopLeftCount> count_top_left(const TopLeftGrid& g);

}  // namespace dmlbench::theory
