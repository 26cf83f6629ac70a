// The domain and settings a verdict was checked on, from its row (report_checked_on.hpp).
#include "dmlbench/experiments/report_checked_on.hpp"

#include <sstream>

namespace dmlbench::experiments {

namespace {

// A deviation's label: the words before its first ": " where they are a short name ("data", "image size"), else "".
std::string label_of(const std::string& deviation) {
  const auto colon = deviation.find(": ");
  if (colon == std::string::npos || colon == 0 || colon > 30) return "";
  return deviation.substr(0, colon);
}

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
  return out;
}

CheckedOn training_checked_on(const ClaimRow& row) {
  CheckedOn c;
  c.domain = "the paper's data as the bench reads it";
  std::size_t unlabelled = 0;
  for (const auto& d : row.scope.deviations) {
    const auto label = label_of(d);
    if (label == "data") {
      const auto body = d.substr(6);
      c.domain = body.substr(0, body.find(" instead of"));
    } else if (!label.empty()) {
      c.settings.push_back(label);
    } else {
      ++unlabelled;
    }
  }
  c.paper_covers_more = !row.scope.deviations.empty();
  std::ostringstream o;
  o << "Checked on " << c.domain;
  if (!c.settings.empty()) o << ", with the bench's " << joined(c.settings);
  if (unlabelled > 0) o << (c.settings.empty() ? ", with " : " and ") << unlabelled << " further deviation"
                        << (unlabelled > 1 ? "s" : "");
  o << (c.paper_covers_more ? ": the verdict is about these, not the paper's data and settings, which its statement "
                              "covers and this check did not run"
                            : ": the paper's settings as the bench reads them");
  c.text = o.str() + ".";
  return c;
}

}  // namespace

CheckedOn checked_on(const ClaimRow& row) {
  if (row.training() || row.layer == "experiments") return training_checked_on(row);
  CheckedOn c;
  c.domain = "the points its evidence names";
  for (const auto& d : row.scope.deviations)
    if (const auto label = label_of(d); !label.empty()) c.settings.push_back(label);
  const bool witnessed = !row.witness.empty() && row.verdict != "verified";
  c.paper_covers_more = !witnessed;
  c.text = witnessed ? "Checked on the points its evidence names: its witness settles a statement over the whole "
                       "domain."
                     : "Checked on the points its evidence names: the statement covers its whole domain, which these "
                       "points sample and do not exhaust.";
  return c;
}

}  // namespace dmlbench::experiments
