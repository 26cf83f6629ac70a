// The registry of papers and their theory checks.
#include "dmlbench/theory/paper_registry.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace dmlbench::theory {

namespace {

// Function-local statics: registrations run at static initialisation, in any order across files.
std::map<std::string, Paper>& papers() {
  static std::map<std::string, Paper> p;
  return p;
}
std::map<std::string, TheoryClaims>& theory_claims() {
  static std::map<std::string, TheoryClaims> c;
  return c;
}

std::string keys_of(const std::vector<Paper>& ps) {
  std::string o;
  for (const auto& p : ps) o += (o.empty() ? "" : ", ") + p.key;
  return o;
}

}  // namespace

// A second registration of a key (a file linked into two libraries that are linked together) is the same entry: the
// first stays, as in experiments' NamedRegistry.
bool register_paper(Paper paper) {
  if (paper.key.empty()) throw std::invalid_argument("a paper needs a key");
  papers().emplace(paper.key, std::move(paper));
  return true;
}

std::vector<Paper> registered_papers() {
  std::vector<Paper> out;
  for (const auto& [key, p] : papers()) out.push_back(p);
  std::stable_sort(out.begin(), out.end(), [](const Paper& a, const Paper& b) { return a.order < b.order; });
  return out;
}

const Paper& registered_paper(const std::string& key) {
  const auto it = papers().find(key);
  if (it == papers().end())
    throw std::invalid_argument("no paper " + key + " is registered (registered: " + keys_of(registered_papers()) + ")");
  return it->second;
}

std::string paper_keys_text(const std::string& layer) {
  std::string o;
  for (const auto& p : registered_papers())
    if (std::find(p.layers.begin(), p.layers.end(), layer) != p.layers.end()) o += (o.empty() ? "[" : ", [") + p.key + "]";
  return o;
}

std::string papers_markdown() {
  std::string o = "| key | title | citation | claims checked in | text |\n|---|---|---|---|---|\n";
  for (const auto& p : registered_papers()) {
    std::string layers;
    for (const auto& l : p.layers) layers += (layers.empty() ? "" : ", ") + l;
    o += "| [" + p.key + "] | " + p.title + " | " + p.citation + " | " + layers + " | " +
         (p.text.empty() ? std::string("none here") : "`" + p.text + "`") + " |\n";
  }
  return o;
}

bool register_theory_claims(const std::string& paper, TheoryClaims claims) {
  theory_claims().emplace(paper, std::move(claims));
  return true;
}

std::vector<std::pair<std::string, TheoryClaims>> registered_theory_claims() {
  for (const auto& [key, c] : theory_claims())
    if (!papers().count(key))
      throw std::invalid_argument("theory checks are registered for " + key + ", which is no registered paper");
  std::vector<std::pair<std::string, TheoryClaims>> out;
  for (const auto& p : registered_papers())
    if (const auto it = theory_claims().find(p.key); it != theory_claims().end()) out.emplace_back(p.key, it->second);
  return out;
}

}  // namespace dmlbench::theory
