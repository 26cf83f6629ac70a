// A closed set of names and the values they stand for (strings stop at the parser, as Ceres's
// StringToLinearSolverType): one table a choice, which the config's schema (its choices), the parser (name -> value)
// and the messages (value -> name) all read, so that no name is compared anywhere else.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace dmlbench::experiments {

// "unknown <what> '<name>' (a, b, c): did you mean "b"?" (named_choice.cpp)
std::string unknown_choice_message(const std::string& what, const std::string& name,
                                   const std::vector<std::string>& names);

template <class Value>
class NamedChoice {
 public:
  NamedChoice(std::string what, std::vector<std::pair<std::string, Value>> table)
      : what_(std::move(what)), table_(std::move(table)) {}
  std::vector<std::string> names() const {
    std::vector<std::string> n;
    for (const auto& [name, value] : table_) n.push_back(name);
    return n;
  }
  // std::invalid_argument naming the choices (and the nearest one) for a name outside the table
  Value named(const std::string& name) const {
    for (const auto& [n, value] : table_)
      if (n == name) return value;
    throw std::invalid_argument(unknown_choice_message(what_, name, names()));
  }
  const std::string& name_of(Value v) const {
    for (const auto& [n, value] : table_)
      if (value == v) return n;
    throw std::logic_error(what_ + ": a value without a name");
  }

 private:
  std::string what_;
  std::vector<std::pair<std::string, Value>> table_;
};

}  // namespace dmlbench::experiments
