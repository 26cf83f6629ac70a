// The names of what the miner ranks by (miner_similarity.hpp): the one table of miner.similarity.
#include "dmlbench/experiments/miner_similarity.hpp"

namespace dmlbench::experiments {

const NamedChoice<MinerSimilarity>& miner_similarities() {
  static const NamedChoice<MinerSimilarity> table("miner similarity",
                                                  {{"auto", MinerSimilarity::automatic},
                                                   {"cosine", MinerSimilarity::cosine},
                                                   {"neg-squared-distance", MinerSimilarity::neg_squared_distance}});
  return table;
}

}  // namespace dmlbench::experiments
