// The nearest valid name to a typo, for error messages (unknown config keys, layouts, levels, sets).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace dmlbench::experiments {

// Levenshtein distance (insertions, deletions and substitutions of one byte each cost 1).
std::size_t edit_distance(const std::string& a, const std::string& b);
// The nearest of `candidates` to `word` (the first of equals); empty when none is within a third of its length + 2.
std::string nearest_name(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace dmlbench::experiments
