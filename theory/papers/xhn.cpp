// [XHN]: the paper whose identities on the hypersphere, vector fields and Fig 3/4 experiments the bench checks.
#include "dmlbench/theory/paper_registry.hpp"

namespace {
const bool registered = dmlbench::theory::register_paper(
    {"XHN", "Extreme triplet learning: effectively optimizing easy positives and hard negatives",
     "Xuan, Stylianou, Liu and Pless; the version under double-blind review of \"Hard negative examples are hard, but "
     "useful\" (ECCV 2020)",
     "xuan-hard-negatives-main.txt", {"theory", "experiments"}, 10}) &&
                        dmlbench::theory::register_theory_claims("XHN", dmlbench::theory::xhn_claims);
}  // namespace
