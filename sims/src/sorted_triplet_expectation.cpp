#include "sorted_triplet_expectation.hpp"

#include <algorithm>
#include <numeric>

namespace dmlbench::sims {

namespace {

// The other points of an anchor, of one class, sorted by distance, with prefix sums of the distances.
struct SortedClass {
  std::vector<double> d;       // ascending
  std::vector<int> idx;
  std::vector<double> prefix;  // prefix[m] = sum of the m smallest
  void finish() {
    std::vector<std::size_t> o(d.size());
    std::iota(o.begin(), o.end(), std::size_t(0));
    std::stable_sort(o.begin(), o.end(), [&](std::size_t a, std::size_t b) { return d[a] < d[b]; });
    std::vector<double> d2(d.size());
    std::vector<int> i2(d.size());
    for (std::size_t r = 0; r < o.size(); ++r) {
      d2[r] = d[o[r]];
      i2[r] = idx[o[r]];
    }
    d.swap(d2);
    idx.swap(i2);
    prefix.assign(d.size() + 1, 0.0);
    for (std::size_t r = 0; r < d.size(); ++r) prefix[r + 1] = prefix[r] + d[r];
  }
  std::size_t count_below(double v) const { return std::size_t(std::lower_bound(d.begin(), d.end(), v) - d.begin()); }
  std::size_t count_at_most(double v) const { return std::size_t(std::upper_bound(d.begin(), d.end(), v) - d.begin()); }
};

double plain(const ObjectiveConfig& c, const Eigen::MatrixXd& D, Eigen::MatrixXd* G) {
  const auto& m = c.model;
  const int n = m.n, t = m.t;
  const double a = c.alpha;
  std::vector<double> p2(static_cast<std::size_t>(t * t)), w3(static_cast<std::size_t>(t * t * t));
  for (int x = 0; x < t; ++x)
    for (int y = 0; y < t; ++y) {
      p2[std::size_t(x * t + y)] = m.same_label(x, y);
      for (int z = 0; z < t; ++z)
        w3[std::size_t((x * t + y) * t + z)] = m.same_label(x, y) - m.all_same_label(x, y, z);
    }
  double cost = 0;
  std::vector<SortedClass> cls(static_cast<std::size_t>(t));
  for (int i = 0; i < n; ++i) {
    const int ci = m.class_of(i);
    for (auto& s : cls) {
      s.d.clear();
      s.idx.clear();
    }
    for (int k = 0; k < n; ++k)
      if (k != i) {
        cls[std::size_t(m.class_of(k))].d.push_back(D(i, k));
        cls[std::size_t(m.class_of(k))].idx.push_back(k);
      }
    for (auto& s : cls) s.finish();
    // positives j != i, negatives k not in {i, j}: sum_k w (D_ij - D_ik + alpha)_+ over each class of k
    for (int cj = 0; cj < t; ++cj)
      for (std::size_t rj = 0; rj < cls[std::size_t(cj)].d.size(); ++rj) {
        const double dij = cls[std::size_t(cj)].d[rj], T = dij + a;
        const int j = cls[std::size_t(cj)].idx[rj];
        double gij = 0;
        for (int ck = 0; ck < t; ++ck) {
          const double w = w3[std::size_t((ci * t + cj) * t + ck)];
          if (w <= 0) continue;
          const auto& s = cls[std::size_t(ck)];
          std::size_t cnt = s.count_below(T);
          double sum = s.prefix[cnt];
          if (ck == cj) {  // k = j is not a negative of itself (always below T since alpha > 0)
            --cnt;
            sum -= dij;
          }
          cost += w * (double(cnt) * T - sum);
          gij += w * double(cnt);
        }
        if (G) (*G)(i, j) += gij;
      }
    if (G)  // d/dD_ik: minus the weight of every positive j for which k is active, D_ij > D_ik - alpha, j != k
      for (int ck = 0; ck < t; ++ck)
        for (std::size_t rk = 0; rk < cls[std::size_t(ck)].d.size(); ++rk) {
          const double dik = cls[std::size_t(ck)].d[rk];
          const int k = cls[std::size_t(ck)].idx[rk];
          double gik = 0;
          for (int cj = 0; cj < t; ++cj) {
            const double w = w3[std::size_t((ci * t + cj) * t + ck)];
            if (w <= 0) continue;
            const auto& s = cls[std::size_t(cj)];
            std::size_t cnt = s.d.size() - s.count_at_most(dik - a);
            if (cj == ck) --cnt;  // j = k
            gik += w * double(cnt);
          }
          (*G)(i, k) -= gik;
        }
    if (m.triples == Triples::all)  // j = i: weight 1 - P(Y_i = Y_k), term (alpha - D_ik)_+
      for (int k = 0; k < n; ++k) {
        if (k == i) continue;
        const double w = 1 - p2[std::size_t(ci * t + m.class_of(k))], z = a - D(i, k);
        if (z > 0 && w > 0) {
          cost += w * z;
          if (G) (*G)(i, k) -= w;
        }
      }
  }
  const double s = 1.0 / (double(n) * n * n);
  if (G) *G *= s;
  return cost * s;
}

double eps(const ObjectiveConfig& c, const Eigen::MatrixXd& D, Eigen::MatrixXd* G) {
  const auto& m = c.model;
  const int n = m.n, t = m.t;
  const double a = c.alpha;
  std::vector<std::vector<double>> pi;
  for (int i = 0; i < n; ++i) pi.push_back(m.label_distribution(i));
  double cost = 0;
  const auto N = std::size_t(n - 1), nt = std::size_t(t);
  std::vector<int> order(N);
  std::vector<double> d(N), prefix(N + 1), s_before(N), suffix_before(N + 1);
  std::vector<double> s_after(N * nt), cum_after(static_cast<std::size_t>(n) * nt);  // s_after[r][c]; cum over ranks of s_after
  std::vector<double> cnt(static_cast<std::size_t>(n) * nt), sum(static_cast<std::size_t>(n) * nt);  // per-class cumulative count / sum of d
  std::vector<double> pref(nt), ac(nt);
  for (int i = 0; i < n; ++i) {
    std::size_t r = 0;
    for (int l = 0; l < n; ++l)
      if (l != i) order[r++] = l;
    std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return D(i, x) < D(i, y); });
    for (r = 0; r < N; ++r) d[r] = D(i, order[r]);
    // weights of each rank as easy positive (easy_positive_objective.hpp): s_before (k earlier) and s_after[c]
    std::fill(pref.begin(), pref.end(), 1.0);
    const auto& pii = pi[std::size_t(i)];
    for (r = 0; r < N; ++r) {
      const auto& pj = pi[std::size_t(order[r])];
      double sb = 0;
      for (std::size_t cl = 0; cl < nt; ++cl) {
        ac[cl] = pii[cl] * pj[cl] * pref[cl];
        sb += ac[cl];
      }
      s_before[r] = sb;
      for (std::size_t kc = 0; kc < nt; ++kc) {
        const auto& pk = pi[kc * std::size_t(n / t)];  // a point of true class kc
        double sa = 0;
        for (std::size_t cl = 0; cl < nt; ++cl) sa += ac[cl] * (1 - pk[cl]);
        s_after[r * nt + kc] = sa;
      }
      for (std::size_t cl = 0; cl < nt; ++cl) pref[cl] *= 1 - pj[cl];
    }
    // cumulative per-class counts and distance sums over ranks [0, r), and of s_after over ranks
    for (std::size_t cl = 0; cl < nt; ++cl) cnt[cl] = sum[cl] = cum_after[cl] = 0;
    prefix[0] = 0;
    for (r = 0; r < N; ++r) {
      const auto kc = std::size_t(m.class_of(order[r]));
      prefix[r + 1] = prefix[r] + d[r];
      for (std::size_t cl = 0; cl < nt; ++cl) {
        cnt[(r + 1) * nt + cl] = cnt[r * nt + cl] + (cl == kc);
        sum[(r + 1) * nt + cl] = sum[r * nt + cl] + (cl == kc ? d[r] : 0.0);
        cum_after[(r + 1) * nt + cl] = cum_after[r * nt + cl] + s_after[r * nt + cl];
      }
    }
    suffix_before[N] = 0;
    for (r = N; r-- > 0;) suffix_before[r] = suffix_before[r + 1] + s_before[r];
    for (r = 0; r < N; ++r) {
      const double T = d[r] + a;
      // k before j (ranks < r): all active, weight s_before
      double c_cost = s_before[r] * (double(r) * T - prefix[r]), gij = s_before[r] * double(r);
      // k after j (ranks r+1 .. hi-1 with d < T), weight s_after[class of k]
      const auto hi = std::size_t(std::lower_bound(d.begin(), d.end(), T) - d.begin());
      for (std::size_t cl = 0; cl < nt; ++cl) {
        const double k_cnt = cnt[hi * nt + cl] - cnt[(r + 1) * nt + cl];
        const double k_sum = sum[hi * nt + cl] - sum[(r + 1) * nt + cl];
        c_cost += s_after[r * nt + cl] * (k_cnt * T - k_sum);
        gij += s_after[r * nt + cl] * k_cnt;
      }
      cost += c_cost;
      if (G) (*G)(i, order[r]) += gij;
    }
    if (G)
      for (std::size_t rk = 0; rk < N; ++rk) {  // the rank as a negative k
        const auto kc = std::size_t(m.class_of(order[rk]));
        // as an earlier negative of every later positive: weight s_before of those
        double gik = suffix_before[rk + 1];
        // as a later negative of earlier positives j with d_j > d_k - alpha
        const auto lo = std::size_t(std::upper_bound(d.begin(), d.end(), d[rk] - a) - d.begin());
        if (lo < rk) gik += cum_after[rk * nt + kc] - cum_after[lo * nt + kc];
        (*G)(i, order[rk]) -= gik;
      }
  }
  const double s = 1.0 / (double(n) * n * n);
  if (G) *G *= s;
  return cost * s;
}

}  // namespace

double sorted_triplet_expectation(const ObjectiveConfig& c, const Eigen::MatrixXd& D, Eigen::MatrixXd* G) {
  c.validate();
  if (c.objective != Objective::triplet || c.smoothing > 0)
    throw theory::domain_error("sorted_triplet_expectation is for the exact triplet objectives");
  if (G) *G = Eigen::MatrixXd::Zero(c.model.n, c.model.n);
  return c.sampling == Sampling::eps ? eps(c, D, G) : plain(c, D, G);
}

}  // namespace dmlbench::sims
