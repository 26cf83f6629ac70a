// Text quoted from a damaged file into a one-line error (issue 29).
#include "dmlbench/experiments/data_error.hpp"

#include <cstdio>

namespace dmlbench::experiments {

std::string one_line(std::string message) {
  std::string out;
  for (const char ch : message) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c != 0x7f) {
      out += ch;
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", unsigned(c));
      out += buf;
    }
  }
  return out;
}

std::string printable_excerpt(const std::string& text, std::size_t max) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (out.size() >= max) return out + "...";
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += char(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", unsigned(c));
      out += buf;
    }
  }
  return out;
}

}  // namespace dmlbench::experiments
