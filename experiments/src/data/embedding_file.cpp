#include "dmlbench/experiments/embedding_file.hpp"

#include <zlib.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <set>

namespace dmlbench::experiments {

namespace {

// The whole file, gunzipped when it is gzip (zlib reads plain files unchanged).
std::string read_bytes(const std::string& path, const std::string& what) {
  if (!std::filesystem::exists(path)) throw data_error(what + " file not found: " + path);
  if (std::filesystem::is_directory(path)) throw data_error(path + " is a folder, not a " + what + " file");
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw data_error("cannot open " + what + " file " + path);
  std::string out;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, std::size_t(n));
  int code = 0;
  const std::string why = n < 0 ? gzerror(f, &code) : "";
  gzclose(f);
  if (n < 0) throw data_error(path + ": read error (" + why + ")");
  return out;
}

// A numeric array as stored: shape, element type, byte order and its raw bytes.
struct RawArray {
  std::vector<std::int64_t> shape;
  char kind = 'f';  // 'f' float, 'i' signed, 'u' unsigned
  int item_size = 4;
  bool big_endian = false;
  std::string type_name;  // as the file spells it, for messages
  const unsigned char* data = nullptr;
  // after check_data_size: the product of non-zero sizes fits the file; a zero size first, so that the others,
  // which check_data_size does not bound then, are never multiplied (a signed overflow)
  std::int64_t count() const {
    for (auto s : shape)
      if (s == 0) return 0;
    std::int64_t c = 1;
    for (auto s : shape) c *= s;
    return c;
  }
  // element i, widened
  double as_double(std::int64_t i) const { return kind == 'f' ? float_at(i) : double(int_at(i)); }
  std::int64_t int_at(std::int64_t i) const {
    std::uint64_t u = 0;
    for (int b = 0; b < item_size; ++b) {
      const int shift = big_endian ? 8 * (item_size - 1 - b) : 8 * b;
      u |= std::uint64_t(data[i * item_size + b]) << shift;
    }
    if (kind == 'i' && item_size < 8 && (u >> (8 * item_size - 1)) != 0) u |= ~std::uint64_t(0) << (8 * item_size);
    return std::int64_t(u);
  }
  double float_at(std::int64_t i) const {
    const std::uint64_t u = std::uint64_t(int_at(i));
    if (item_size == 4) {
      const auto w = std::uint32_t(u);
      float f;
      std::memcpy(&f, &w, 4);
      return f;
    }
    double d;
    std::memcpy(&d, &u, 8);
    return d;
  }
};

bool starts_with_npy_magic(const std::string& b) { return b.size() >= 6 && b.compare(0, 6, "\x93NUMPY") == 0; }
bool starts_with_idx_magic(const std::string& b) { return b.size() >= 4 && b[0] == 0 && b[1] == 0; }

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

void check_data_size(const std::string& path, const RawArray& a, std::size_t offset, std::size_t file_size) {
  double bytes = a.item_size;  // in double: a product of sizes up to 2^40 each cannot wrap before the check
  for (auto s : a.shape) {
    if (s < 0 || s > (std::int64_t(1) << 40)) throw data_error(path + ": implausible shape " + shape_text(a.shape));
    bytes *= double(s);
  }
  const auto have = file_size - offset;
  if (bytes > double(have)) {  // more than the file holds (checked before count(), which could overflow)
    char need[32];
    std::snprintf(need, sizeof need, "%.0f", bytes);
    throw data_error(path + ": truncated data: " + std::to_string(have) + " of the " + need + " bytes that shape " +
                     shape_text(a.shape) + " needs");
  }
  const auto want = std::size_t(a.count()) * std::size_t(a.item_size);
  if (have < want)
    throw data_error(path + ": truncated data: " + std::to_string(have) + " of the " + std::to_string(want) +
                     " bytes that shape " + shape_text(a.shape) + " needs");
  if (have > want)
    throw data_error(path + ": " + std::to_string(have - want) + " trailing bytes after the " + std::to_string(want) +
                     " that shape " + shape_text(a.shape) + " needs");
}

// The value of key in the .npy header (a Python dict literal); position just after the colon.
std::size_t npy_key(const std::string& path, const std::string& header, const std::string& key) {
  for (const char q : {'\'', '"'}) {
    const auto p = header.find(q + key + q);
    if (p == std::string::npos) continue;
    auto c = header.find_first_not_of(" \t", p + key.size() + 2);
    if (c == std::string::npos || header[c] != ':') break;
    c = header.find_first_not_of(" \t", c + 1);
    if (c != std::string::npos) return c;
  }
  throw data_error(path + ": the .npy header has no '" + key + "' entry: " + printable_excerpt(header));
}

RawArray parse_npy(const std::string& path, const std::string& b) {
  if (b.size() < 10) throw data_error(path + ": truncated .npy header");
  const int major = static_cast<unsigned char>(b[6]);
  std::size_t header_len = 0, offset = 0;
  if (major == 1) {
    header_len = std::size_t(static_cast<unsigned char>(b[8])) | std::size_t(static_cast<unsigned char>(b[9])) << 8;
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (b.size() < 12) throw data_error(path + ": truncated .npy header");
    for (int i = 0; i < 4; ++i) header_len |= std::size_t(static_cast<unsigned char>(b[8 + std::size_t(i)])) << (8 * i);
    offset = 12;
  } else {
    throw data_error(path + ": .npy format version " + std::to_string(major) + " is not supported (1, 2 or 3)");
  }
  if (offset + header_len > b.size()) throw data_error(path + ": truncated .npy header");
  const std::string h = b.substr(offset, header_len);
  RawArray a;
  // descr: a quoted type string such as '<f4' (a list here is a structured dtype)
  auto p = npy_key(path, h, "descr");
  if (h[p] != '\'' && h[p] != '"') throw data_error(path + ": structured .npy dtypes are not supported: " + printable_excerpt(h));
  const auto end = h.find(h[p], p + 1);
  if (end == std::string::npos) throw data_error(path + ": malformed .npy header: " + printable_excerpt(h));
  a.type_name = printable_excerpt(h.substr(p + 1, end - p - 1), 40);
  if (a.type_name.size() < 3 || std::string("<>|=").find(a.type_name[0]) == std::string::npos)
    throw data_error(path + ": unknown .npy dtype '" + a.type_name + "'");
  a.big_endian = a.type_name[0] == '>';
  a.kind = a.type_name[1];
  a.item_size = std::atoi(a.type_name.c_str() + 2);
  // fortran_order
  p = npy_key(path, h, "fortran_order");
  if (h.compare(p, 4, "True") == 0)
    throw data_error(path + ": fortran_order arrays are not supported; save numpy.ascontiguousarray(x) instead");
  if (h.compare(p, 5, "False") != 0) throw data_error(path + ": malformed fortran_order in the .npy header: " + printable_excerpt(h));
  // shape: a tuple of integers
  p = npy_key(path, h, "shape");
  if (h[p] != '(') throw data_error(path + ": malformed shape in the .npy header: " + printable_excerpt(h));
  const auto close = h.find(')', p);
  if (close == std::string::npos) throw data_error(path + ": malformed shape in the .npy header: " + printable_excerpt(h));
  std::string dims = h.substr(p + 1, close - p - 1);
  std::size_t q = 0;
  while (q < dims.size()) {
    q = dims.find_first_not_of(" ,", q);
    if (q == std::string::npos) break;
    std::int64_t v = 0;
    const auto r = std::from_chars(dims.data() + q, dims.data() + dims.size(), v);
    if (r.ec != std::errc()) throw data_error(path + ": malformed shape in the .npy header: " + printable_excerpt(h));
    a.shape.push_back(v);
    q = std::size_t(r.ptr - dims.data());
  }
  if (a.big_endian && a.item_size > 1)
    throw data_error(path + ": big-endian dtype '" + a.type_name + "' is not supported; save x.astype('<" +
                     a.type_name.substr(1) + "') instead");
  check_data_size(path, a, offset + header_len, b.size());
  a.data = reinterpret_cast<const unsigned char*>(b.data()) + offset + header_len;
  return a;
}

RawArray parse_idx(const std::string& path, const std::string& b) {
  struct Type {
    int code;
    char kind;
    int size;
    const char* name;
  };
  static const Type types[] = {{0x08, 'u', 1, "uint8 (0x08)"},   {0x09, 'i', 1, "int8 (0x09)"},
                               {0x0B, 'i', 2, "int16 (0x0B)"},   {0x0C, 'i', 4, "int32 (0x0C)"},
                               {0x0D, 'f', 4, "float32 (0x0D)"}, {0x0E, 'f', 8, "float64 (0x0E)"}};
  const int code = static_cast<unsigned char>(b[2]);
  RawArray a;
  const Type* t = nullptr;
  for (const auto& x : types)
    if (x.code == code) t = &x;
  if (!t) throw data_error(path + ": unknown idx data type " + std::to_string(code));
  a.kind = t->kind;
  a.item_size = t->size;
  a.type_name = t->name;
  a.big_endian = true;
  const int nd = static_cast<unsigned char>(b[3]);
  if (nd < 1) throw data_error(path + ": idx file with 0 dimensions");
  if (b.size() < 4 + 4 * std::size_t(nd)) throw data_error(path + ": truncated idx header");
  for (int d = 0; d < nd; ++d) {
    std::int64_t v = 0;
    for (int k = 0; k < 4; ++k) v = (v << 8) | static_cast<unsigned char>(b[4 + 4 * std::size_t(d) + std::size_t(k)]);
    a.shape.push_back(v);
  }
  check_data_size(path, a, 4 + 4 * std::size_t(nd), b.size());
  a.data = reinterpret_cast<const unsigned char*>(b.data()) + 4 + 4 * nd;
  return a;
}

// Binary array (npy or idx) or nullopt-like flag for text.
bool parse_binary(const std::string& path, const std::string& b, RawArray& a) {
  if (starts_with_npy_magic(b)) {
    a = parse_npy(path, b);
    return true;
  }
  if (starts_with_idx_magic(b)) {
    a = parse_idx(path, b);
    return true;
  }
  return false;
}

// Text rows: fields of each data line with its line number; '#' comments and blank lines skipped.
struct TextRow {
  std::size_t line;
  std::vector<std::string> fields;
};

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

std::vector<TextRow> text_rows(const std::string& path, const std::string& text) {
  if (text.find('\0') != std::string::npos)
    throw data_error(path + ": binary data that is neither .npy nor idx (nor text: CSV)");
  std::vector<TextRow> rows;
  std::size_t start = 0, line = 0;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    ++line;
    const std::string l = trim(text.substr(start, end - start));
    start = end + 1;
    if (l.empty() || l[0] == '#') continue;
    TextRow r{line, {}};
    if (l.find(',') != std::string::npos) {
      std::size_t s = 0;
      while (true) {
        const auto c = l.find(',', s);
        r.fields.push_back(trim(l.substr(s, c == std::string::npos ? std::string::npos : c - s)));
        if (c == std::string::npos) break;
        s = c + 1;
      }
    } else {
      std::size_t s = 0;
      while ((s = l.find_first_not_of(" \t", s)) != std::string::npos) {
        const auto e = l.find_first_of(" \t", s);
        r.fields.push_back(l.substr(s, e == std::string::npos ? std::string::npos : e - s));
        s = e;
      }
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

template <typename T>
bool parse_number(const std::string& field, T& v, std::errc& ec) {
  const char* b = field.data();
  const char* e = b + field.size();
  if (b != e && *b == '+') ++b;
  const auto r = std::from_chars(b, e, v);
  ec = r.ec;
  return b != e && r.ec == std::errc() && r.ptr == e;
}

bool is_number(const std::string& field) {
  double v;
  std::errc ec;
  return parse_number(field, v, ec) || ec == std::errc::result_out_of_range;
}

// Drops a header row (one in which no field is a number) and returns its fields (empty: none).
std::vector<std::string> take_header(std::vector<TextRow>& rows) {
  if (rows.empty()) return {};
  for (const auto& f : rows[0].fields)
    if (is_number(f)) return {};
  auto names = rows[0].fields;
  rows.erase(rows.begin());
  return names;
}

void check_field_counts(const std::string& path, const std::vector<TextRow>& rows, std::size_t want,
                        const std::string& against) {
  for (const auto& r : rows)
    if (r.fields.size() != want)
      throw data_error(path + " line " + std::to_string(r.line) + ": " + std::to_string(r.fields.size()) +
                       " fields, " + against + " " + std::to_string(want));
}

}  // namespace

EmbeddingMatrix read_embedding_file(const std::string& path) {
  const std::string bytes = read_bytes(path, "embeddings");
  EmbeddingMatrix m;
  RawArray a;
  if (parse_binary(path, bytes, a)) {
    const bool npy = starts_with_npy_magic(bytes);
    const bool ok = (a.kind == 'f' && (a.item_size == 4 || a.item_size == 8)) || (!npy && a.kind == 'u');
    if (!ok)
      throw data_error(path + ": embeddings of type " + (npy ? "'" + a.type_name + "'" : a.type_name) +
                       " are not supported (" + (npy ? "float32 '<f4' or float64 '<f8'" : "idx float32 0x0D, float64 0x0E or uint8 0x08") + ")");
    if (a.shape.size() < 2)
      throw data_error(path + ": " + std::to_string(a.shape.size()) + "-D array of shape " + shape_text(a.shape) +
                       ", expected rows x dims");
    m.rows = a.shape[0];
    m.cols = a.count() / std::max<std::int64_t>(1, a.shape[0]);
    if (m.rows == 0 || m.cols == 0) throw data_error(path + ": empty array of shape " + shape_text(a.shape));
    m.values.resize(std::size_t(a.count()));
    for (std::int64_t i = 0; i < a.count(); ++i) {
      const double v = a.as_double(i);
      if (!std::isfinite(v) || std::abs(v) > double(std::numeric_limits<float>::max()))
        throw data_error(path + ": " + (std::isfinite(v) ? "value beyond float32's range " : "non-finite value ") +
                         std::to_string(v) + " at row " + std::to_string(i / m.cols) + ", column " +
                         std::to_string(i % m.cols));
      m.values[std::size_t(i)] = float(v);
    }
    return m;
  }
  auto rows = text_rows(path, bytes);
  const auto header = take_header(rows);
  if (rows.empty()) throw data_error(path + ": no rows of embeddings");
  m.rows = std::int64_t(rows.size());
  m.cols = std::int64_t(rows[0].fields.size());
  if (header.empty())
    check_field_counts(path, rows, rows[0].fields.size(), "line " + std::to_string(rows[0].line) + " has");
  else
    check_field_counts(path, rows, header.size(), "the header has");
  m.values.reserve(std::size_t(m.rows * m.cols));
  for (const auto& r : rows)
    for (std::size_t c = 0; c < r.fields.size(); ++c) {
      float v = 0;
      std::errc ec;
      const auto where = path + " line " + std::to_string(r.line) + ", field " + std::to_string(c + 1) + ": ";
      if (!parse_number(r.fields[c], v, ec))
        throw data_error(where + (ec == std::errc::result_out_of_range ? "beyond float32's range: \"" : "not a number: \"") +
                         printable_excerpt(r.fields[c]) + "\"");
      if (!std::isfinite(v)) throw data_error(where + "non-finite value \"" + printable_excerpt(r.fields[c]) + "\"");
      m.values.push_back(v);
    }
  return m;
}

LabelColumns read_label_file(const std::string& path) {
  const std::string bytes = read_bytes(path, "labels");
  LabelColumns out;
  RawArray a;
  if (parse_binary(path, bytes, a)) {
    const bool npy = starts_with_npy_magic(bytes);
    const bool ok = npy ? (a.kind == 'i' && (a.item_size == 4 || a.item_size == 8))
                        : ((a.kind == 'u' && a.item_size == 1) || (a.kind == 'i' && a.item_size == 4));
    if (!ok)
      throw data_error(path + ": labels of type " + a.type_name + " are not supported (" +
                       (npy ? "int32 '<i4' or int64 '<i8'" : "idx uint8 0x08 or int32 0x0C") + ")");
    if (a.shape.empty() || a.shape.size() > (npy ? 2u : 1u))
      throw data_error(path + ": labels of shape " + shape_text(a.shape) + ", expected " +
                       (npy ? "(rows,) or (rows, levels)" : "(rows,)"));
    const std::int64_t rows = a.shape[0], levels = a.shape.size() == 2 ? a.shape[1] : 1;
    if (rows == 0 || levels == 0) throw data_error(path + ": empty labels of shape " + shape_text(a.shape));
    out.labels.assign(std::size_t(levels), std::vector<std::int64_t>(std::size_t(rows)));
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t l = 0; l < levels; ++l) out.labels[std::size_t(l)][std::size_t(i)] = a.int_at(i * levels + l);
    for (std::int64_t l = 0; l < levels; ++l)
      out.level_names.push_back(levels == 1 ? "class" : "level" + std::to_string(l));
    return out;
  }
  auto rows = text_rows(path, bytes);
  out.level_names = take_header(rows);
  if (rows.empty()) throw data_error(path + ": no rows of labels");
  if (out.level_names.empty()) {
    const auto n = rows[0].fields.size();
    for (std::size_t l = 0; l < n; ++l) out.level_names.push_back(n == 1 ? "class" : "level" + std::to_string(l));
    check_field_counts(path, rows, n, "line " + std::to_string(rows[0].line) + " has");
  } else {
    std::set<std::string> seen;
    for (std::size_t l = 0; l < out.level_names.size(); ++l) {
      if (out.level_names[l].empty())
        throw data_error(path + ": the header's field " + std::to_string(l + 1) + " names no level");
      if (!seen.insert(out.level_names[l]).second)
        throw data_error(path + ": the header names the level \"" + printable_excerpt(out.level_names[l]) + "\" twice");
    }
    check_field_counts(path, rows, out.level_names.size(), "the header has");
  }
  out.labels.assign(out.level_names.size(), {});
  for (const auto& r : rows)
    for (std::size_t c = 0; c < r.fields.size(); ++c) {
      std::int64_t v = 0;
      std::errc ec;
      if (!parse_number(r.fields[c], v, ec))
        throw data_error(path + " line " + std::to_string(r.line) + ", field " + std::to_string(c + 1) +
                         ": not an integer label: \"" + printable_excerpt(r.fields[c]) + "\"");
      out.labels[c].push_back(v);
    }
  return out;
}

}  // namespace dmlbench::experiments
