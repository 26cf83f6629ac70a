// FNV-1a content hashes: of a text, and of every file under a set of folders (the report's stage caching, a checkpoint's
// file entries, a tuning space).
#include "dmlbench/experiments/content_hash.hpp"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>

namespace dmlbench::experiments {

namespace fs = std::filesystem;

std::string fnv1a_hex(const std::string& text) {
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a 64 offset basis 0xcbf29ce484222325
  for (unsigned char ch : text) {
    h ^= ch;
    h *= 1099511628211ull;
  }
  std::ostringstream o;
  o << std::hex << std::setw(16) << std::setfill('0') << h;
  return o.str();
}

// The files under the given paths of root, relative to it, sorted.
static std::vector<std::string> files_under(const std::string& root, const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const auto& p : paths) {
    const fs::path full = fs::path(root) / p;
    if (fs::is_regular_file(full)) files.push_back(p);
    if (!fs::is_directory(full)) continue;
    for (const auto& e : fs::recursive_directory_iterator(full))
      if (e.is_regular_file()) files.push_back(fs::relative(e.path(), root).string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Whether `skip`'s entry s leaves out the file f (relative path) named `name`: a folder ("scopes/", or a path to one,
// "theory/papers/"), a suffix ("*.md"), a path prefix ("theory/src/claims_") or a name prefix ("report_").
static bool skips(const std::string& s, const std::string& f, const std::string& name) {
  if (s.back() == '/') return ("/" + f).find("/" + s) != std::string::npos;
  if (s.find('/') != std::string::npos) return f.rfind(s, 0) == 0;
  if (s.front() == '*') {
    const std::string suffix = s.substr(1);
    return name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  }
  return name.rfind(s, 0) == 0;
}

std::string tree_hash(const std::string& root, const std::vector<std::string>& paths,
                      const std::vector<std::string>& skip) {
  std::string all;
  for (const auto& f : files_under(root, paths)) {
    const std::string name = fs::path(f).filename().string();
    if (std::any_of(skip.begin(), skip.end(), [&](const std::string& s) { return skips(s, f, name); })) continue;
    std::ifstream in(fs::path(root) / f, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    all += f + '\0' + fnv1a_hex(text.str()) + '\n';
  }
  return fnv1a_hex(all);
}

}  // namespace dmlbench::experiments
