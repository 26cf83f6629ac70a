// FNV-1a content hashes: of a text, and of every file under a set of folders (the report's stage caching, a checkpoint's
// file entries, a tuning space).
#pragma once

#include <string>
#include <vector>

namespace dmlbench::experiments {

// FNV-1a 64-bit of text, as 16 hex digits: the hash each stage's outputs carry.
std::string fnv1a_hex(const std::string& text);
// FNV-1a of the relative paths and contents of every file under the given paths of root (sorted, so stable);
// files whose name starts with one of `skip`, ends with an entry of `skip` that starts with '*' ("*.md"), that lie
// in a folder named by an entry of `skip` ending in '/' ("scopes/", "theory/papers/"), or whose path from root starts
// with an entry holding a '/' ("theory/src/claims_"), are left out.
std::string tree_hash(const std::string& root, const std::vector<std::string>& paths,
                      const std::vector<std::string>& skip = {});

}  // namespace dmlbench::experiments
