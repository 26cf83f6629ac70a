// Naming the valid names in an error message: the nearest one to a typo (unknown config keys, layouts, levels, sets)
// and the list of them.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace dmlbench::experiments {

// Levenshtein distance (insertions, deletions and substitutions of one byte each cost 1).
std::size_t edit_distance(const std::string& a, const std::string& b);
// The nearest of `candidates` to `word` (the first of equals); empty when none is within a third of its length + 2.
std::string nearest_name(const std::string& word, const std::vector<std::string>& candidates);
// The names joined with ", ", in their order.
std::string joined_names(const std::vector<std::string>& names);

}  // namespace dmlbench::experiments
