// [LCC]: class collapse of margin-based losses under label noise, and Easy Positive Sampling.
#include "dmlbench/theory/paper_registry.hpp"

namespace {
const bool registered = dmlbench::theory::register_paper(
    {"LCC", "Rethinking preventing class-collapsing in metric learning with margin-based losses",
     "Levi, Xiao, Wang and Darrell, ICCV 2021", "levi-class-collapse-eps.txt", {"sims", "experiments"}, 50});
}  // namespace
