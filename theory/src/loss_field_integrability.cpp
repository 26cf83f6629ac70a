#include "dmlbench/theory/loss_field_integrability.hpp"

#include "dmlbench/theory/autodiff_gradient.hpp"
#include "dmlbench/theory/nca_triplet_loss.hpp"
#include "dmlbench/theory/second_order_loss.hpp"

#include <boost/math/quadrature/gauss_kronrod.hpp>

#include <cmath>
#include <stdexcept>

namespace dmlbench::theory {

namespace {

// The field on generic scalars. sigma's are the softmax weights of eq 1 (L1st) and eq 16 (L2nd).
template <class T>
std::pair<T, T> field(SimilarityField f, const T& x, const T& y) {
  using std::exp;
  switch (f) {
    case SimilarityField::second_order: {
      const T sw = 1.0 / (1.0 + exp(x - 0.5 * x * x - 0.5 * y * y));  // beta_w / alpha
      return {-sw * (1.0 - x), sw * y};
    }
    case SimilarityField::first_order: {
      const T s = 1.0 / (1.0 + exp(x - y));  // beta / alpha
      return {-s, s};
    }
    case SimilarityField::weighted_first_order: {
      const T s = 1.0 / (1.0 + exp(x - y));
      return {-s * (1.0 - x), s * y};
    }
  }
  throw std::logic_error("unknown field");
}

// The integrands are analytic on the domain: a single 61-point Gauss-Kronrod panel (exact for polynomials of
// degree 91) converges to rounding; its Gauss-Kronrod difference is the error estimate. Adaptive refinement at a
// tolerance near eps only subdivides rounding noise.
using Rule = boost::math::quadrature::gauss_kronrod<double, 61>;
constexpr unsigned kDepth = 3;
constexpr double kQuadTol = 1e-12;

}  // namespace

Eigen::Vector2d field_value(SimilarityField f, double s_ap, double s_an) {
  const auto [u, v] = field<double>(f, s_ap, s_an);
  return {u, v};
}

double field_curl(SimilarityField f, double s_ap, double s_an) {
  // dF_an/dS_ap - dF_ap/dS_an
  const auto dfan = autodiff_gradient2([f](const Dual& x, const Dual& y) { return field<Dual>(f, x, y).second; }, s_ap, s_an);
  const auto dfap = autodiff_gradient2([f](const Dual& x, const Dual& y) { return field<Dual>(f, x, y).first; }, s_ap, s_an);
  return dfan.x() - dfap.y();
}

// With s = 1/(1+e^{x-y}): ds/dx = -s(1-s), ds/dy = s(1-s); F = (-s(1-x), s y):
// dF_an/dx = -y s(1-s), dF_ap/dy = -(1-x) s(1-s), curl = s(1-s)(1 - x - y).
double weighted_first_order_curl_closed_form(double s_ap, double s_an) {
  const double s = 1.0 / (1.0 + std::exp(s_ap - s_an));
  return s * (1 - s) * (1 - s_ap - s_an);
}

LineIntegral line_integral(SimilarityField f, const std::vector<Eigen::Vector2d>& vertices) {
  if (vertices.size() < 2) throw std::invalid_argument("a path needs at least two vertices");
  LineIntegral out;
  for (std::size_t k = 0; k + 1 < vertices.size(); ++k) {
    const Eigen::Vector2d a = vertices[k], d = vertices[k + 1] - vertices[k];
    double err = 0;
    const double v = Rule::integrate(
        [&](double t) { return field_value(f, a.x() + t * d.x(), a.y() + t * d.y()).dot(d); }, 0.0, 1.0, kDepth,
        kQuadTol, &err);
    out.value += v;
    out.error_estimate += err;
  }
  return out;
}

LineIntegral curl_over_upper_triangle(SimilarityField f, Eigen::Vector2d from, Eigen::Vector2d to) {
  // Region: x in [x0, x1], y from the chord y0 + (x - x0)(y1 - y0)/(x1 - x0) up to y1. Orientation: the loop
  // straight(from->to) then back along (to -> corner -> from) is counter-clockwise around it when x1 > x0 and
  // y1 > y0, so straight - bent = + integral of curl.
  if (!(to.x() > from.x() && to.y() > from.y()))
    throw std::invalid_argument("curl_over_upper_triangle needs to > from in both coordinates");
  LineIntegral out;
  const double slope = (to.y() - from.y()) / (to.x() - from.x());
  double outer_err = 0;
  double inner_err = 0;
  out.value = Rule::integrate(
      [&](double x) {
        const double ylo = from.y() + (x - from.x()) * slope;
        double e = 0;
        const double v = Rule::integrate([&](double y) { return field_curl(f, x, y); }, ylo, to.y(), kDepth, kQuadTol, &e);
        inner_err = std::max(inner_err, e);
        return v;
      },
      from.x(), to.x(), kDepth, kQuadTol, &outer_err);
  out.error_estimate = outer_err + inner_err * (to.x() - from.x());
  return out;
}

double second_order_loss_value(double s_ap, double s_an) { return second_order_loss(s_ap, s_an); }
double first_order_loss_value(double s_ap, double s_an) { return nca_triplet_loss(s_ap, s_an); }

}  // namespace dmlbench::theory
