// [WU]: distance weighted sampling, whose density of distances on the sphere the bench's distance-weighted miner
// inverts (experiments' MinerConfig::dw_*); the sixth paper, added as a plug-in.
#include "dmlbench/theory/paper_registry.hpp"

namespace {
const bool registered = dmlbench::theory::register_paper(
    {"WU", "Sampling matters in deep embedding learning",
     "Wu, Manmatha, Smola and Kraehenbuehl, ICCV 2017 (arXiv 1706.07567); no text of it is had here: its row is "
     "reconstructed from secondary sources (theory/scopes/WU.json)",
     "", {"theory"}, 60});
}  // namespace
