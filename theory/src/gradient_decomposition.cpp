#include "dmlbench/theory/gradient_decomposition.hpp"

#include <algorithm>
#include <cmath>

namespace dmlbench::theory::xgs {

namespace {
// The unit vector along v, and 0 for v = 0 (then every pair weight that multiplies it is 0 too).
Eigen::VectorXd unit(const Eigen::VectorXd& v) {
  const double n = v.norm();
  return n > 0 ? Eigen::VectorXd(v / n) : Eigen::VectorXd::Zero(v.size());
}
}  // namespace

UnitDirections unit_directions(Direction dir, const Triplet& t) {
  if (dir == Direction::euclidean)
    return {unit(t.a - t.p), unit(t.n - t.a), unit(t.p - t.a), unit(t.a - t.n)};
  return {t.a, -t.a, t.p, -t.n};
}

PairWeights euclidean_pair_weight(const Triplet& t) { return {2 * (t.a - t.p).norm(), 2 * (t.a - t.n).norm()}; }

PairWeights linear_pair_weight(double s_ap, double s_an, double gamma, double m) {
  return {gamma * std::max(0.0, 1 + m - s_ap), gamma * std::max(0.0, s_an + m)};
}

PairWeights sigmoid_pair_weight(double s_ap, double s_an, double alpha, double beta, double lambda) {
  return {alpha / (1 + std::exp(alpha * (s_ap - lambda))), beta / (1 + std::exp(-beta * (s_an - lambda)))};
}

double hinge_triplet_weight(const Triplet& t, double margin) {
  return (t.a - t.p).squaredNorm() - (t.a - t.n).squaredNorm() + margin > 0 ? 1.0 : 0.0;
}

double nca_triplet_weight(double s_ap, double s_an, double scale) { return 1 / (1 + std::exp(scale * (s_ap - s_an))); }

double circle_triplet_weight(double s_ap, double s_an, double gamma, double m) {
  const double ap = std::max(0.0, 1 + m - s_ap), an = std::max(0.0, s_an + m);
  const double z = gamma * (an * (s_an - m) - ap * (s_ap - (1 - m)));
  return 1 / (1 + std::exp(-z));
}

TripletDescent compose(Direction dir, const PairWeights& w, double tw, const Triplet& t) {
  const auto u = unit_directions(dir, t);
  return {tw * (w.p * u.a_from_p + w.n * u.a_from_n), tw * w.p * u.p, tw * w.n * u.n};
}

MsSelection ms_mining(const AnchorSet& s) {
  MsSelection sel;
  double min_pos = INFINITY, max_neg = -INFINITY;
  for (const auto& p : s.positives) min_pos = std::min(min_pos, s.a.dot(p));
  for (const auto& n : s.negatives) max_neg = std::max(max_neg, s.a.dot(n));
  for (const auto& p : s.positives) sel.positive.push_back(s.a.dot(p) - kMsMiningEpsilon < max_neg);
  for (const auto& n : s.negatives) sel.negative.push_back(s.a.dot(n) + kMsMiningEpsilon > min_pos);
  return sel;
}

MsWeights ms_pair_weights(const AnchorSet& s, const MsSelection& sel, const LossParams& c) {
  MsWeights w;
  for (std::size_t j = 0; j < s.positives.size(); ++j) {
    double wj = 0;
    if (sel.positive[j]) {
      const double sj = s.a.dot(s.positives[j]);
      double den = std::exp(c.alpha * (sj - c.lambda));
      for (std::size_t k = 0; k < s.positives.size(); ++k)
        if (sel.positive[k]) den += std::exp(-c.alpha * (s.a.dot(s.positives[k]) - sj));
      wj = 1 / den;
    }
    w.positive.push_back(wj);
  }
  for (std::size_t j = 0; j < s.negatives.size(); ++j) {
    double wj = 0;
    if (sel.negative[j]) {
      const double sj = s.a.dot(s.negatives[j]);
      double den = std::exp(-c.beta * (sj - c.lambda));
      for (std::size_t k = 0; k < s.negatives.size(); ++k)
        if (sel.negative[k]) den += std::exp(c.beta * (s.a.dot(s.negatives[k]) - sj));
      wj = 1 / den;
    }
    w.negative.push_back(wj);
  }
  return w;
}

Eigen::VectorXd ms_compose(const AnchorSet& s, const MsWeights& w) {
  const Eigen::Index d = s.a.size();
  const std::size_t np = s.positives.size(), nn = s.negatives.size();
  Eigen::VectorXd out = Eigen::VectorXd::Zero(d * Eigen::Index(1 + np + nn));
  Eigen::VectorXd da = Eigen::VectorXd::Zero(d);
  for (std::size_t j = 0; j < np; ++j) {
    da += w.positive[j] * s.positives[j];
    out.segment(d * Eigen::Index(1 + j), d) = w.positive[j] * s.a;
  }
  for (std::size_t j = 0; j < nn; ++j) {
    da -= w.negative[j] * s.negatives[j];
    out.segment(d * Eigen::Index(1 + np + j), d) = -w.negative[j] * s.a;
  }
  out.head(d) = da;
  return out;
}

}  // namespace dmlbench::theory::xgs
