// The report tests' reading of a generated claims table: the Markdown row of one claim id.
#pragma once

#include <sstream>
#include <string>

// The table's row for id ("" when there is none).
inline std::string claims_table_row(const std::string& md, const std::string& id) {
  std::istringstream in(md);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("| `" + id + "` |", 0) == 0) return line;
  return "";
}
