// Gradients by forward-mode automatic differentiation (Boost.Math autodiff), the independent reference
// against which the papers' printed gradients ([XHN eqs 4-6, 13-15, 29-31], [XGS Sec 3]) are checked.
#pragma once

#include <Eigen/Core>
#include <boost/math/differentiation/autodiff.hpp>

#include <vector>

namespace dmlbench::theory {

using Dual = boost::math::differentiation::autodiff_fvar<double, 1>;

inline double value_of(double x) { return x; }
inline double value_of(const Dual& x) { return x.derivative(0); }

template <class T>
T dot(const std::vector<T>& x, int off_a, int off_b, int d) {
  T s(0.0);
  for (int i = 0; i < d; ++i) s += x[static_cast<std::size_t>(off_a + i)] * x[static_cast<std::size_t>(off_b + i)];
  return s;
}

// Gradient of f : R^m -> R at x, one forward pass per coordinate. f is called with std::vector<Dual>.
template <class F>
Eigen::VectorXd autodiff_gradient(F&& f, const Eigen::VectorXd& x) {
  const auto m = static_cast<std::size_t>(x.size());
  std::vector<Dual> v(m);
  Eigen::VectorXd g(x.size());
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j < m; ++j) v[j] = Dual(x(static_cast<Eigen::Index>(j)));
    v[i] = boost::math::differentiation::make_fvar<double, 1>(x(static_cast<Eigen::Index>(i)));
    g(static_cast<Eigen::Index>(i)) = f(v).derivative(1);
  }
  return g;
}

// Partial derivatives of a scalar field of two variables (used for the curl of [XHN] Sec 5 fields).
template <class F>
Eigen::Vector2d autodiff_gradient2(F&& f, double x, double y) {
  using boost::math::differentiation::make_fvar;
  const double dx = f(make_fvar<double, 1>(x), Dual(y)).derivative(1);
  const double dy = f(Dual(x), make_fvar<double, 1>(y)).derivative(1);
  return {dx, dy};
}

}  // namespace dmlbench::theory
