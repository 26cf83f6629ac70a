// A run's result typed by hand into a scope entry's text: the report prints every measured value,
// interval, decision rule and verdict itself, so a scope text that types one goes stale at the next run.
#pragma once

#include <string>

namespace dmlbench::experiments {

// The first hand-typed result in `text`, "" if none: a p-value ("p = 2.8e-6", "p 0.0004"), a mean +- spread, an
// interval "[-15.3, -10.0]", a decimal percentage ("63.6%"), or a test the report decides by itself (Welch, Holm, a
// binomial test, a t-test, Clopper-Pearson), or a result of a one-off computation no command repeats ("audit runs",
// "own recomputation", "(sim phase)"). With `outcome_words`, also a verdict word (verified, refuted,
// inconclusive, not-reproduced, not-reproducible, erratum): a text that states the outcome. Configured numbers (a
// margin, a tolerance 1e-12, 1188 samples, 8 seeds) are not results and pass.
std::string hand_typed_result(const std::string& text, bool outcome_words);

}  // namespace dmlbench::experiments
