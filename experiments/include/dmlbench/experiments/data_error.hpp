// The error of a data file the bench cannot read (a reader's one-line refusal, naming the file), and the form in
// which text quoted from such a file enters it. Torch-free.
#pragma once

#include <stdexcept>
#include <string>

namespace dmlbench::experiments {

// The message with each control byte (a newline, a carriage return, ...) written as \xNN: a refusal is one line
// whatever a file's key or value holds (fuzzing found keys with newlines quoted into errors).
std::string one_line(std::string message);

struct data_error : std::runtime_error {
  explicit data_error(const std::string& message) : std::runtime_error(one_line(message)) {}
};

// Text from a file as an error quotes it: control bytes and non-ASCII as \xNN, at most `max` characters then "...",
// so that a refusal stays one line however the file is damaged (fuzzing found a .npy header's newline).
std::string printable_excerpt(const std::string& text, std::size_t max = 120);

}  // namespace dmlbench::experiments
