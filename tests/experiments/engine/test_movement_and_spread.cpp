// The training-side pieces of [XHN] Sec 6.1 / Fig 3 and Fig 4: the per-step movement of mined triplets' dots with the
// isolated-triplet model's prediction next to it, the run's movement summary, and the collapse measure (mean pairwise
// similarity) against brute force.
#include "dmlbench/experiments/embedding_spread.hpp"
#include "dmlbench/experiments/triplet_movement_log.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace dmlbench::experiments;
using dmlbench::theory::Movement;
using json = nlohmann::ordered_json;

namespace {

MinedTriplets one_triplet() {
  return {torch::tensor({0}, torch::kInt64), torch::tensor({1}, torch::kInt64), torch::tensor({2}, torch::kInt64)};
}

// unit vectors in the plane at the given angles (radians), as a 3 x 2 float32 batch
torch::Tensor at_angles(double a, double p, double n) {
  return torch::tensor({std::cos(a), std::sin(a), std::cos(p), std::sin(p), std::cos(n), std::sin(n)}, torch::kFloat32)
      .view({3, 2});
}

}  // namespace

TEST_CASE("a step's movement: hand-made before/after batches in the plane, each quadrant and a still batch "
          "[XHN Sec 6.1]",
          "[experiments][XHN]") {
  const auto t = one_triplet();
  // anchor at 0; positive at 0.6 rad, negative at 1.2 rad. Moving the positive closer raises S_ap (right), moving
  // the negative closer raises S_an (up)
  const auto before = at_angles(0, 0.6, 1.2);
  struct Case {
    double p, n;
    Movement want;
  };
  for (const auto& c : {Case{0.5, 1.1, Movement::up_right}, Case{0.7, 1.1, Movement::up_left},
                        Case{0.7, 1.3, Movement::down_left}, Case{0.5, 1.3, Movement::down_right}}) {
    const auto m = step_movement(before, triplet_dots(at_angles(0, c.p, c.n), t), t,
                                 dmlbench::theory::TripletLoss::nca_first_order, 1e-6);
    CHECK(m.observed.count[std::size_t(c.want)] == 1);
    CHECK(m.observed.quadrant_total() == 1);
  }
  // the same batch after the step: stationary, and not compared with the model (negative control)
  const auto still = step_movement(before, triplet_dots(before, t), t, dmlbench::theory::TripletLoss::second_order, 0.0);
  CHECK(still.observed.count[std::size_t(Movement::stationary)] == 1);
  CHECK(still.compared == 0);
  // a change below the tolerance is none: 1e-4 rad moves S_ap by about sin(0.6) 1e-4 = 5.6e-5
  const auto tiny = step_movement(before, triplet_dots(at_angles(0, 0.6 - 1e-4, 1.2), t), t,
                                  dmlbench::theory::TripletLoss::nca_first_order, 1e-4);
  CHECK(tiny.observed.count[std::size_t(Movement::stationary)] == 1);
  // the model's prediction for an isolated L1st triplet in the plane: the positive pulled in, the negative pushed
  // out, the anchor moved along f_p - f_n; the step lowers S_an and raises S_ap (bottom-right; numpy, the same
  // update at beta 1e-3: dS_ap = +1.1e-4, dS_an = -1.2e-3)
  const auto m = step_movement(before, triplet_dots(at_angles(0, 0.5, 1.3), t), t,
                               dmlbench::theory::TripletLoss::nca_first_order, 1e-6);
  CHECK(m.predicted.count[std::size_t(Movement::down_right)] == 1);
  CHECK(m.agree == 1);
  CHECK(m.compared == 1);
  CHECK(movement_model_of("l2nd") == dmlbench::theory::TripletLoss::second_order);
  CHECK_THROWS_AS(movement_model_of("ms"), std::invalid_argument);
}

TEST_CASE("the movement summary: counts, shares of the moving dots, leads and the agreement from hand-made rows "
          "[XHN Sec 6.1]",
          "[experiments][XHN]") {
  // [step, epoch, observed ur ul dl dr st, predicted ur ul dl dr st, agree, compared]
  const json rows = json::array({json::array({1, 1, 3, 0, 1, 2, 4, 0, 0, 0, 6, 4, 2, 6}),
                                 json::array({2, 2, 1, 0, 0, 3, 0, 0, 0, 1, 3, 0, 3, 4})});
  const auto s = movement_summary(rows);
  CHECK(s["counts"]["up_right"] == 4);
  CHECK(s["counts"]["stationary"] == 4);
  // 10 moving dots: up_right 4, down_left 1, down_right 5
  CHECK_THAT(s["share"]["down_right"].get<double>(), Catch::WithinULP(0.5, 1));
  CHECK_THAT(s["share"]["up_left"].get<double>(), Catch::WithinULP(0.0, 0));
  CHECK_THAT(s["lead"]["down_right"].get<double>(), Catch::WithinULP(0.1, 2));  // 0.5 - 0.4
  CHECK(s["lead"]["up_right"].get<double>() < 0);
  CHECK_THAT(s["stationary_share"].get<double>(), Catch::WithinULP(4.0 / 14.0, 1));
  CHECK_THAT(s["agreement"].get<double>(), Catch::WithinULP(0.5, 1));  // 5 of 10
  CHECK(s["predicted"]["counts"]["down_right"] == 9);
  CHECK_THAT(s["by_epoch"]["2"]["down_right"].get<double>(), Catch::WithinULP(0.75, 1));
  // no rows: no shares; a malformed row throws
  CHECK(movement_summary(json::array())["share"]["up_right"].is_null());
  CHECK_THROWS_AS(movement_summary(json::array({json::array({1, 2, 3})})), std::invalid_argument);
}

TEST_CASE("the collapse measure: mean pairwise cosine similarity in O(N d) against all pairs, a collapsed set, and "
          "bad input [XHN Fig 4]",
          "[experiments][XHN]") {
  torch::manual_seed(7);
  const auto e = torch::randn({40, 5}, torch::kFloat64) + 0.5;
  const auto y = torch::randint(0, 4, {40}, torch::kInt64);
  const auto h = e / e.norm(2, 1, true);
  const auto sim = h.matmul(h.t());
  double all = 0, same = 0, other = 0;
  long n_same = 0, n_other = 0;
  for (long i = 0; i < 40; ++i)
    for (long j = 0; j < 40; ++j) {
      if (i == j) continue;
      const double s = sim[i][j].item<double>();
      all += s;
      if (y[i].item<long>() == y[j].item<long>()) {
        same += s;
        ++n_same;
      } else {
        other += s;
        ++n_other;
      }
    }
  const auto s = embedding_spread(e, y);
  // the two sums differ in order only: a few ulps of each of the 1560 terms of size <= 1
  CHECK_THAT(s.mean_all, Catch::WithinAbs(all / 1560.0, 1e-12));
  CHECK_THAT(s.mean_same_class, Catch::WithinAbs(same / double(n_same), 1e-12));
  CHECK_THAT(s.mean_other_class, Catch::WithinAbs(other / double(n_other), 1e-12));
  // every point at one location: 1 everywhere ([XHN] Problem 1); one class: no other-class pair
  const auto one = embedding_spread(torch::ones({6, 3}), torch::zeros({6}, torch::kInt64));
  CHECK_THAT(one.mean_all, Catch::WithinAbs(1.0, 1e-12));
  CHECK(std::isnan(one.mean_other_class));
  CHECK_THROWS_AS(embedding_spread(torch::ones({1, 3}), torch::zeros({1}, torch::kInt64)), std::invalid_argument);
  CHECK_THROWS_AS(embedding_spread(torch::zeros({3, 3}), torch::zeros({3}, torch::kInt64)), std::invalid_argument);
  CHECK_THROWS_AS(embedding_spread(torch::ones({3, 3}), torch::zeros({2}, torch::kInt64)), std::invalid_argument);
}
