// The miner registry: each named triplet miner as data, the positive and negative it picks per anchor,
// registered from its own file (experiments/src/miners/) and read by the config schema, its checks and mine_triplets.
// Torch-free.
#pragma once

#include <string>
#include <vector>

namespace dmlbench::experiments {

// all: every positive of the anchor, one triplet per anchor-positive pair (FaceNet Sec 3.2, Schroff et al. 2015)
enum class PositiveChoice { random, easy, hard, all };
enum class NegativeChoice { random, hard, semi_hard, easy, distance_weighted };
// distance_weighted reads the similarity as a cosine (d = sqrt(2 - 2 S)), so a miner with it ranks by cosine under
// miner.similarity = auto whatever the loss (miner_ranks_by_cosine), and refuses neg-squared-distance.

struct MinerSpec {
  std::string name, doc;  // miner.name, and one line with its paper
  PositiveChoice positive = PositiveChoice::easy;
  NegativeChoice negative = NegativeChoice::hard;
  bool needs_unit_sphere = false;  // samples by distance on the unit sphere: needs model.normalize
};

void register_miner_spec(MinerSpec spec);
const std::vector<MinerSpec>& miner_specs();  // sorted by name
// config_error naming the registered ones for any other name.
const MinerSpec& miner_spec(const std::string& name);
std::vector<std::string> miner_names();

}  // namespace dmlbench::experiments
