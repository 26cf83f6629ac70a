#include "dmlbench/sims/easy_positive_objective.hpp"

#include <algorithm>
#include <numeric>

namespace dmlbench::sims {

namespace {

std::vector<int> order_from(const Eigen::MatrixXd& D, int i) {
  std::vector<int> o;
  for (int l = 0; l < D.rows(); ++l)
    if (l != i) o.push_back(l);
  std::stable_sort(o.begin(), o.end(), [&](int a, int b) { return D(i, a) < D(i, b); });  // ties: by index
  return o;
}

}  // namespace

EpsEvaluation expected_eps_objective(const ObjectiveConfig& c, const Eigen::MatrixXd& D, const Eigen::VectorXd& beta) {
  c.validate();
  const auto& m = c.model;
  const int n = m.n, t = m.t;
  if (D.rows() != n || D.cols() != n) throw theory::domain_error("the distance matrix must be n x n");
  std::vector<std::vector<double>> pi(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) pi[std::size_t(i)] = m.label_distribution(i);
  EpsEvaluation e;
  e.dcost_dD = Eigen::MatrixXd::Zero(n, n);
  e.dcost_dbeta = Eigen::VectorXd::Zero(n);
  e.anchor_cost = Eigen::VectorXd::Zero(n);
  const double a = c.alpha;
  const auto nt = static_cast<std::size_t>(t);
  std::vector<double> prefix(nt), ac(nt), s_after(nt);
  std::vector<int> rank(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const auto order = order_from(D, i);
    for (std::size_t r = 0; r < order.size(); ++r) rank[std::size_t(order[r])] = int(r);
    std::fill(prefix.begin(), prefix.end(), 1.0);
    const auto& pii = pi[std::size_t(i)];
    const double cost_before = e.cost;
    for (std::size_t r = 0; r < order.size(); ++r) {
      const int j = order[r];
      const auto& pij = pi[std::size_t(j)];
      double s_before = 0;  // E[Phi delta_ij]
      for (int cl = 0; cl < t; ++cl) {
        ac[std::size_t(cl)] = pii[std::size_t(cl)] * pij[std::size_t(cl)] * prefix[std::size_t(cl)];
        s_before += ac[std::size_t(cl)];
      }
      if (c.objective == Objective::triplet) {
        for (int kc = 0; kc < t; ++kc) {  // weight of a later k of true class kc
          double s = 0;
          const auto& pk = pi[std::size_t(kc * (n / t))];  // a point of true class kc
          for (int cl = 0; cl < t; ++cl) s += ac[std::size_t(cl)] * (1 - pk[std::size_t(cl)]);
          s_after[std::size_t(kc)] = s;
        }
        for (int k = 0; k < n; ++k) {
          if (k == i || k == j) continue;
          const double w = rank[std::size_t(k)] < int(r) ? s_before : s_after[std::size_t(m.class_of(k))];
          const double z = D(i, j) - D(i, k) + a;
          if (w > 0 && z > 0) {
            e.cost += w * z;
            e.dcost_dD(i, j) += w;
            e.dcost_dD(i, k) -= w;
          }
        }
      } else {  // margin
        const double pos = D(i, j) - beta(i) + a, neg = beta(i) - D(i, j) + a;
        const double pneg = 1 - m.same_label(m.class_of(i), m.class_of(j));
        if (pos > 0) {
          e.cost += s_before * pos;
          e.dcost_dD(i, j) += s_before;
          e.dcost_dbeta(i) -= s_before;
        }
        if (neg > 0) {
          e.cost += pneg * neg;
          e.dcost_dD(i, j) -= pneg;
          e.dcost_dbeta(i) += pneg;
        }
      }
      for (int cl = 0; cl < t; ++cl) prefix[std::size_t(cl)] *= 1 - pij[std::size_t(cl)];
    }
    e.anchor_cost(i) = e.cost - cost_before;
  }
  const double s = c.objective == Objective::triplet ? 1.0 / (double(n) * n * n) : 1.0 / (double(n) * n);
  e.cost *= s;
  e.anchor_cost *= s;
  e.dcost_dD *= s;
  e.dcost_dbeta *= s;
  return e;
}

double realized_eps_objective(const ObjectiveConfig& c, const Eigen::MatrixXd& D, const Eigen::VectorXd& beta,
                              const std::vector<int>& y) {
  const int n = c.model.n;
  double cost = 0;
  const double a = c.alpha;
  for (int i = 0; i < n; ++i) {
    const auto order = order_from(D, i);
    int pos = -1;  // the easy positive: the first point in order with the anchor's label
    for (int l : order)
      if (y[std::size_t(l)] == y[std::size_t(i)]) {
        pos = l;
        break;
      }
    if (c.objective == Objective::triplet) {
      if (pos < 0) continue;
      for (int k = 0; k < n; ++k)
        if (y[std::size_t(k)] != y[std::size_t(i)]) cost += std::max(0.0, D(i, pos) - D(i, k) + a);
    } else {
      for (int j = 0; j < n; ++j) {
        if (j == i) continue;
        if (j == pos) cost += std::max(0.0, D(i, j) - beta(i) + a);
        if (y[std::size_t(j)] != y[std::size_t(i)]) cost += std::max(0.0, beta(i) - D(i, j) + a);
      }
    }
  }
  return cost * (c.objective == Objective::triplet ? 1.0 / (double(n) * n * n) : 1.0 / (double(n) * n));
}

Eigen::MatrixXd f1_distances(const NoisyLabelModel& m, double alpha) {
  Eigen::MatrixXd D(m.n, m.n);
  for (int i = 0; i < m.n; ++i)
    for (int j = 0; j < m.n; ++j) D(i, j) = m.class_of(i) == m.class_of(j) ? 0.0 : alpha;
  return D;
}

Eigen::MatrixXd f2_distances(const NoisyLabelModel& m, double alpha) {
  Eigen::MatrixXd D = f1_distances(m, alpha);
  const int half = m.n / (2 * m.t);
  for (int i = 0; i < m.n / m.t; ++i)
    for (int j = 0; j < m.n / m.t; ++j)
      if ((i < half) != (j < half)) D(i, j) = alpha;
  return D;
}

namespace {
// ac[r][c] = pi_0(c) pi_r(c) prod_{1 <= l < r} (1 - pi_l(c)): the easy-positive weight of rank r, per label.
std::vector<std::vector<double>> easy_positive_terms(const NoisyLabelModel& m) {
  const auto nt = static_cast<std::size_t>(m.t);
  std::vector<std::vector<double>> ac(static_cast<std::size_t>(m.n), std::vector<double>(nt, 0.0));
  const auto p0 = m.label_distribution(0);
  std::vector<double> pref(nt, 1.0);
  for (int r = 1; r < m.n; ++r) {
    const auto pr = m.label_distribution(r);
    for (std::size_t c = 0; c < nt; ++c) {
      ac[std::size_t(r)][c] = p0[c] * pr[c] * pref[c];
      pref[c] *= 1 - pr[c];
    }
  }
  return ac;
}
}  // namespace

PairWeightsAtRank margin_pair_weights(const NoisyLabelModel& m) {
  m.validate();
  const auto ac = easy_positive_terms(m);
  PairWeightsAtRank w;
  w.a.assign(std::size_t(m.n), 0.0);
  w.b.assign(std::size_t(m.n), 0.0);
  for (int r = 1; r < m.n; ++r) {
    for (double v : ac[std::size_t(r)]) w.a[std::size_t(r)] += v;
    w.b[std::size_t(r)] = 1 - m.same_label(m.class_of(0), m.class_of(r));
  }
  return w;
}

SwapWeights triplet_swap_weights(const NoisyLabelModel& m, int t_rank, int j) {
  m.validate();
  if (t_rank < 1 || j < 1 || t_rank + j >= m.n) throw theory::domain_error("ranks out of range");
  const auto ac = easy_positive_terms(m);
  const auto pk = m.label_distribution(t_rank + j);
  SwapWeights s;
  for (std::size_t c = 0; c < ac[0].size(); ++c) s.forward += ac[std::size_t(t_rank)][c] * (1 - pk[c]);  // k after j
  for (double v : ac[std::size_t(t_rank + j)]) s.backward += v;  // k = t before the positive t + j: already excluded
  return s;
}

int claim3_threshold_rank(const NoisyLabelModel& m) {
  const auto w = margin_pair_weights(m);
  int first = -1;
  for (int r = 1; r < m.n; ++r) {
    if (w.b[std::size_t(r)] > w.a[std::size_t(r)]) {
      if (first < 0) first = r;
    } else {
      first = -1;
    }
  }
  return first;
}

int claim4_threshold_offset(const NoisyLabelModel& m, int t_rank) {
  int first = -1;
  for (int j = 1; t_rank + j < m.n; ++j) {
    const auto s = triplet_swap_weights(m, t_rank, j);
    if (s.forward > s.backward) {
      if (first < 0) first = j;
    } else {
      first = -1;
    }
  }
  return first;
}

MarginBetaOptimum optimal_margin_betas(const ObjectiveConfig& c, const Eigen::MatrixXd& D, bool nonnegative) {
  if (c.objective != Objective::margin) throw theory::domain_error("optimal betas need the margin objective");
  const int n = c.model.n;
  if (D.rows() != n || D.cols() != n) throw theory::domain_error("the distance matrix must be n x n");
  std::vector<double> kinks;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (j != i) kinks.insert(kinks.end(), {D(i, j) - c.alpha, D(i, j) + c.alpha});
  if (nonnegative) {  // convex in beta_i: over beta_i >= 0 the minimum is at a kink >= 0 or at 0
    kinks.erase(std::remove_if(kinks.begin(), kinks.end(), [](double k) { return k < 0; }), kinks.end());
    kinks.push_back(0.0);
  }
  std::sort(kinks.begin(), kinks.end());
  kinks.erase(std::unique(kinks.begin(), kinks.end()), kinks.end());
  MarginBetaOptimum best;
  best.beta = Eigen::VectorXd::Constant(n, kinks.front());
  Eigen::VectorXd best_cost = expected_eps_objective(c, D, best.beta).anchor_cost;
  for (std::size_t k = 1; k < kinks.size(); ++k) {
    const auto e = expected_eps_objective(c, D, Eigen::VectorXd::Constant(n, kinks[k]));
    for (int i = 0; i < n; ++i)
      if (e.anchor_cost(i) < best_cost(i)) {
        best_cost(i) = e.anchor_cost(i);
        best.beta(i) = kinks[k];
      }
  }
  best.cost = best_cost.sum();
  return best;
}

// E O of the collapsed f1 and the two-modality f2 under objective o, every beta = alpha or (margin only) each
// anchor's optimal beta.
static Claim2Sides collapse_pair_costs(Objective o, int n, int t, double p, double alpha, MarginBeta beta) {
  ObjectiveConfig c;
  c.objective = o;
  c.model = {n, t, p, Triples::distinct};
  c.alpha = alpha;
  const auto d1 = f1_distances(c.model, alpha), d2 = f2_distances(c.model, alpha);
  if (beta != MarginBeta::alpha) {
    const bool nonnegative = beta == MarginBeta::optimised_nonnegative;
    return {optimal_margin_betas(c, d1, nonnegative).cost, optimal_margin_betas(c, d2, nonnegative).cost};
  }
  const Eigen::VectorXd b = Eigen::VectorXd::Constant(n, alpha);
  return {expected_eps_objective(c, d1, b).cost, expected_eps_objective(c, d2, b).cost};
}

Claim2Sides claim2_sides(int n, int t, double p, double alpha, MarginBeta beta) {
  return collapse_pair_costs(Objective::margin, n, t, p, alpha, beta);
}

int claim_threshold_n(Objective o, int t, double p, double alpha, int n_max, MarginBeta beta) {
  int first_good = -1;
  for (int n = 2 * t; n <= n_max; n += 2 * t) {
    const auto [v1, v2] = collapse_pair_costs(o, n, t, p, alpha, beta);
    if (v2 < v1) {
      if (first_good < 0) first_good = n;
    } else {
      first_good = -1;
    }
  }
  return first_good;
}

}  // namespace dmlbench::sims
