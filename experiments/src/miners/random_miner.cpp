// Random triplets: a random positive and a random negative per anchor (the [HTL] baseline, the held-out check triplets).
#include "dmlbench/experiments/miner_spec.hpp"

namespace dmlbench::experiments {
namespace {
const bool registered = (register_miner_spec({"random", "random positive, random negative ([HTL] Table 1 baseline)",
                                              PositiveChoice::random, NegativeChoice::random}),
                         true);
}  // namespace
}  // namespace dmlbench::experiments
