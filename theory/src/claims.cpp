#include "dmlbench/theory/claims.hpp"

#include "dmlbench/theory/triplet_sampler.hpp"

#include <cmath>
#include <random>
#include <sstream>

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
  o.precision(17);
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

ClaimResult check_identity(const ClaimMeta& meta, const std::vector<Sample>& samples, const SampleFn& printed,
                           const SampleFn& truth, const SampleFn& corrected, const std::string& corrected_form) {
  ClaimResult r;
  r.id = meta.id;
  r.paper = meta.paper;
  r.equation = meta.equation;
  r.statement = meta.statement;
  r.tolerance = meta.tolerance;
  r.tolerance_reason = meta.tolerance_reason;
  r.samples = samples.size();
  double worst_corrected = 0;
  const Sample* worst = nullptr;
  double worst_printed = 0, worst_truth = 0;
  for (const auto& s : samples) {
    const double want = truth(s), got = printed(s);
    const double cond = meta.conditioned ? condition_number(s) : 1.0;
    double err = std::abs(got - want) / (std::max(1.0, std::abs(want)) * cond);
    if (std::isnan(err)) err = INFINITY;  // a NaN is an error, never a pass
    if (worst == nullptr || err > r.max_error) {
      r.max_error = err;
      worst = &s;
      worst_printed = got;
      worst_truth = want;
    }
    if (corrected) {
      double ce = std::abs(corrected(s) - want) / (std::max(1.0, std::abs(want)) * cond);
      if (std::isnan(ce)) ce = INFINITY;
      worst_corrected = std::max(worst_corrected, ce);
    }
  }
  if (worst != nullptr && r.max_error > r.tolerance) {
    std::ostringstream o;
    o.precision(10);
    o << worst->describe() << ": printed " << worst_printed << ", true " << worst_truth;
    r.witness = o.str();
  }
  if (r.max_error <= r.tolerance) {
    r.verdict = Verdict::verified;
  } else if (corrected && worst_corrected <= r.tolerance) {
    r.verdict = Verdict::erratum;
    r.corrected_error = worst_corrected;
    r.corrected_form = corrected_form;
  } else {
    r.verdict = Verdict::refuted;
    if (corrected) r.corrected_error = worst_corrected;
  }
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
  auto out = xhn_claims(c);
  for (auto&& more : {xgs_claims(c), htl_claims(c)}) out.insert(out.end(), more.begin(), more.end());
  return out;
}

}  // namespace dmlbench::theory
