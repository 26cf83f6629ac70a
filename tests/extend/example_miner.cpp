// How to add a miner: "example-hpen", per anchor its least similar positive and its least similar negative.
#include "dmlbench/experiments/miner_spec.hpp"

namespace dmlbench::experiments {
namespace {
// Registered at static initialisation; miner.name's choices, its checks and mine_triplets read the registry.
// PositiveChoice::hard is the least similar positive, NegativeChoice::easy the least similar negative
// (experiments/src/engine/batch_miner.cpp); a new kind of choice would need its rule there.
const bool registered = (register_miner_spec({"example-hpen",
                                              "example only (tests/extend): hard positive, easy negative",
                                              PositiveChoice::hard, NegativeChoice::easy}),
                         true);
}  // namespace
}  // namespace dmlbench::experiments
