// Whether a prescribed gradient field in the (S_ap, S_an) plane integrates to a loss ([XHN Sec 5, eqs 13-16]):
// line integrals by Gauss-Kronrod quadrature, curl by automatic differentiation, Green's theorem.
#pragma once

#include <Eigen/Core>

#include <functional>
#include <vector>

namespace dmlbench::theory {

// A field F(S_ap, S_an) = (dL/dS_ap, dL/dS_an) evaluated on generic scalars (double or Dual).
enum class SimilarityField {
  second_order,            // grad of L2nd: (-sigma_w w_ap, sigma_w w_an), sigma_w the softmax of eq 16   [XHN eqs 13-16]
  first_order,             // grad of L1st: (-sigma, sigma)                                                [XHN eqs 1, 4-6]
  weighted_first_order,    // L1st's beta with the weights of Sec 5: (-sigma w_ap, sigma w_an), not a gradient
};

Eigen::Vector2d field_value(SimilarityField f, double s_ap, double s_an);

// dF_an/dS_ap - dF_ap/dS_an, by forward-mode autodiff of the field.
double field_curl(SimilarityField f, double s_ap, double s_an);

// Closed form of the curl of weighted_first_order: sigma (1 - sigma) (1 - S_ap - S_an) (derived in the .cpp).
double weighted_first_order_curl_closed_form(double s_ap, double s_an);

struct LineIntegral {
  double value = 0;
  double error_estimate = 0;  // sum of the quadrature's own error estimates
};

// Integral of F . dr along the polyline through the given vertices (adaptive 31-point Gauss-Kronrod per segment).
LineIntegral line_integral(SimilarityField f, const std::vector<Eigen::Vector2d>& vertices);

// Integral of curl F over the triangle (x0,y0), (x0,y1), (x1,y1), above the chord from (x0,y0) to (x1,y1)
// (nested Gauss-Kronrod); by Green's theorem equals line(straight) - line(up then right).
LineIntegral curl_over_upper_triangle(SimilarityField f, Eigen::Vector2d from, Eigen::Vector2d to);

double second_order_loss_value(double s_ap, double s_an);
double first_order_loss_value(double s_ap, double s_an);

}  // namespace dmlbench::theory
