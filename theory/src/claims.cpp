#include "dmlbench/theory/claims.hpp"
#include "dmlbench/theory/paper_registry.hpp"

#include "dmlbench/theory/triplet_sampler.hpp"

#include <cmath>
#include <random>
#include <sstream>
#include <stdexcept>

namespace dmlbench::theory {

const char* name(Verdict v) {
  switch (v) {
    case Verdict::verified: return "verified";
    case Verdict::refuted: return "refuted";
    case Verdict::erratum: return "erratum";
    case Verdict::not_reproducible: return "not-reproducible";
  }
  return "?";
}

std::string Sample::describe() const {
  std::ostringstream o;
  o.precision(6);
  o << "d=" << dim << " S_ap=" << s.ap << " S_an=" << s.an << " S_pn=" << s.pn << " gamma=" << gamma
    << " lr=" << lr;
  return o.str();
}

double condition_number(const Sample& s) {
  double k = 1.0;
  for (double x : {s.s.ap, s.s.an}) {
    const double sn = std::sqrt((1 - x) * (1 + x));
    if (sn > 0) k = std::max(k, 1.0 / sn);
  }
  return k;
}

namespace {
Sample finish(Triplet t, double lr, int d) {
  Sample s;
  s.s = similarities(t);
  s.gamma = measure_gamma(t);
  s.t = std::move(t);
  s.lr = lr;
  s.dim = d;
  return s;
}
}  // namespace

std::vector<Sample> make_samples(const CheckConfig& c) {
  std::mt19937_64 rng(c.seed);
  std::uniform_real_distribution<double> log_lr(std::log(1e-3), 0.0);
  std::vector<Sample> out;
  for (int d : c.dims) {
    for (int i = 0; i < c.samples_per_dim; ++i) {
      Triplet t = random_triplet(d, rng);
      out.push_back(finish(std::move(t), std::exp(log_lr(rng)), d));
    }
    if (c.edge_cases) {
      const Eigen::MatrixXd frame = random_orthonormal_frame(d, rng);
      const auto edges = edge_cases();
      // alternate the smallest and the largest step so both extremes meet every kind of edge point
      for (std::size_t i = 0; i < edges.size(); ++i) {
        const auto& e = edges[i];
        out.push_back(finish(make_triplet(e.s_ap, e.s_an, e.gamma, frame), (i % 2) ? 1.0 : 1e-3, d));
      }
    }
  }
  return out;
}

namespace {
// The largest relative (and, for conditioned rows, conditioned) error of `form` against `truth` over the samples.
struct Worst {
  double error = 0;
  const Sample* sample = nullptr;
  double got = 0, want = 0;
};
Worst worst_error(const ClaimMeta& meta, const std::vector<Sample>& samples, const SampleFn& form,
                  const SampleFn& truth) {
  Worst w;
  for (const auto& s : samples) {
    const double want = truth(s), got = form(s);
    const double cond = meta.conditioned ? condition_number(s) : 1.0;
    double err = std::abs(got - want) / (std::max(1.0, std::abs(want)) * cond);
    if (std::isnan(err)) err = INFINITY;  // a NaN is an error, never a pass
    if (w.sample == nullptr || err > w.error) w = {err, &s, got, want};
  }
  return w;
}

// erratum when the printed form fails and a corrected form holds; refuted when both fail
Verdict identity_verdict(double printed_error, const std::optional<double>& corrected_error, double tol) {
  if (printed_error <= tol) return Verdict::verified;
  return corrected_error && *corrected_error <= tol ? Verdict::erratum : Verdict::refuted;
}
}  // namespace

std::string format_short(double v, int digits) {
  if (!std::isfinite(v)) return v > 0 ? "inf" : v < 0 ? "-inf" : "nan";
  std::ostringstream o;
  o.precision(digits);
  o << v;
  return o.str();
}

std::string format_signed_sci(double v) {
  if (!std::isfinite(v)) return v > 0 ? "+inf" : v < 0 ? "-inf" : "nan";
  std::ostringstream o;
  o << std::showpos << std::scientific;
  o.precision(1);
  o << v;
  return o.str();
}

void set_identity_margin(ClaimResult& r, const std::string& form) {
  r.margin = r.max_error - r.tolerance;
  r.margin_of = form + " form's worst error " + format_short(r.max_error, 3) + " minus the tolerance " +
                format_short(r.tolerance, 3);
}

ClaimResult check_identity(const ClaimMeta& meta, const std::vector<Sample>& samples, const SampleFn& printed,
                           const SampleFn& truth, const Perturbation& control, const SampleFn& corrected,
                           const std::string& corrected_form) {
  if (control.name.empty() || !control.form)
    throw std::invalid_argument("identity row " + meta.id + " has no negative control (a named perturbation)");
  ClaimResult r;
  r.id = meta.id;
  r.paper = meta.paper;
  r.equation = meta.equation;
  r.statement = meta.statement;
  r.tolerance = meta.tolerance;
  r.tolerance_reason = meta.tolerance_reason;
  r.samples = samples.size();
  const Worst w = worst_error(meta, samples, printed, truth);
  r.max_error = w.error;
  if (corrected) r.corrected_error = worst_error(meta, samples, corrected, truth).error;
  if (w.sample != nullptr && r.max_error > r.tolerance)
    r.witness = w.sample->describe() + ": printed " + format_short(w.got) + ", true " + format_short(w.want);
  r.verdict = identity_verdict(r.max_error, r.corrected_error, r.tolerance);
  if (r.verdict == Verdict::erratum) r.corrected_form = corrected_form;
  if (r.verdict != Verdict::verified) set_identity_margin(r);
  // the control replaces the form the verdict rests on: the corrected form where one is given, else the printed one
  const double ce = worst_error(meta, samples, control.form, truth).error;
  r.control = ControlResult{control.name, ce,
                            corrected ? identity_verdict(r.max_error, ce, r.tolerance)
                                      : identity_verdict(ce, std::nullopt, r.tolerance)};
  return r;
}

std::vector<Sample> thin_high_dimensions(const std::vector<Sample>& samples, int stride) {
  std::vector<Sample> out;
  std::size_t k = 0;
  for (const auto& s : samples)
    if (s.dim <= kFullAutodiffDim || (k++ % std::size_t(stride)) == 0) out.push_back(s);
  return out;
}

std::vector<ClaimResult> all_claims(const CheckConfig& c) {
  std::vector<ClaimResult> out;
  for (const auto& [paper, claims] : registered_theory_claims()) {  // in the papers' order (paper_registry.hpp)
    auto more = claims(c);
    out.insert(out.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  }
  return out;
}

}  // namespace dmlbench::theory
