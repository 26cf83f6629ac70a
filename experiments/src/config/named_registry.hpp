// The one registry behind losses, miners and samplers: specs added by name at static initialisation, kept
// sorted by name, found by name with an error that names the registered ones. Internal to experiments/.
#pragma once

#include "dmlbench/experiments/config_key.hpp"
#include "dmlbench/experiments/nearest_name.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace dmlbench::experiments {

template <class Spec>
class NamedRegistry {
 public:
  explicit NamedRegistry(std::string key) : key_(std::move(key)) {}
  // Adds `spec`; a second registration of a name (a file compiled into two libraries that are linked together) is
  // the same spec, and the first one stays.
  void add(Spec spec) {
    if (std::any_of(specs_.begin(), specs_.end(), [&](const Spec& s) { return s.name == spec.name; })) return;
    specs_.insert(std::upper_bound(specs_.begin(), specs_.end(), spec,
                                   [](const Spec& a, const Spec& b) { return a.name < b.name; }),
                  std::move(spec));
  }
  const std::vector<Spec>& all() const { return specs_; }
  std::vector<std::string> names() const {
    std::vector<std::string> n;
    for (const auto& s : specs_) n.push_back(s.name);
    return n;
  }
  const Spec& find(const std::string& name) const {
    for (const auto& s : specs_)
      if (s.name == name) return s;
    const auto near = nearest_name(name, names());
    throw config_error(key_ + " = \"" + name + "\" is not one of " + joined_names(names()) +
                       (near.empty() ? "" : " (did you mean \"" + near + "\"?)"));
  }

 private:
  std::string key_;
  std::vector<Spec> specs_;
};

}  // namespace dmlbench::experiments
