#include "dmlbench/experiments/gradient_surgery_loss.hpp"

#include <stdexcept>

namespace dmlbench::experiments {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::tensor_list;

// The [XGS] factors, vectorised over the triplets (the same formulas as theory/gradient_decomposition.hpp).
struct Factors {
  torch::Tensor wp, wn, tw;               // per triplet
  torch::Tensor dp, dn, dap, dan;         // per triplet unit directions (T x d)
};

torch::Tensor unit(const torch::Tensor& v) {
  const auto n = v.norm(2, 1, true);
  return torch::where(n.gt(0), v / n.clamp_min(1e-300), torch::zeros_like(v));
}

Factors factors(const torch::Tensor& a, const torch::Tensor& p, const torch::Tensor& n, const SurgeryConfig& c) {
  Factors f;
  const auto sap = (a * p).sum(1), san = (a * n).sum(1);
  if (c.direction == SurgeryDirection::euclidean) {
    f.dp = unit(a - p);
    f.dn = unit(n - a);
    f.dap = unit(p - a);
    f.dan = unit(a - n);
  } else {
    f.dp = a;
    f.dn = -a;
    f.dap = p;
    f.dan = -n;
  }
  switch (c.pair) {
    case SurgeryPairWeight::constant:
      f.wp = torch::full_like(sap, c.scale);
      f.wn = torch::full_like(san, c.scale);
      break;
    case SurgeryPairWeight::euclidean:
      f.wp = 2 * (a - p).norm(2, 1);
      f.wn = 2 * (a - n).norm(2, 1);
      break;
    case SurgeryPairWeight::linear:
      f.wp = c.scale * torch::relu(1 + c.circle_m - sap);
      f.wn = c.scale * torch::relu(san + c.circle_m);
      break;
    case SurgeryPairWeight::sigmoid:
      f.wp = c.alpha / (1 + torch::exp(c.alpha * (sap - c.lambda)));
      f.wn = c.beta / (1 + torch::exp(-c.beta * (san - c.lambda)));
      break;
  }
  switch (c.triplet) {
    case SurgeryTripletWeight::constant: f.tw = torch::ones_like(sap); break;
    case SurgeryTripletWeight::nca: f.tw = torch::sigmoid(c.scale * (san - sap)); break;
    case SurgeryTripletWeight::circle: {
      const auto ap = torch::relu(1 + c.circle_m - sap), an = torch::relu(san + c.circle_m);
      f.tw = torch::sigmoid(c.scale * (an * (san - c.circle_m) - ap * (sap - (1 - c.circle_m))));
      break;
    }
  }
  return f;
}

struct SurgeryFunction : public torch::autograd::Function<SurgeryFunction> {
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor emb, torch::Tensor anchors, torch::Tensor positives,
                               torch::Tensor negatives, const SurgeryConfig& c) {
    ctx->save_for_backward({emb, anchors, positives, negatives});
    ctx->saved_data["direction"] = int64_t(c.direction);
    ctx->saved_data["pair"] = int64_t(c.pair);
    ctx->saved_data["triplet"] = int64_t(c.triplet);
    ctx->saved_data["scale"] = c.scale;
    ctx->saved_data["circle_m"] = c.circle_m;
    ctx->saved_data["alpha"] = c.alpha;
    ctx->saved_data["beta"] = c.beta;
    ctx->saved_data["lambda"] = c.lambda;
    const auto a = emb.index({anchors});
    const auto sap = (a * emb.index({positives})).sum(1), san = (a * emb.index({negatives})).sum(1);
    return torch::nn::functional::softplus(c.scale * (san - sap)).mean();  // for logging
  }

  static tensor_list backward(AutogradContext* ctx, tensor_list grad_out) {
    const auto saved = ctx->get_saved_variables();
    const auto& emb = saved[0];
    const auto &ai = saved[1], &pi = saved[2], &ni = saved[3];
    SurgeryConfig c;
    c.direction = SurgeryDirection(ctx->saved_data["direction"].toInt());
    c.pair = SurgeryPairWeight(ctx->saved_data["pair"].toInt());
    c.triplet = SurgeryTripletWeight(ctx->saved_data["triplet"].toInt());
    c.scale = ctx->saved_data["scale"].toDouble();
    c.circle_m = ctx->saved_data["circle_m"].toDouble();
    c.alpha = ctx->saved_data["alpha"].toDouble();
    c.beta = ctx->saved_data["beta"].toDouble();
    c.lambda = ctx->saved_data["lambda"].toDouble();
    const auto a = emb.index({ai}), p = emb.index({pi}), n = emb.index({ni});
    const auto f = factors(a, p, n, c);
    const auto tw = f.tw.unsqueeze(1);
    // descent = T (w_p d_p, w_n d_n, w_p d_ap + w_n d_an); the gradient of the mean is -descent / T_count
    const double k = -1.0 / double(ai.size(0));
    auto g = torch::zeros_like(emb);
    g.index_add_(0, pi, k * tw * f.wp.unsqueeze(1) * f.dp);
    g.index_add_(0, ni, k * tw * f.wn.unsqueeze(1) * f.dn);
    g.index_add_(0, ai, k * tw * (f.wp.unsqueeze(1) * f.dap + f.wn.unsqueeze(1) * f.dan));
    return {g * grad_out[0], torch::Tensor(), torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

torch::Tensor gradient_surgery_loss(const torch::Tensor& emb, const MinedTriplets& t, const SurgeryConfig& c) {
  if (!t.anchors.defined() || t.anchors.numel() == 0) throw std::invalid_argument("gradient surgery: no triplets");
  return SurgeryFunction::apply(emb, t.anchors, t.positives, t.negatives, c);
}

}  // namespace dmlbench::experiments
