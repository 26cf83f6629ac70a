#include "dmlbench/experiments/triplet_movement_log.hpp"

#include "dmlbench/experiments/loss_spec.hpp"

#include "dmlbench/theory/entanglement.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <stdexcept>

namespace dmlbench::experiments {

namespace F = torch::nn::functional;

TripletDots triplet_dots(const torch::Tensor& embeddings, const MinedTriplets& t) {
  const auto h = F::normalize(embeddings.detach().to(torch::kCPU, torch::kFloat64), F::NormalizeFuncOptions().dim(1));
  const auto a = h.index({t.anchors.cpu()}), p = h.index({t.positives.cpu()}), n = h.index({t.negatives.cpu()});
  return {(a * p).sum(1), (a * n).sum(1)};
}

theory::TripletLoss movement_model_of(const std::string& loss_name) {
  const auto& model = loss_spec(loss_name).movement_model;  // declared by the loss's own file (loss_spec.hpp)
  if (model.empty()) {
    std::string known;
    for (const auto& s : loss_specs())
      if (!s.movement_model.empty()) known += (known.empty() ? "" : " | ") + s.name;
    throw std::invalid_argument("the movement model knows loss.name = " + known + ", not " + loss_name);
  }
  return theory::parse_triplet_loss(model);
}

StepMovement step_movement(const torch::Tensor& embeddings_before, const TripletDots& after, const MinedTriplets& t,
                           theory::TripletLoss model, double tolerance) {
  // the model's step on the features: small enough that its direction is the gradient's ([XHN] Sec 6.1 runs at 1e-6;
  // the bench's own check finds no top-left movement below alpha = 0.5)
  constexpr double kModelStep = 1e-3;
  const auto h =
      F::normalize(embeddings_before.detach().to(torch::kCPU, torch::kFloat64), F::NormalizeFuncOptions().dim(1))
          .contiguous();
  const auto ia = t.anchors.cpu(), ip = t.positives.cpu(), in = t.negatives.cpu();
  const long d = h.size(1);
  auto row = [&](std::int64_t i) {
    return Eigen::Map<const Eigen::VectorXd>(h.data_ptr<double>() + i * d, d).eval();
  };
  StepMovement m;
  for (std::int64_t k = 0; k < ia.size(0); ++k) {
    // the dot before the step from the same normalised rows the model's prediction uses
    const theory::Triplet tr{row(ia[k].item<std::int64_t>()), row(ip[k].item<std::int64_t>()),
                             row(in[k].item<std::int64_t>())};
    const double ap0 = std::clamp(tr.a.dot(tr.p), -1.0, 1.0), an0 = std::clamp(tr.a.dot(tr.n), -1.0, 1.0),
                 ap1 = std::clamp(after.s_ap[k].item<double>(), -1.0, 1.0),
                 an1 = std::clamp(after.s_an[k].item<double>(), -1.0, 1.0);
    const auto seen = theory::classify_dot_movement(ap0, an0, ap1, an1, tolerance);
    theory::Movement predicted = theory::Movement::stationary;
    try {
      predicted = theory::classify(theory::delta_s_from_vectors(model, tr, kModelStep));
    } catch (const theory::domain_error&) {  // a feature sent to the origin: no prediction
    }
    m.observed.add(seen);
    m.predicted.add(predicted);
    if (seen != theory::Movement::stationary && predicted != theory::Movement::stationary) {
      ++m.compared;
      if (seen == predicted) ++m.agree;
    }
  }
  return m;
}

namespace {
using ojson = nlohmann::ordered_json;
constexpr const char* kNames[5] = {"up_right", "up_left", "down_left", "down_right", "stationary"};

ojson shares(const std::array<std::int64_t, 5>& n) {
  const double q = double(n[0] + n[1] + n[2] + n[3]), all = q + double(n[4]);
  ojson counts = ojson::object(), share = ojson::object(), lead = ojson::object();
  for (int i = 0; i < 5; ++i) counts[kNames[i]] = n[std::size_t(i)];
  for (int i = 0; i < 4; ++i) {
    share[kNames[i]] = q > 0 ? ojson(double(n[std::size_t(i)]) / q) : ojson(nullptr);
    std::int64_t other = 0;
    for (int j = 0; j < 4; ++j)
      if (j != i) other = std::max(other, n[std::size_t(j)]);
    lead[kNames[i]] = q > 0 ? ojson(double(n[std::size_t(i)] - other) / q) : ojson(nullptr);
  }
  return {{"counts", counts}, {"share", share}, {"lead", lead},
          {"stationary_share", all > 0 ? ojson(double(n[4]) / all) : ojson(nullptr)}};
}
}  // namespace

ojson movement_summary(const ojson& rows) {
  std::array<std::int64_t, 5> seen{}, predicted{};
  std::int64_t agree = 0, compared = 0;
  std::map<std::int64_t, std::array<std::int64_t, 5>> by_epoch;
  for (const auto& r : rows) {
    if (!r.is_array() || r.size() != 14) throw std::invalid_argument("movement_summary: a row of " + r.dump());
    for (std::size_t i = 0; i < 5; ++i) {
      seen[i] += r[2 + i].get<std::int64_t>();
      predicted[i] += r[7 + i].get<std::int64_t>();
      by_epoch[r[1].get<std::int64_t>()][i] += r[2 + i].get<std::int64_t>();
    }
    agree += r[12].get<std::int64_t>();
    compared += r[13].get<std::int64_t>();
  }
  ojson out = shares(seen);
  out["steps"] = rows.size();
  out["predicted"] = shares(predicted);
  out["agreement"] = compared > 0 ? ojson(double(agree) / double(compared)) : ojson(nullptr);
  out["compared"] = compared;
  out["by_epoch"] = ojson::object();
  for (const auto& [e, n] : by_epoch) out["by_epoch"][std::to_string(e)] = shares(n)["share"];
  return out;
}

}  // namespace dmlbench::experiments
