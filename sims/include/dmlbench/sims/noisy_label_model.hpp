// The noisy-label framework of [LCC Sec 4.2]: n points in t true classes A_1..A_t of n/t points each; independent
// observed labels with P(Y_i = k) = p if x_i in A_k, else q' = (1-p)/(t-1).
#pragma once

#include "dmlbench/theory/domain_checks.hpp"

#include <string>
#include <vector>

namespace dmlbench::sims {

// Which index triples the printed sums range over. [LCC] writes sum over (x_i, x_j, x_k) in X, which includes
// j = i and k = i; the proof of Theorem 1 factorises E(delta(Y_i,Y_j)(1 - delta(Y_i,Y_k))) over independent
// Y_i, Y_j, Y_k, which needs distinct indices.
enum class Triples { all, distinct };
Triples parse_triples(const std::string& s);
const char* name(Triples t);

struct NoisyLabelModel {
  int n = 12;          // points
  int t = 2;           // true classes
  double p = 0.8;      // probability of the correct label
  Triples triples = Triples::distinct;

  // Throws theory::domain_error: n, t >= 2... p in (1/t, 1] (the paper states (0.5, 1); (1/t, 1] keeps the correct
  // label the most likely one for any t and includes clean labels p = 1), n divisible by t.
  void validate() const;
  int class_of(int i) const { return i / (n / t); }
  double q() const { return (1.0 - p) / (t - 1); }
  // P(Y_i = Y_j) for distinct points of true classes a and b.
  double same_label(int a, int b) const;
  // P(Y_i = Y_j = Y_k) for distinct points of true classes a, b, c.
  double all_same_label(int a, int b, int c) const;
  // E[delta(Y_i, Y_j)] for the pair (i, j) under the convention (1 for i = j).
  double pair_weight(int i, int j) const;
  // E[delta(Y_i, Y_j) (1 - delta(Y_i, Y_k))] for the triple (i, j, k) under the convention (0 if excluded).
  double triplet_weight(int i, int j, int k) const;
  // Per-point label distribution pi_i(k) = P(Y_i = k).
  std::vector<double> label_distribution(int i) const;
};

}  // namespace dmlbench::sims
