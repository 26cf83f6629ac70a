// [XHN-A]: the published appendix of [XHN], whose numbered derivations the bench checks beside [XHN]'s.
#include "dmlbench/theory/paper_registry.hpp"

namespace {
const bool registered = dmlbench::theory::register_paper(
    {"XHN-A", "Hard negative examples are hard, but useful: Appendix",
     "Xuan, Stylianou, Liu and Pless, ECCV 2020 (its rows are checked with [XHN]'s, xhn_claims)",
     "xuan-hard-negatives-appendix.txt", {"theory"}, 20});
}  // namespace
