// The message of a name outside a table of named choices (named_choice.hpp), with the nearest name.
#include "dmlbench/experiments/named_choice.hpp"

#include "dmlbench/experiments/nearest_name.hpp"

namespace dmlbench::experiments {

std::string unknown_choice_message(const std::string& what, const std::string& name,
                                   const std::vector<std::string>& names) {
  const auto near = nearest_name(name, names);
  return "unknown " + what + " '" + name + "' (" + joined_names(names) + ")" +
         (near.empty() ? "" : ": did you mean \"" + near + "\"?");
}

}  // namespace dmlbench::experiments
