#include "dmlbench/sims/noisy_label_objective.hpp"

#include "dmlbench/theory/memory_budget.hpp"

#include "dmlbench/sims/easy_positive_objective.hpp"
#include "sorted_triplet_expectation.hpp"

#include <Eigen/SVD>

#include <cmath>

namespace dmlbench::sims {

using theory::domain_error;

Objective parse_objective(const std::string& s) {
  if (s == "triplet") return Objective::triplet;
  if (s == "margin") return Objective::margin;
  if (s == "contrastive") return Objective::contrastive;
  throw domain_error("--loss must be triplet, margin or contrastive, got '" + s + "'");
}

const char* name(Objective o) {
  switch (o) {
    case Objective::triplet: return "triplet";
    case Objective::margin: return "margin";
    case Objective::contrastive: return "contrastive";
  }
  return "?";
}

Sampling parse_sampling(const std::string& s) {
  if (s == "all") return Sampling::all;
  if (s == "eps") return Sampling::eps;
  throw domain_error("--sampling must be all or eps, got '" + s + "'");
}

const char* name(Sampling s) { return s == Sampling::all ? "all" : "eps"; }

void ObjectiveConfig::validate() const {
  model.validate();
  if (sampling == Sampling::eps && objective == Objective::contrastive)
    throw domain_error("easy positive sampling is defined for the triplet and margin losses, not contrastive");
  theory::require_positive("margin alpha", alpha);
  if (dim < 1) throw domain_error("the embedding dimension must be >= 1, got " + std::to_string(dim));
  // evaluate() holds D, P and G: three n x n matrices of doubles (unchecked, n = 100000 ended in std::bad_alloc)
  theory::require_memory(3.0 * 8.0 * double(model.n) * double(model.n),
                         "the [LCC] objective at n = " + std::to_string(model.n) + " (three n x n matrices of doubles)");
}

int ObjectiveConfig::parameters() const {
  return model.n * dim + (objective == Objective::margin ? model.n : 0);
}

namespace {

// Pair weights E[delta_ij] and the triple term E[delta_ij delta_ik], from the model (expectation) or from one
// draw of labels (realisation). w_ijk = E[delta_ij] - E[delta_ij delta_ik] = E[delta_ij (1 - delta_ik)].
struct ExpectedWeights {
  const NoisyLabelModel& m;
  std::vector<double> p3;  // t^3 table of P(Y_i = Y_j = Y_k), distinct points
  explicit ExpectedWeights(const NoisyLabelModel& mm) : m(mm), p3(std::size_t(mm.t * mm.t * mm.t)) {
    for (int a = 0; a < m.t; ++a)
      for (int b = 0; b < m.t; ++b)
        for (int c = 0; c < m.t; ++c) p3[std::size_t((a * m.t + b) * m.t + c)] = m.all_same_label(a, b, c);
  }
  double pair(int i, int j) const { return i == j ? 1.0 : m.same_label(m.class_of(i), m.class_of(j)); }
  double both(int i, int j, int k) const {  // E[delta_ij delta_ik]
    if (j == i) return pair(i, k);
    if (k == i || j == k) return pair(i, j);
    return p3[std::size_t((m.class_of(i) * m.t + m.class_of(j)) * m.t + m.class_of(k))];
  }
};

struct RealizedWeights {
  const std::vector<int>& y;
  double pair(int i, int j) const { return y[std::size_t(i)] == y[std::size_t(j)] ? 1.0 : 0.0; }
  double both(int i, int j, int k) const { return pair(i, j) * pair(i, k); }
};

// (z)_+ and its derivative, or the softplus of temperature tau > 0 (smooth, >= (z)_+, within tau log 2).
struct Hinge {
  double tau;
  double value(double z) const {
    if (tau <= 0) return z > 0 ? z : 0.0;
    return z > 0 ? z + tau * std::log1p(std::exp(-z / tau)) : tau * std::log1p(std::exp(z / tau));
  }
  double slope(double z) const {
    if (tau <= 0) return z > 0 ? 1.0 : 0.0;
    return 1.0 / (1.0 + std::exp(-z / tau));
  }
  // whether the term can contribute (exact hinge: only z > 0)
  bool active(double z) const { return tau > 0 ? z > -40 * tau : z > 0; }
};

template <class W>
double evaluate(const ObjectiveConfig& c, const double* x, double* gradient, const W& w) {
  const int n = c.model.n, m = c.dim;
  const bool all = c.model.triples == Triples::all;
  const Eigen::MatrixXd D = squared_distances(c, x);
  Eigen::MatrixXd P(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) P(i, j) = w.pair(i, j);

  Eigen::MatrixXd G = Eigen::MatrixXd::Zero(n, n);  // d cost / d D_ij
  Eigen::VectorXd gbeta = Eigen::VectorXd::Zero(n);
  double cost = 0;
  const double a = c.alpha;
  const Hinge h{c.smoothing};
  switch (c.objective) {
    case Objective::triplet: {
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          if (!all && j == i) continue;
          const double pij = P(i, j);
          if (pij == 0) continue;
          for (int k = 0; k < n; ++k) {
            if (!all && (k == i || k == j)) continue;
            const double wijk = pij - w.both(i, j, k);
            if (wijk <= 0) continue;
            const double z = D(i, j) - D(i, k) + a;
            if (h.active(z)) {
              const double g = wijk * h.slope(z);
              cost += wijk * h.value(z);
              G(i, j) += g;
              G(i, k) -= g;
            }
          }
        }
      const double s = 1.0 / (double(n) * n * n);
      cost *= s;
      G *= s;
      break;
    }
    case Objective::margin:
    case Objective::contrastive: {
      const double* beta = x + n * m;
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          if (!all && j == i) continue;
          const double pij = P(i, j);
          if (c.objective == Objective::contrastive) {
            cost += pij * D(i, j);
            G(i, j) += pij;
            const double z = a - D(i, j);
            if (h.active(z)) {
              cost += (1 - pij) * h.value(z);
              G(i, j) -= (1 - pij) * h.slope(z);
            }
          } else {
            const double pos = D(i, j) - beta[i] + a, neg = beta[i] - D(i, j) + a;
            if (h.active(pos)) {
              const double g = pij * h.slope(pos);
              cost += pij * h.value(pos);
              G(i, j) += g;
              gbeta(i) -= g;
            }
            if (h.active(neg)) {
              const double g = (1 - pij) * h.slope(neg);
              cost += (1 - pij) * h.value(neg);
              G(i, j) -= g;
              gbeta(i) += g;
            }
          }
        }
      const double s = 1.0 / (double(n) * n);
      cost *= s;
      G *= s;
      gbeta *= s;
      break;
    }
  }
  if (gradient) {
    distance_gradient_to_points(c, x, G, gradient);
    if (c.objective == Objective::margin)
      for (int i = 0; i < n; ++i) gradient[n * m + i] = gbeta(i);
  }
  return cost;
}

}  // namespace

double expected_objective(const ObjectiveConfig& c, const double* x, double* gradient) {
  if (c.objective == Objective::triplet && c.smoothing <= 0) {
    Eigen::MatrixXd G;
    const double v = sorted_triplet_expectation(c, squared_distances(c, x), gradient ? &G : nullptr);
    if (gradient) distance_gradient_to_points(c, x, G, gradient);
    return v;
  }
  return expected_objective_dense(c, x, gradient);
}

double expected_objective_dense(const ObjectiveConfig& c, const double* x, double* gradient) {
  if (c.sampling == Sampling::eps) {
    const int n = c.model.n;
    const Eigen::VectorXd beta = c.objective == Objective::margin
                                     ? Eigen::VectorXd(Eigen::Map<const Eigen::VectorXd>(x + n * c.dim, n))
                                     : Eigen::VectorXd::Zero(n);
    const auto e = expected_eps_objective(c, squared_distances(c, x), beta);
    if (gradient) {
      distance_gradient_to_points(c, x, e.dcost_dD, gradient);
      if (c.objective == Objective::margin)
        for (int i = 0; i < n; ++i) gradient[n * c.dim + i] = e.dcost_dbeta(i);
    }
    return e.cost;
  }
  return evaluate(c, x, gradient, ExpectedWeights(c.model));
}

Eigen::MatrixXd squared_distances(const ObjectiveConfig& c, const double* x) {
  const int n = c.model.n;
  Eigen::Map<const Eigen::MatrixXd> F(x, c.dim, n);
  Eigen::MatrixXd D(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) D(i, j) = (F.col(i) - F.col(j)).squaredNorm();
  return D;
}

void distance_gradient_to_points(const ObjectiveConfig& c, const double* x, const Eigen::MatrixXd& G,
                                 double* gradient) {
  const int n = c.model.n, m = c.dim;
  Eigen::Map<const Eigen::MatrixXd> F(x, m, n);
  Eigen::Map<Eigen::MatrixXd> Gf(gradient, m, n);
  Gf.setZero();
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const double g = G(i, j);
      if (g == 0) continue;
      const Eigen::VectorXd diff = 2 * g * (F.col(i) - F.col(j));  // dD_ij/df_i = 2(f_i - f_j)
      Gf.col(i) += diff;
      Gf.col(j) -= diff;
    }
}

double realized_objective(const ObjectiveConfig& c, const double* x, const std::vector<int>& labels) {
  if (int(labels.size()) != c.model.n) throw domain_error("realized_objective: need one label per point");
  return evaluate(c, x, nullptr, RealizedWeights{labels});
}

std::vector<int> sample_labels(const NoisyLabelModel& m, std::mt19937_64& rng) {
  std::vector<int> y(std::size_t(m.n));
  std::uniform_real_distribution<double> u(0, 1);
  for (int i = 0; i < m.n; ++i) {
    const auto pi = m.label_distribution(i);
    double r = u(rng), acc = 0;
    int k = 0;
    for (; k < m.t - 1; ++k) {
      acc += pi[std::size_t(k)];
      if (r < acc) break;
    }
    y[std::size_t(i)] = k;
  }
  return y;
}

Eigen::VectorXd collapsed_embedding(const ObjectiveConfig& c, double squared_gap, double beta) {
  c.validate();
  const int n = c.model.n, t = c.model.t;
  if (c.dim < t - 1)
    throw domain_error("a regular simplex of " + std::to_string(t) + " classes needs dim >= " + std::to_string(t - 1));
  // vertices e_k / sqrt(2) in R^t have squared edge 1; centre them and embed the (t-1)-dim simplex in R^dim
  Eigen::MatrixXd V = Eigen::MatrixXd::Identity(t, t) / std::sqrt(2.0);
  V.colwise() -= V.rowwise().mean();
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(V, Eigen::ComputeThinU | Eigen::ComputeThinV);
  Eigen::MatrixXd coords = (svd.matrixU().leftCols(t - 1).transpose() * V) * std::sqrt(squared_gap);  // (t-1) x t
  Eigen::VectorXd x = Eigen::VectorXd::Zero(c.parameters());
  for (int i = 0; i < n; ++i) x.segment(i * c.dim, t - 1) = coords.col(c.model.class_of(i));
  if (c.objective == Objective::margin) x.tail(n).setConstant(beta);
  return x;
}

CollapsedCandidate proof_candidate(const ObjectiveConfig& c) {
  CollapsedCandidate k;
  k.squared_gap = c.objective == Objective::margin ? 2 * c.alpha : c.alpha;
  k.beta = c.alpha;
  const Eigen::VectorXd x = collapsed_embedding(c, k.squared_gap, k.beta);
  k.objective = expected_objective(c, x.data(), nullptr);
  return k;
}

}  // namespace dmlbench::sims
