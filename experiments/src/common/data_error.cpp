// Text quoted from a damaged file into a one-line error.
#include "dmlbench/experiments/data_error.hpp"

#include <cstdio>

namespace dmlbench::experiments {

namespace {

// Appends c, or \xNN where it is a control byte (or, unless keep_non_ascii, any byte outside printable ASCII).
void append_escaped(std::string& out, unsigned char c, bool keep_non_ascii) {
  if (c >= 0x20 && c != 0x7f && (keep_non_ascii || c < 0x7f)) {
    out += char(c);
    return;
  }
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02X", unsigned(c));
  out += buf;
}

}  // namespace

std::string one_line(std::string message) {
  std::string out;
  for (const char ch : message) append_escaped(out, static_cast<unsigned char>(ch), true);
  return out;
}

std::string printable_excerpt(const std::string& text, std::size_t max) {
  std::string out;
  for (const char ch : text) {
    if (out.size() >= max) return out + "...";
    append_escaped(out, static_cast<unsigned char>(ch), false);
  }
  return out;
}

}  // namespace dmlbench::experiments
