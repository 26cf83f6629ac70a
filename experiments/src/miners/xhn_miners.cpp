// The four miners of [XHN] Sec 4-6: easy or hard positive with hard, semi-hard or easy negative.
#include "dmlbench/experiments/miner_spec.hpp"

namespace dmlbench::experiments {
namespace {
const bool registered = [] {
  using P = PositiveChoice;
  using N = NegativeChoice;
  register_miner_spec({"EPHN", "easy positive, hard negative ([XHN] Sec 5)", P::easy, N::hard});
  register_miner_spec({"EPSHN", "easy positive, semi-hard negative ([XHN] Sec 6)", P::easy, N::semi_hard});
  register_miner_spec({"HPHN", "hard positive, hard negative ([XHN] Sec 6.1)", P::hard, N::hard});
  register_miner_spec({"EPEN", "easy positive, easy negative ([XHN] Sec 6.1)", P::easy, N::easy});
  return true;
}();
}  // namespace
}  // namespace dmlbench::experiments
