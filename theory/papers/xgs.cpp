// [XGS]: the gradient decomposition of pair-wise losses into direction, pair weight and triplet weight.
#include "dmlbench/theory/paper_registry.hpp"

namespace {
const bool registered = dmlbench::theory::register_paper(
    {"XGS", "Dissecting the impact of different loss functions with gradient surgery",
     "Xuan et al. (the extracted text carries no author line or venue)", "xuan-gradient-surgery.txt", {"theory"}, 30}) &&
                        dmlbench::theory::register_theory_claims("XGS", dmlbench::theory::xgs_claims);
}  // namespace
