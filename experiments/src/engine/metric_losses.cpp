#include "dmlbench/experiments/metric_losses.hpp"

#include <stdexcept>

namespace dmlbench::experiments {

namespace F = torch::nn::functional;

namespace {
void require_triplets(const torch::Tensor& emb, const MinedTriplets& t) {
  if (emb.dim() != 2) throw std::invalid_argument("embeddings must be B x d");
  if (!t.anchors.defined() || t.anchors.numel() == 0)
    throw std::invalid_argument("no triplets in the batch: every class has a single sample, or only one class");
}
}  // namespace

torch::Tensor triplet_margin_loss(const torch::Tensor& emb, const MinedTriplets& t, double margin, TripletDistance d) {
  return triplet_margin_terms(emb, t, margin, d).mean();
}

torch::Tensor triplet_margin_terms(const torch::Tensor& emb, const MinedTriplets& t, double margin, TripletDistance d) {
  require_triplets(emb, t);
  const auto a = emb.index({t.anchors}), p = emb.index({t.positives}), n = emb.index({t.negatives});
  torch::Tensor dap, dan;
  switch (d) {
    case TripletDistance::squared_euclidean:
      dap = (a - p).pow(2).sum(1);
      dan = (a - n).pow(2).sum(1);
      break;
    case TripletDistance::euclidean:  // + eps inside the root: the gradient of |x| at x = 0 is undefined
      dap = ((a - p).pow(2).sum(1) + 1e-12).sqrt();
      dan = ((a - n).pow(2).sum(1) + 1e-12).sqrt();
      break;
    case TripletDistance::cosine:
      dap = 1 - (a * p).sum(1);
      dan = 1 - (a * n).sum(1);
      break;
  }
  return torch::relu(dap - dan + margin);
}

torch::Tensor nca_triplet_loss(const torch::Tensor& emb, const MinedTriplets& t, double scale) {
  return nca_triplet_terms(emb, t, scale).mean();
}

torch::Tensor nca_triplet_terms(const torch::Tensor& emb, const MinedTriplets& t, double scale) {
  require_triplets(emb, t);
  const auto a = emb.index({t.anchors});
  const auto sap = (a * emb.index({t.positives})).sum(1), san = (a * emb.index({t.negatives})).sum(1);
  return F::softplus(scale * (san - sap));
}

torch::Tensor second_order_triplet_loss(const torch::Tensor& emb, const MinedTriplets& t) {
  return second_order_triplet_terms(emb, t).mean();
}

torch::Tensor second_order_triplet_terms(const torch::Tensor& emb, const MinedTriplets& t) {
  require_triplets(emb, t);
  const auto a = emb.index({t.anchors});
  const auto sap = (a * emb.index({t.positives})).sum(1), san = (a * emb.index({t.negatives})).sum(1);
  return F::softplus(0.5 * san * san - sap + 0.5 * sap * sap);
}

MarginLossImpl::MarginLossImpl(int num_classes, double a, double beta0) : alpha(a) {
  if (num_classes < 1) throw std::invalid_argument("margin loss: num_classes >= 1");
  beta = register_parameter("beta", torch::full({num_classes}, beta0, torch::kFloat32));
}

torch::Tensor MarginLossImpl::forward(const torch::Tensor& emb, const torch::Tensor& labels, const MinedTriplets& t) {
  require_triplets(emb, t);
  const auto a = emb.index({t.anchors});
  const auto b = beta.to(emb.device()).index({labels.to(emb.device()).index({t.anchors})});
  const auto dap = (a - emb.index({t.positives})).pow(2).sum(1), dan = (a - emb.index({t.negatives})).pow(2).sum(1);
  const auto lp = torch::relu(dap - b + alpha), ln = torch::relu(b - dan + alpha);
  const auto active = (lp.gt(0).sum() + ln.gt(0).sum()).clamp_min(1).to(emb.dtype());
  return (lp.sum() + ln.sum()) / active;
}

torch::Tensor contrastive_loss(const torch::Tensor& emb, const torch::Tensor& labels, double alpha) {
  const auto B = emb.size(0);
  if (B < 2) throw std::invalid_argument("contrastive loss: a batch of at least 2");
  const auto d = torch::cdist(emb, emb).pow(2);
  const auto l = labels.to(emb.device());
  const auto same = l.unsqueeze(0).eq(l.unsqueeze(1)).to(emb.dtype());
  const auto off = 1 - torch::eye(B, emb.options());
  const auto terms = same * d + (1 - same) * torch::relu(alpha - d);
  return (terms * off).sum() / (B * (B - 1));
}

torch::Tensor multi_similarity_loss(const torch::Tensor& emb, const torch::Tensor& labels, double alpha, double beta,
                                    double lambda, double epsilon, bool easiest_positive, MsReduction reduction) {
  const auto B = emb.size(0);
  const auto sim = emb.matmul(emb.t());
  const auto l = labels.to(emb.device());
  const auto eye = torch::eye(B, torch::TensorOptions().dtype(torch::kBool).device(emb.device()));
  const auto pos = l.unsqueeze(0).eq(l.unsqueeze(1)).logical_and(eye.logical_not());
  const auto neg = l.unsqueeze(0).ne(l.unsqueeze(1));
  torch::Tensor loss = torch::zeros({}, emb.options());
  std::int64_t used = 0;
  const auto s_det = sim.detach();
  for (std::int64_t i = 0; i < B; ++i) {
    if (!pos[i].any().item<bool>() || !neg[i].any().item<bool>()) continue;
    const auto sp = s_det[i].masked_select(pos[i]), sn = s_det[i].masked_select(neg[i]);
    // mining (Wang et al. eqs 10-11): negatives with S + eps > min positive, positives with S - eps < max negative
    const auto keep_n = neg[i].logical_and(s_det[i].gt(sp.min() - epsilon));
    auto keep_p = pos[i].logical_and(s_det[i].lt(sn.max() + epsilon));
    if (easiest_positive)  // EPS: the most similar positive, whatever the mining rule says
      keep_p = torch::zeros_like(pos[i]).index_fill_(
          0, torch::where(pos[i], s_det[i], torch::full_like(s_det[i], -1e30)).argmax(), true);
    if (!keep_n.any().item<bool>() || !keep_p.any().item<bool>()) continue;
    const auto p_term = torch::log1p(torch::exp(-alpha * (sim[i].masked_select(keep_p) - lambda)).sum()) / alpha;
    const auto n_term = torch::log1p(torch::exp(beta * (sim[i].masked_select(keep_n) - lambda)).sum()) / beta;
    loss = loss + p_term + n_term;
    ++used;
  }
  // Wang et al. eq 15: 1/m over the batch's m anchors (an anchor that mines nothing adds 0); mined_anchors: over the
  // anchors that mined a pair (the bench before issue 50)
  const double over = reduction == MsReduction::batch ? double(B) : double(used);
  return used ? loss / over : loss + 0 * sim.sum();  // keep the graph when nothing was mined
}

}  // namespace dmlbench::experiments
