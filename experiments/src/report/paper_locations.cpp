// The locations of a plain-text paper and the check of a row's `where` against its quote.
#include "dmlbench/experiments/paper_locations.hpp"

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

namespace dmlbench::experiments {

namespace {

// What marks a quote as not the text's words verbatim (see the header): the scope files say so in these words.
const std::vector<std::string> kQuoteNotVerbatimMarks = {"extraction cleaned", "lost in extraction", "cleaned)",
                                                         "reconstructed"};
// A sub-piece shorter than this (normalised) locates nothing: "withrespectto" occurs everywhere.
constexpr std::size_t kLooseMinChars = 16;
// A piece shorter than this (normalised) is not looked for: "(32)", "S_an" say nothing about where they are.
constexpr std::size_t kPieceMinChars = 6;

constexpr auto kIcase = std::regex::ECMAScript | std::regex::icase;

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

std::string lower(std::string s) {
  for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

LineSet none(const PaperLocations& p) { return LineSet(p.lines.size(), false); }

void mark(LineSet& set, std::size_t begin, std::size_t end) {
  for (std::size_t i = begin; i < end && i < set.size(); ++i) set[i] = true;
}

void unite(LineSet& into, const LineSet& other) {
  for (std::size_t i = 0; i < into.size(); ++i) into[i] = into[i] || other[i];
}

bool any(const LineSet& s) { return std::find(s.begin(), s.end(), true) != s.end(); }

// ---- normalisation ------------------------------------------------------------------------------------------------

// LaTeX commands that carry no letters of the formula (dropped), and those written differently in the quotes.
const std::set<std::string> kDroppedCommands = {"mathbf", "mathrm", "mathcal", "mathbb", "mathit", "boldsymbol",
    "bm", "text", "textbf", "textit", "left", "right", "quad", "qquad", "frac", "dfrac", "tfrac", "displaystyle",
    "big", "Big", "bigg", "Bigg", "limits", "operatorname", "xrightarrow", "parallel", "cdot", "cdots", "ldots",
    "dots", "star", "hat", "bar", "tilde", "overline", "mid"};
const std::map<std::string, std::string> kRenamedCommands = {{"top", "t"}, {"intercal", "t"}};
// UTF-8 Greek letters and signs -> the spelling the quotes use.
const std::vector<std::pair<std::string, std::string>> kUnicodeNames = {{"α", "alpha"}, {"β", "beta"},
    {"γ", "gamma"}, {"δ", "delta"}, {"Δ", "delta"}, {"λ", "lambda"}, {"θ", "theta"}, {"ε", "epsilon"},
    {"σ", "sigma"}, {"μ", "mu"}, {"φ", "phi"}, {"ϕ", "phi"}, {"Φ", "phi"}, {"ω", "omega"}, {"π", "pi"},
    {"⊤", "t"}, {"…", ""}};

// One LaTeX command at s[i] == '\\': appends its normalised form, returns the index after it.
std::size_t normalise_command(const std::string& s, std::size_t i, std::string& out) {
  std::size_t j = i + 1;
  while (j < s.size() && std::isalpha(static_cast<unsigned char>(s[j]))) ++j;
  if (j == i + 1) return i + 2;  // \| \\ \{ \, ...: a sign
  const std::string name = s.substr(i + 1, j - i - 1);
  if ((name == "begin" || name == "end") && j < s.size() && s[j] == '{') {
    const auto close = s.find('}', j);
    return close == std::string::npos ? s.size() : close + 1;
  }
  if (kDroppedCommands.count(name)) return j;
  const auto renamed = kRenamedCommands.find(name);
  out += lower(renamed != kRenamedCommands.end() ? renamed->second : name);
  return j;
}

// The length of an HTML tag ("<u>", "</b>", "<br/>") at s[i] == '<', 0 where none starts there.
std::size_t html_tag_length(const std::string& s, std::size_t i) {
  std::size_t j = i + 1;
  if (j < s.size() && s[j] == '/') ++j;
  const std::size_t letters = j;
  while (j < s.size() && j - letters < 6 && std::isalpha(static_cast<unsigned char>(s[j]))) ++j;
  if (j == letters) return 0;
  if (j < s.size() && s[j] == '/') ++j;
  return j < s.size() && s[j] == '>' ? j + 1 - i : 0;
}

}  // namespace

std::string normalise_for_matching(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '\\') {
      i = normalise_command(s, i, out);
    } else if (c == '<' && html_tag_length(s, i) > 0) {  // "<u>", "</u>" of the slides' underlining
      i += html_tag_length(s, i);
    } else if (c >= 0x80) {
      std::size_t len = (c >= 0xF0) ? 4 : (c >= 0xE0) ? 3 : (c >= 0xC0) ? 2 : 1;
      for (const auto& [utf8, name] : kUnicodeNames)
        if (s.compare(i, utf8.size(), utf8) == 0) out += name;
      i += len;
    } else {
      if (std::isalnum(c)) out += char(std::tolower(c));
      ++i;
    }
  }
  return out;
}

namespace {

// ---- headings -------------------------------------------------------------------------------------------------------

struct Heading {
  std::size_t line;
  std::string kind;  // section | appendix | abstract | other
  std::string key;   // "6.1", "B"
  int level;
};

// A slide deck's "Contents" list: "N. Title" entries and their bulleted sub-entries (titles in lower case).
struct Contents {
  std::size_t begin = 0, end = 0;
  std::map<std::string, std::string> top;                // title -> "3"
  std::map<std::string, std::vector<std::string>> sub;   // title -> {"4.2", ...}
};

std::string bare_title(const std::string& line) {
  std::string t = trim(line);
  while (!t.empty() && (t[0] == '-' || t[0] == '*' || t[0] == ' ')) t.erase(0, 1);
  if (t.rfind("•", 0) == 0) t.erase(0, std::string("•").size());
  return lower(trim(t));
}

bool bulleted(const std::string& line) {
  const std::string t = trim(line);
  return !t.empty() && (t[0] == '-' || t[0] == '*' || t.rfind("•", 0) == 0);
}

Contents contents_list(const std::vector<std::string>& lines) {
  Contents c;
  static const std::regex top(R"(^\s*(?:[-*]\s*)?(\d{1,2})\.\s+(\S.*)$)");
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lower(trim(lines[i])) != "contents") continue;
    c.begin = i;
    std::string current;
    int subs = 0;
    std::size_t j = i + 1;
    for (; j < lines.size(); ++j) {
      std::smatch m;
      if (trim(lines[j]).empty()) continue;
      if (std::regex_match(lines[j], m, top)) {
        current = m[1];
        subs = 0;
        c.top[lower(trim(m[2]))] = current;
      } else if (bulleted(lines[j]) && !current.empty()) {
        c.sub[bare_title(lines[j])].push_back(current + "." + std::to_string(++subs));
      } else {
        break;
      }
    }
    c.end = j;
    break;
  }
  return c;
}

// A heading opened by a Contents entry: a plain line equal to a top entry, a bulleted line equal to a sub-entry
// (one under the open section first).
bool contents_heading(const Contents& c, const std::string& line, const std::string& open_top, Heading& h) {
  const std::string title = bare_title(line);
  if (title.empty()) return false;
  const auto sub = c.sub.find(title);
  if (bulleted(line) && sub != c.sub.end()) {
    h.key = sub->second.front();
    for (const auto& k : sub->second)
      if (k.rfind(open_top + ".", 0) == 0) h.key = k;
    h.kind = "section";
    h.level = 2;
    return true;
  }
  const auto top = c.top.find(title);
  if (!bulleted(line) && top != c.top.end()) {
    h = {0, "section", top->second, 1};
    return true;
  }
  return false;
}

// The heading a line opens, if any: numbered, appendix, a bare word (Abstract, References, Appendix), or a Contents
// entry.
// The line with Unicode spaces (U+2000-U+200A, U+00A0: "A:\u2003Proofs") as ASCII spaces.
std::string plain_spaces(std::string s) {
  for (std::size_t i = 0; i + 1 < s.size(); ++i) {
    const auto b0 = static_cast<unsigned char>(s[i]), b1 = static_cast<unsigned char>(s[i + 1]);
    if (b0 == 0xC2 && b1 == 0xA0) s.replace(i, 2, " ");
    else if (b0 == 0xE2 && b1 == 0x80 && i + 2 < s.size() && static_cast<unsigned char>(s[i + 2]) <= 0x8A)
      s.replace(i, 3, " ");
  }
  return s;
}

bool heading_of(const std::string& text, const Contents& c, const std::string& open_top, bool after_contents,
                Heading& h) {
  static const std::regex numbered(R"(^(\d{1,2}(?:\.\d{1,2}){0,3})\.?\s+([A-Z][^$]*)$)");
  static const std::regex appendix(R"(^([A-Z])(?::|\s+APPENDIX:?|\s+Appendix:?)\s+(\S.*)$)");
  static const std::set<std::string> words = {"abstract", "references", "appendix", "acknowledgements",
                                              "acknowledgments", "bibliography", "contents"};
  const std::string raw = plain_spaces(text), line = trim(raw);
  if (line.empty()) return false;
  std::smatch m;
  if (line.size() <= 100 && line.back() != '.' && std::regex_match(line, m, numbered) &&
      std::stoi(m[1].str()) <= 20) {
    const std::string key = m[1];
    h = {0, "section", key, int(std::count(key.begin(), key.end(), '.')) + 1};
    return true;
  }
  if (line.size() <= 150 && std::regex_match(line, m, appendix)) {
    h = {0, "appendix", m[1], 1};
    return true;
  }
  if (words.count(lower(line))) {
    h = {0, lower(line) == "abstract" ? "abstract" : "other", lower(line), 1};
    return true;
  }
  return after_contents && contents_heading(c, raw, open_top, h);
}

std::vector<Heading> headings(const std::vector<std::string>& lines) {
  const Contents c = contents_list(lines);
  std::vector<Heading> out;
  std::string open_top;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i > c.begin && i < c.end) continue;  // the Contents list itself
    Heading h;
    if (trim(lines[i]).empty() || !heading_of(lines[i], c, open_top, c.end > 0 && i >= c.end, h)) continue;
    h.line = i;
    const std::string top = h.key.substr(0, h.key.find('.'));
    if (h.kind == "section" && h.level == 2 && top != open_top)  // a slide deck's sub-entry under an untitled section
      out.push_back({i, "section", top, 1});
    if (h.kind == "section" && h.level == 1) open_top = h.key;
    if (h.kind == "section" && h.level == 2) open_top = top;
    if (h.kind != "section") open_top.clear();
    out.push_back(h);
  }
  return out;
}

// Every heading's span: to the next heading of its level or above (an appendix ends at the next appendix or bare word).
void heading_spans(PaperLocations& p, const std::vector<Heading>& hs) {
  for (std::size_t k = 0; k < hs.size(); ++k) {
    std::size_t end = p.lines.size();
    for (std::size_t j = k + 1; j < hs.size(); ++j)
      if (hs[j].level <= hs[k].level) {
        end = hs[j].line;
        break;
      }
    LineSet span = none(p);
    mark(span, hs[k].line, end);
    std::string label;
    if (hs[k].kind == "section") {
      auto& s = p.sections[hs[k].key];
      if (s.empty()) s = none(p);
      unite(s, span);
      label = "Sec " + hs[k].key;
    } else if (hs[k].kind == "appendix") {
      p.appendices[hs[k].key] = span;
      label = "App. " + hs[k].key;
    } else if (hs[k].kind == "abstract") {
      p.abstract = span;
      label = "Abstract";
    } else {
      continue;
    }
    p.section_spans.push_back(span);
    p.section_labels.push_back(label);
  }
}

// A paragraph that opens with "Abstract." (the [HTL] slides) is the abstract where no heading says so.
void inline_abstract(PaperLocations& p) {
  if (!p.abstract.empty()) return;
  for (std::size_t i = 0; i < p.lines.size(); ++i)
    if (trim(p.lines[i]).rfind("Abstract.", 0) == 0) {
      p.abstract = none(p);
      p.abstract[i] = true;
      p.section_spans.push_back(p.abstract);
      p.section_labels.push_back("Abstract");
      return;
    }
}

// ---- floats, equations, statements ----------------------------------------------------------------------------------

std::string float_kind(const std::string& word) {
  return lower(word).rfind("tab", 0) == 0 ? "table" : "figure";
}

void captions_and_mentions(PaperLocations& p) {
  static const std::regex caption(R"(^\s*(Table|Fig\.?|Figure)\s*(\d+)\s*[.:])", kIcase);
  static const std::regex mention(
      R"((Tables?|Tab\.|Figures?|Figs?\.?)\s*(\d+)[a-z]?((?:\s*(?:,|and|&|-|–|to)\s*\d+[a-z]?)*))", kIcase);
  static const std::regex number(R"((\d+)[a-z]?(?:\s*(-|–|to)\s*(\d+))?)");
  for (std::size_t i = 0; i < p.lines.size(); ++i) {
    std::smatch m;
    if (std::regex_search(p.lines[i], m, caption))
      p.captions[float_kind(m[1]) + " " + m[2].str()].push_back(i);
    for (std::sregex_iterator it(p.lines[i].begin(), p.lines[i].end(), mention), e; it != e; ++it) {
      const std::string kind = float_kind((*it)[1]);
      const std::string list = (*it)[2].str() + (*it)[3].str();
      for (std::sregex_iterator n(list.begin(), list.end(), number); n != std::sregex_iterator(); ++n) {
        const int a = std::stoi((*n)[1]), b = (*n)[3].matched ? std::stoi((*n)[3]) : a;
        for (int k = a; k <= b && k - a < 50; ++k) p.mentions[kind + " " + std::to_string(k)].push_back(i);
      }
    }
  }
}

void equation_numbers(PaperLocations& p) {
  static const std::vector<std::regex> printed = {std::regex(R"(\\tag\{(\d+)\})"), std::regex(R"(\\quad\s*\((\d+)\))"),
                                                  std::regex(R"(\((\d+)\)\s*\$\$\s*$)"),
                                                  std::regex(R"(^\s*\((\d+)\)\s*\|)")};
  for (std::size_t i = 0; i < p.lines.size(); ++i)
    for (const auto& r : printed) {
      std::smatch m;
      if (std::regex_search(p.lines[i], m, r)) p.equations.emplace(std::stoi(m[1]), i);
    }
}

// "Theorem 1." / "Claim 2." / "Problem 1:" blocks to the next such line or heading; "Proof." on is the proof.
void numbered_statements(PaperLocations& p, const std::vector<Heading>& hs) {
  static const std::regex label(
      R"(^\s*(Theorem|Lemma|Claim|Problem|Definition|Corollary|Proposition)\s+(\d+)\s*[.:])");
  std::vector<std::size_t> stops;
  for (const auto& h : hs) stops.push_back(h.line);
  for (std::size_t i = 0; i < p.lines.size(); ++i)
    if (std::regex_search(p.lines[i], label)) stops.push_back(i);
  std::sort(stops.begin(), stops.end());
  for (std::size_t i = 0; i < p.lines.size(); ++i) {
    std::smatch m;
    if (!std::regex_search(p.lines[i], m, label)) continue;
    const auto next = std::upper_bound(stops.begin(), stops.end(), i);
    const std::size_t end = next == stops.end() ? p.lines.size() : *next;
    const std::string key = lower(m[1]) + " " + m[2].str();
    auto& block = p.statements[key];
    if (block.empty()) block = none(p);
    mark(block, i, end);
    for (std::size_t j = i + 1; j < end; ++j)
      if (trim(p.lines[j]).rfind("Proof", 0) == 0) {
        auto& proof = p.proofs[key];
        if (proof.empty()) proof = none(p);
        mark(proof, j, end);
        break;
      }
  }
}

void matching_index(PaperLocations& p) {
  for (std::size_t i = 0; i < p.lines.size(); ++i) {
    const std::string n = normalise_for_matching(p.lines[i]);
    p.normalised += n;
    p.normalised_line.insert(p.normalised_line.end(), n.size(), i);
  }
}

}  // namespace

PaperLocations parse_paper_locations(const std::string& text) {
  PaperLocations p;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    p.lines.push_back(line);
  }
  const auto hs = headings(p.lines);
  heading_spans(p, hs);
  inline_abstract(p);
  captions_and_mentions(p);
  equation_numbers(p);
  numbered_statements(p, hs);
  matching_index(p);
  return p;
}

namespace {

// ---- what a `where` cites -------------------------------------------------------------------------------------------

// The innermost section, appendix or abstract (fewest lines) that holds a line; npos where none does.
std::size_t innermost(const PaperLocations& p, std::size_t line) {
  std::size_t best = std::string::npos, best_size = 0;
  for (std::size_t k = 0; k < p.section_spans.size(); ++k) {
    if (!p.section_spans[k][line]) continue;
    const auto size = std::size_t(std::count(p.section_spans[k].begin(), p.section_spans[k].end(), true));
    if (best == std::string::npos || size < best_size) best = k, best_size = size;
  }
  return best;
}

void unite_innermost(const PaperLocations& p, std::size_t line, LineSet& into) {
  into[line] = true;
  const auto k = innermost(p, line);
  if (k != std::string::npos) unite(into, p.section_spans[k]);
}

// Where a line is, in words: "the caption of Table 3 in Sec 5.2.1", "Sec 4.2", "line 12".
std::string where_is(const PaperLocations& p, std::size_t line) {
  const auto k = innermost(p, line);
  std::string in = k == std::string::npos ? "line " + std::to_string(line + 1) : p.section_labels[k];
  for (const auto& [name, lines] : p.captions)
    if (std::find(lines.begin(), lines.end(), line) != lines.end()) {
      std::string n = name;
      n[0] = char(std::toupper(static_cast<unsigned char>(n[0])));
      return "the caption of " + n + " (in " + in + ")";
    }
  return in;
}

// A table or figure: its caption with the table's lines next to it (to a blank line, another caption or a
// heading), the innermost sections holding the caption and each mention, and the mentioning lines.
std::string float_lines(const PaperLocations& p, const std::string& kind, int n, const std::string& panel,
                        LineSet& out) {
  const std::string key = kind + " " + std::to_string(n);
  const auto cap = p.captions.find(key), men = p.mentions.find(key);
  const std::string name = (kind == "table" ? "Table " : "Fig ") + std::to_string(n);
  if (cap == p.captions.end() && men == p.mentions.end()) return "no " + name + " in the text";
  auto stop = [&](std::size_t i) {
    if (trim(p.lines[i]).empty()) return true;
    for (const auto& [other, lines] : p.captions)
      if (other != key && std::find(lines.begin(), lines.end(), i) != lines.end()) return true;
    return false;
  };
  if (cap != p.captions.end())
    for (const auto c : cap->second) {
      unite_innermost(p, c, out);
      for (std::size_t i = c; i > 0 && !stop(i - 1); --i) out[i - 1] = true;
      for (std::size_t i = c + 1; i < p.lines.size() && !stop(i); ++i) out[i] = true;
      const std::string text = p.lines[c];
      if (!panel.empty() && text.find("(a)") != std::string::npos && text.find("(" + panel + ")") == std::string::npos)
        return name + panel + ": the caption of " + name + " has no panel (" + panel + ")";
    }
  if (men != p.mentions.end())
    for (const auto m : men->second) unite_innermost(p, m, out);
  return "";
}

std::string equation_lines(const PaperLocations& p, int n, LineSet& out) {
  const auto e = p.equations.find(n);
  if (e == p.equations.end()) return "no eq " + std::to_string(n) + " in the text (no line prints (" +
                                     std::to_string(n) + "))";
  unite_innermost(p, e->second, out);
  return "";
}

std::string statement_lines(const PaperLocations& p, const std::string& kind, int n, bool proof, LineSet& out) {
  const auto& from = proof ? p.proofs : p.statements;
  const auto s = from.find(kind + " " + std::to_string(n));
  if (s == from.end())
    return "no " + kind + " " + std::to_string(n) + (proof ? " proof" : "") + " in the text";
  unite(out, s->second);
  return "";
}

// The members of a range "a-b" (or just a).
std::vector<int> range_of(const std::ssub_match& a, const std::ssub_match& b) {
  std::vector<int> out;
  const int from = std::stoi(a.str()), to = b.matched ? std::stoi(b.str()) : from;
  for (int k = from; k <= to && k - from < 100; ++k) out.push_back(k);
  return out;
}

std::string section_lines(const PaperLocations& p, const std::smatch& m, LineSet& out) {
  std::vector<std::string> keys = {m[1].str()};
  if (m[2].matched) {
    if (m[1].str().find('.') != std::string::npos || m[2].str().find('.') != std::string::npos)
      return "cannot read the range Sec " + m[1].str() + "-" + m[2].str() + " (ranges of top-level sections only)";
    keys.clear();
    for (const int k : range_of(m[1], m[2])) keys.push_back(std::to_string(k));
  }
  for (const auto& k : keys) {
    const auto s = p.sections.find(k);
    if (s == p.sections.end()) return "no Sec " + k + " in the text";
    unite(out, s->second);
  }
  return "";
}

std::string appendix_lines(const PaperLocations& p, const std::smatch& m, LineSet& out) {
  const char from = char(std::toupper(static_cast<unsigned char>(m[1].str()[0])));
  const char to = m[2].matched ? char(std::toupper(static_cast<unsigned char>(m[2].str()[0]))) : from;
  for (char c = from; c <= to; ++c) {
    const auto a = p.appendices.find(std::string(1, c));
    if (a == p.appendices.end()) return std::string("no App. ") + c + " in the text";
    unite(out, a->second);
  }
  return "";
}

// One locator at the start of s: its lines in `out` (or the reason it is not in the text in `error`); the length
// read, 0 where none starts there.
std::size_t read_locator(const PaperLocations& p, const std::string& s, LineSet& out, std::string& error) {
  static const std::regex sec(R"((?:sections?|secs?\.?)\s*(\d+(?:\.\d+)*)(?:\s*[-–]\s*(\d+(?:\.\d+)*))?)", kIcase);
  static const std::regex app(R"((?:appendix|appendices|app\.?)\s*([A-Z])\b(?:\s*[-–]\s*([A-Z])\b)?)", kIcase);
  static const std::regex abs(R"(abstract\b)", kIcase);
  static const std::regex tab(R"((?:tables?|tab\.)\s*(\d+)(?:\s*[-–]\s*(\d+))?)", kIcase);
  static const std::regex fig(R"((?:figures?|figs?\.?)\s*(\d+)([a-z])?(?:\s*[-–]\s*(\d+))?)", kIcase);
  static const std::regex eqn(R"((?:equations?|eqs?\.?)\s*(\d+)(?:\s*[-–]\s*(\d+))?)", kIcase);
  static const std::regex thm(R"((?:theorems?|thms?\.?)\s*(\d+)(\s+proof)?)", kIcase);
  static const std::regex stm(R"((claim|problem|lemma|definition)s?\s*(\d+))", kIcase);
  const auto flags = std::regex_constants::match_continuous;
  std::smatch m;
  out = none(p);
  if (std::regex_search(s, m, sec, flags)) {
    error = section_lines(p, m, out);
  } else if (std::regex_search(s, m, app, flags)) {
    error = appendix_lines(p, m, out);
  } else if (std::regex_search(s, m, abs, flags)) {
    if (p.abstract.empty()) error = "no Abstract in the text";
    else out = p.abstract;
  } else if (std::regex_search(s, m, tab, flags)) {
    for (const int k : range_of(m[1], m[2]))
      if (error.empty()) error = float_lines(p, "table", k, "", out);
  } else if (std::regex_search(s, m, fig, flags)) {
    for (const int k : range_of(m[1], m[3]))
      if (error.empty()) error = float_lines(p, "figure", k, lower(m[2].str()), out);
  } else if (std::regex_search(s, m, eqn, flags)) {
    for (const int k : range_of(m[1], m[2]))
      if (error.empty()) error = equation_lines(p, k, out);
  } else if (std::regex_search(s, m, thm, flags)) {
    error = statement_lines(p, "theorem", std::stoi(m[1]), m[2].matched, out);
  } else if (std::regex_search(s, m, stm, flags)) {
    error = statement_lines(p, lower(m[1]), std::stoi(m[2]), false, out);
  } else {
    return 0;
  }
  return std::size_t(m.length(0));
}

enum class Chain { description, locators, unreadable };

// A chain of locators ("App. B Claim 2"): the lines all of them hold. A text that does not open with a locator is a
// description; one that opens with a locator and then holds something else is unreadable.
Chain read_chain(const PaperLocations& p, const std::string& text, LineSet& out, std::string& error) {
  std::size_t pos = text.find_first_not_of(" \t");
  if (pos == std::string::npos) return Chain::description;
  out = LineSet(p.lines.size(), true);
  bool first = true;
  while (pos != std::string::npos && pos < text.size()) {
    LineSet lines;
    const auto len = read_locator(p, text.substr(pos), lines, error);
    if (len == 0) {
      if (first) return Chain::description;
      error = "cannot read '" + trim(text.substr(pos)) + "' as a section, appendix, table, figure, equation, theorem "
              "or claim";
      return Chain::unreadable;
    }
    if (!error.empty()) return Chain::locators;
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = out[i] && lines[i];
    first = false;
    pos = text.find_first_not_of(" \t", pos + len);
  }
  return Chain::locators;
}

// One item of a `where` ("Thm 1 proof (App. A)"): its lines; `cites` false for a description.
std::string read_item(const PaperLocations& p, const std::string& item, LineSet& out, bool& cites) {
  std::string main, error;
  std::vector<std::string> parens;
  int depth = 0;
  for (const char c : item) {
    if (c == '(' && depth++ == 0) parens.emplace_back();
    else if (c == ')' && depth > 0 && --depth == 0) continue;
    else if (depth > 0) parens.back() += c;
    else main += c;
  }
  const Chain chain = read_chain(p, main, out, error);
  cites = chain != Chain::description;
  if (!cites || !error.empty()) return error;
  for (const auto& inner : parens) {
    LineSet lines;
    std::string inner_error;
    if (read_chain(p, inner, lines, inner_error) != Chain::locators) continue;  // a description: "(In-Shop, ...)"
    if (!inner_error.empty()) return inner_error;
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = out[i] && lines[i];
  }
  if (!any(out)) return "'" + trim(item) + "': its locators share no line (the one is not within the other)";
  return "";
}

}  // namespace

std::string cited_lines(const PaperLocations& paper, const std::string& where, LineSet& cited) {
  cited = none(paper);
  std::vector<std::string> items(1);
  int depth = 0;
  for (const char c : where) {
    if (c == '(') ++depth;
    if (c == ')' && depth > 0) --depth;
    if ((c == ';' || c == ',') && depth == 0) items.emplace_back();
    else items.back() += c;
  }
  bool cites_any = false;
  for (const auto& item : items) {
    LineSet lines;
    bool cites = false;
    const std::string error = read_item(paper, item, lines, cites);
    if (!error.empty()) return "where '" + where + "': " + error;
    if (cites) unite(cited, lines);
    cites_any = cites_any || cites;
  }
  if (!cites_any) return "where '" + where + "' cites no section, appendix, table, figure, equation, theorem or claim";
  return "";
}

std::vector<std::vector<std::string>> quote_fragments(const std::string& quote) {
  if (std::count(quote.begin(), quote.end(), '"') % 2 != 0)
    throw std::runtime_error("the quote has an odd number of '\"': its fragments cannot be told apart");
  std::vector<std::vector<std::string>> out;
  for (std::size_t open = quote.find('"'); open != std::string::npos;) {
    const std::size_t close = quote.find('"', open + 1);
    std::string fragment = quote.substr(open + 1, close - open - 1);
    for (std::size_t e; (e = fragment.find("…")) != std::string::npos;) fragment.replace(e, 3, "...");
    std::vector<std::string> pieces;
    std::size_t from = 0;
    for (std::size_t gap; (gap = fragment.find("...", from)) != std::string::npos; from = gap + 3)
      pieces.push_back(trim(fragment.substr(from, gap - from)));
    pieces.push_back(trim(fragment.substr(from)));
    pieces.erase(std::remove(pieces.begin(), pieces.end(), std::string()), pieces.end());
    out.push_back(pieces);
    open = quote.find('"', close + 1);
  }
  return out;
}

bool quote_is_not_verbatim(const std::string& quote) {
  for (const auto& mark : kQuoteNotVerbatimMarks)
    if (quote.find(mark) != std::string::npos) return true;
  return false;
}

namespace {

enum class Placed { inside, outside, nowhere };

// Where a normalised needle occurs: inside (an occurrence starts and ends on cited lines), outside (`line`: the first
// occurrence), or nowhere.
Placed place(const PaperLocations& p, const std::string& needle, const LineSet& cited, std::size_t& line) {
  Placed placed = Placed::nowhere;
  for (std::size_t at = p.normalised.find(needle); at != std::string::npos; at = p.normalised.find(needle, at + 1)) {
    const std::size_t first = p.normalised_line[at], last = p.normalised_line[at + needle.size() - 1];
    if (cited[first] && cited[last]) return Placed::inside;
    if (placed == Placed::nowhere) line = first;
    placed = Placed::outside;
  }
  return placed;
}

// A not-verbatim piece's sub-pieces: runs of words between math signs and one-letter symbols ("if f is" breaks at
// "f", which the [LCC] text prints twice, "f𝑓f"), longest first, each at least kLooseMinChars normalised.
std::vector<std::string> loose_parts(const std::string& piece) {
  std::vector<std::string> parts(1);
  std::istringstream words(piece);
  for (std::string word; words >> word;) {
    std::string run;
    for (const char c : word) {
      if (std::string("=+*/^_(){}[]<>|,;:-").find(c) == std::string::npos) {
        run += c;
        continue;
      }
      if (normalise_for_matching(run).size() >= 2) parts.back() += " " + run;
      else parts.emplace_back();
      parts.emplace_back();
      run.clear();
    }
    if (normalise_for_matching(run).size() >= 2) parts.back() += " " + run;
    else parts.emplace_back();
  }
  std::vector<std::string> out;
  for (const auto& part : parts) {
    const std::string n = normalise_for_matching(part);
    if (n.size() >= kLooseMinChars) out.push_back(n);
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
  return out;
}

std::string shown(const std::string& piece) {
  return "\"" + (piece.size() > 70 ? piece.substr(0, 67) + "..." : piece) + "\"";
}

}  // namespace

WhereCheck check_where(const PaperLocations& paper, const std::string& where, const std::string& quote) {
  WhereCheck r;
  LineSet cited;
  r.error = cited_lines(paper, where, cited);
  if (!r.error.empty()) return r;
  std::vector<std::vector<std::string>> fragments;
  try {
    fragments = quote_fragments(quote);
  } catch (const std::exception& e) {
    r.error = e.what();
    return r;
  }
  const bool loose = quote_is_not_verbatim(quote);
  for (const auto& pieces : fragments)
    for (const auto& piece : pieces) {
      const std::string n = normalise_for_matching(piece);
      if (n.size() < kPieceMinChars) continue;
      std::size_t line = 0;
      Placed placed = place(paper, n, cited, line);
      if (placed == Placed::nowhere && loose)
        for (const auto& part : loose_parts(piece)) {
          std::size_t part_line = 0;
          const Placed p = place(paper, part, cited, part_line);
          if (p == Placed::inside) {
            placed = p;
            break;
          }
          if (p == Placed::outside && placed == Placed::nowhere) placed = p, line = part_line;
        }
      if (placed == Placed::outside) {
        r.error = shown(piece) + " is in " + where_is(paper, line) + ", which where '" + where + "' does not cite";
        return r;
      }
      if (placed == Placed::nowhere && !loose) {
        r.error = shown(piece) + " is not in the text, and the quote does not say that it was cleaned";
        return r;
      }
      if (placed == Placed::nowhere) r.unlocated.push_back(piece);
      if (placed == Placed::inside) ++r.located;
    }
  return r;
}

}  // namespace dmlbench::experiments
