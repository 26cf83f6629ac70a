#include "test_support.hpp"

#include "dmlbench/theory/vector_field.hpp"

using namespace dmlbench::theory;

TEST_CASE("bad input: similarities, gamma, learning rate and non-unit vectors throw naming the value "
          "[XHN eq 19] [XHN eqs 9-12]", "[theory][bad-input]") {
  CHECK_THROWS_AS(spn_from_decomposition(1.5, 0.2, 0.0), domain_error);
  CHECK_THROWS_WITH(spn_from_decomposition(1.5, 0.2, 0.0), Catch::Contains("S_ap") && Catch::Contains("1.5"));
  CHECK_THROWS_WITH(spn_from_decomposition(0.5, -1.0000001, 0.0), Catch::Contains("S_an"));
  CHECK_THROWS_WITH(spn_from_decomposition(0.5, 0.2, -1.01), Catch::Contains("gamma") && Catch::Contains("-1.01"));
  CHECK_THROWS_WITH(spn_from_decomposition(std::nan(""), 0.2, 0.0), Catch::Contains("finite"));
  CHECK_THROWS_WITH(delta_s_closed_form(TripletLoss::nca_first_order, 0.5, 0.5, 0.5, 0.0), Catch::Contains("learning rate"));
  CHECK_THROWS_WITH(delta_s_closed_form(TripletLoss::second_order, 0.5, 0.5, 0.5, -1.0), Catch::Contains("-1"));
  CHECK_THROWS_AS(nca_beta(0.1, 0.2, std::numeric_limits<double>::infinity()), domain_error);

  Triplet t{Eigen::Vector3d(1, 0, 0), Eigen::Vector3d(0, 2, 0), Eigen::Vector3d(0, 0, 1)};
  CHECK_THROWS_WITH(nca_update(t, 0.1), Catch::Contains("unit vector") && Catch::Contains("positive"));
  Triplet mixed{Eigen::Vector3d(1, 0, 0), Eigen::Vector2d(0, 1), Eigen::Vector3d(0, 0, 1)};
  CHECK_THROWS_WITH(measure_gamma(mixed), Catch::Contains("same dimension"));
  // exact unit vectors and the boundary values are accepted
  CHECK_NOTHROW(spn_from_decomposition(1.0, -1.0, 1.0));
  CHECK_NOTHROW(nca_update({Eigen::Vector3d(1, 0, 0), Eigen::Vector3d(0, 1, 0), Eigen::Vector3d(0, 0, 1)}, 0.1));

  FieldConfig c;
  c.grid = 0;
  CHECK_THROWS_WITH(sweep_vector_field(c), Catch::Contains("grid"));
  c.grid = 10;
  c.entanglement = 1.5;
  CHECK_THROWS_WITH(sweep_vector_field(c), Catch::Contains("entanglement"));
}

TEST_CASE("nothing returns a silent NaN: every edge case of the step is finite or throws [XHN eqs 9-10]",
          "[theory][bad-input][XHN eq 9]") {
  for (auto loss : {TripletLoss::nca_first_order, TripletLoss::vanilla_margin, TripletLoss::second_order})
    for (double sap : {-1.0, -0.5, 0.0, 0.5, 1.0})
      for (double san : {-1.0, 0.0, 1.0})
        for (double g : {-1.0, 0.0, 1.0})
          for (double lr : {1e-8, 0.1, 1.0, 10.0}) {
            INFO(name(loss) << " " << sap << " " << san << " " << g << " " << lr);
            try {
              const auto d = delta_s_closed_form(loss, sap, san, g, lr);
              CHECK(std::isfinite(d.ap));
              CHECK(std::isfinite(d.an));
            } catch (const domain_error& e) {
              CHECK_THAT(std::string(e.what()), Catch::Contains("origin"));
            }
          }
}
