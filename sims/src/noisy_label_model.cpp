#include "dmlbench/sims/noisy_label_model.hpp"

namespace dmlbench::sims {

using theory::domain_error;
using theory::format_value;

Triples parse_triples(const std::string& s) {
  if (s == "all") return Triples::all;
  if (s == "distinct") return Triples::distinct;
  throw domain_error("--triples must be all or distinct, got '" + s + "'");
}

const char* name(Triples t) { return t == Triples::all ? "all" : "distinct"; }

void NoisyLabelModel::validate() const {
  if (t < 2) throw domain_error("the number of classes t must be >= 2, got " + std::to_string(t));
  if (n < t) throw domain_error("n must be >= t, got n=" + std::to_string(n) + " t=" + std::to_string(t));
  if (n % t != 0)
    throw domain_error("n must be divisible by the number of classes: n=" + std::to_string(n) + ", t=" + std::to_string(t));
  theory::require_finite("noise p", p);
  if (!(p > 1.0 / t && p <= 1.0))
    throw domain_error("p (probability of the correct label) must lie in (1/t, 1] = (" + format_value(1.0 / t) +
                       ", 1], got " + format_value(p));
}

std::vector<double> NoisyLabelModel::label_distribution(int i) const {
  std::vector<double> pi(std::size_t(t), q());
  pi[std::size_t(class_of(i))] = p;
  return pi;
}

double NoisyLabelModel::same_label(int a, int b) const {
  const double qq = q();
  return a == b ? p * p + (t - 1) * qq * qq : 2 * p * qq + (t - 2) * qq * qq;
}

double NoisyLabelModel::all_same_label(int a, int b, int c) const {
  double s = 0;
  for (int k = 0; k < t; ++k) {
    auto pr = [&](int cls) { return cls == k ? p : q(); };
    s += pr(a) * pr(b) * pr(c);
  }
  return s;
}

double NoisyLabelModel::pair_weight(int i, int j) const {
  if (i == j) return triples == Triples::all ? 1.0 : 0.0;
  return same_label(class_of(i), class_of(j));
}

double NoisyLabelModel::triplet_weight(int i, int j, int k) const {
  const bool distinct = i != j && i != k && j != k;
  if (!distinct) {
    if (triples == Triples::distinct) return 0.0;
    // E[delta_ij (1 - delta_ik)] with coinciding indices: j = i gives 1 - P(Y_i = Y_k); k = i or j = k gives 0
    if (j == i && k != i) return 1.0 - same_label(class_of(i), class_of(k));
    return 0.0;
  }
  return same_label(class_of(i), class_of(j)) - all_same_label(class_of(i), class_of(j), class_of(k));
}

}  // namespace dmlbench::sims
