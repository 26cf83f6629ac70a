// [HTL]: the hierarchical triplet loss, read from a seminar's slides of the paper.
#include "dmlbench/theory/paper_registry.hpp"

namespace {
const bool registered = dmlbench::theory::register_paper(
    {"HTL", "Deep metric learning with hierarchical triplet loss",
     "Ge, Huang, Dong and Scott, ECCV 2018; the text is Sanghyun Seo's seminar slides of it (Dongguk University, 2018)",
     "ge-hierarchical-triplet-loss-slides.txt", {"theory", "experiments"}, 40}) &&
                        dmlbench::theory::register_theory_claims("HTL", dmlbench::theory::htl_claims);
}  // namespace
