#include "dmlbench/experiments/image_dataset.hpp"

#include "dmlbench/experiments/idx_file.hpp"  // data_error
#include "dmlbench/experiments/nearest_name.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace dmlbench::experiments {

namespace fs = std::filesystem;

int ImageSet::level_index(const std::string& level) const {
  for (std::size_t i = 0; i < level_names.size(); ++i)
    if (level_names[i] == level) return int(i);
  throw std::invalid_argument("label level '" + level + "' is not one of set '" + name + "' (levels: " +
                              joined_names(level_names) + ")");
}

const ImageSet& DatasetSplits::split(const std::string& name) const {
  std::string valid;
  for (const auto& s : splits) {
    if (s.name == name) return s;
    valid += (valid.empty() ? "" : ", ") + s.name;
  }
  throw std::invalid_argument("split '" + name + "' is not one of the " + layout + " dataset at " + root +
                              " (splits: " + valid + ")");
}

namespace {

// A class at one level as the dataset identifies it: numeric ids order numerically, names by byte order; `number`
// also orders a name within its parent (Omniglot's characters within their alphabet).
struct ClassKey {
  long long number = 0;
  std::string text;
  bool operator<(const ClassKey& o) const { return number != o.number ? number < o.number : text < o.text; }
};

// Items added one by one with a key and a display name per level; build() numbers each level's classes densely in
// key order.
class SetBuilder {
 public:
  SetBuilder(std::string name, std::vector<std::string> levels) : name_(std::move(name)), levels_(std::move(levels)) {
    keys_.resize(levels_.size());
    names_.resize(levels_.size());
  }
  void add(std::string path, const std::vector<std::pair<ClassKey, std::string>>& classes) {
    paths_.push_back(std::move(path));
    for (std::size_t l = 0; l < levels_.size(); ++l) {
      keys_[l].push_back(classes[l].first);
      names_[l].emplace(classes[l].first, classes[l].second);  // the first display name seen
    }
  }
  std::size_t size() const { return paths_.size(); }
  const std::string& name() const { return name_; }
  ImageSet build() const {
    ImageSet s;
    s.name = name_;
    s.level_names = levels_;
    s.paths = paths_;
    for (std::size_t l = 0; l < levels_.size(); ++l) {
      std::map<ClassKey, int> id;
      std::vector<std::string> names;
      for (const auto& [key, display] : names_[l]) {
        id.emplace(key, int(names.size()));
        names.push_back(display);
      }
      std::vector<int> labels;
      labels.reserve(paths_.size());
      for (const auto& k : keys_[l]) labels.push_back(id.at(k));
      s.labels.push_back(std::move(labels));
      s.class_names.push_back(std::move(names));
    }
    return s;
  }

 private:
  std::string name_;
  std::vector<std::string> levels_;
  std::vector<std::string> paths_;
  std::vector<std::vector<ClassKey>> keys_;
  std::vector<std::map<ClassKey, std::string>> names_;
};

// The dataset root as an absolute, normalised path without a trailing separator; a data_error when it is no folder.
fs::path dataset_root(const std::string& root, const std::string& layout) {
  if (root.empty()) throw data_error(layout + ": the dataset root is empty");
  fs::path p = fs::absolute(root).lexically_normal();
  if (!p.has_filename() && p.has_parent_path() && p != p.root_path()) p = p.parent_path();
  if (!fs::is_directory(p)) throw data_error(layout + ": dataset root folder not found: " + p.string());
  return p;
}

std::string join(const fs::path& root, const std::string& relative) {
  return (root / relative).lexically_normal().string();
}

// A text list read line by line (CR-LF tolerated), with errors that name the file and the line.
class ListFile {
 public:
  ListFile(const fs::path& path, const std::string& layout) : path_(path.string()), in_(path) {
    if (!fs::is_regular_file(path)) throw data_error(layout + ": list file not found: " + path_);
    if (!in_) throw data_error(layout + ": cannot open list file " + path_);
  }
  bool next(std::string& line) {
    if (!std::getline(in_, line)) return false;
    ++line_no_;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
  }
  // The next line that is not blank nor a '#' comment, cut in two at its first blank (a word, then the rest) or, with
  // at_last, at its last (the rest, then a word); both parts trimmed. A line of one word fails naming `form`.
  bool next_pair(std::pair<std::string, std::string>& out, bool at_last, const std::string& form);
  int line_no() const { return line_no_; }
  const std::string& path() const { return path_; }
  [[noreturn]] void fail(const std::string& what) const {
    throw data_error(path_ + ":" + std::to_string(line_no_) + ": " + what);
  }
  long long integer(const std::string& field, const std::string& what) const {
    long long v = 0;
    const auto* end = field.data() + field.size();
    const auto r = std::from_chars(field.data(), end, v);
    if (field.empty() || r.ec != std::errc() || r.ptr != end) fail(what + " '" + field + "' is not an integer");
    return v;
  }
  long long integer_in(const std::string& field, const std::string& what, long long lo, long long hi) const {
    const long long v = integer(field, what);
    if (v < lo || v > hi)
      fail(what + " " + field + " is outside " + std::to_string(lo) + ".." + std::to_string(hi));
    return v;
  }
  // The image `relative` to `base`, which must exist as a file.
  std::string image(const fs::path& base, const std::string& relative) const {
    const std::string p = join(base, relative);
    if (!fs::is_regular_file(p)) fail("listed image not found: " + p);
    return p;
  }

 private:
  std::string path_;
  std::ifstream in_;
  int line_no_ = 0;
};

std::vector<std::string> fields(const std::string& line) {
  std::istringstream s(line);
  std::vector<std::string> out;
  for (std::string f; s >> f;) out.push_back(f);
  return out;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

bool blank_or_comment(const std::string& line) {
  const std::string t = trim(line);
  return t.empty() || t[0] == '#';
}

bool ListFile::next_pair(std::pair<std::string, std::string>& out, bool at_last, const std::string& form) {
  std::string line;
  do {
    if (!next(line)) return false;
  } while (blank_or_comment(line));
  const std::string t = trim(line);
  const auto cut = at_last ? t.find_last_of(" \t") : t.find_first_of(" \t");
  if (cut == std::string::npos) fail("expected '" + form + "', got '" + t + "'");
  out = {trim(t.substr(0, cut)), trim(t.substr(cut))};
  return true;
}

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The entries of `dir` that are folders (want_dirs) or files with one of `extensions` (lower case), hidden ones
// ('.' first) left out, in sorted byte order of their names.
std::vector<fs::path> sorted_entries(const fs::path& dir, bool want_dirs, const std::vector<std::string>& extensions) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    if (want_dirs ? e.is_directory()
                  : e.is_regular_file() && std::count(extensions.begin(), extensions.end(),
                                                      lower(e.path().extension().string())) > 0)
      out.push_back(e.path());
  }
  std::sort(out.begin(), out.end(), [](const fs::path& a, const fs::path& b) { return a.filename() < b.filename(); });
  return out;
}

ImageSet finish(const SetBuilder& b, const std::string& layout, const std::string& where) {
  if (b.size() == 0) throw data_error(layout + ": split '" + b.name() + "' is empty (" + where + ")");
  return b.build();
}

// The finest level's classes of `train` must not occur in `test` (compared by class name).
void check_class_disjoint(const ImageSet& train, const ImageSet& test, const std::string& layout,
                          const std::string& where) {
  const std::set<std::string> seen(train.class_names.back().begin(), train.class_names.back().end());
  for (const auto& n : test.class_names.back())
    if (seen.count(n))
      throw data_error(layout + ": " + train.level_names.back() + " '" + n + "' is in both the " + train.name +
                       " and the " + test.name + " split (" + where + "); deep metric learning splits by class");
}

// "<class_id> <name>" per line (CUB's classes.txt, cars_classes.txt); ids within 1..max_id, each once.
std::map<long long, std::string> read_class_names(const fs::path& path, const std::string& layout, long long max_id) {
  std::map<long long, std::string> names;
  ListFile f(path, layout);
  for (std::pair<std::string, std::string> v; f.next_pair(v, false, "<class_id> <name>");) {
    const long long id = f.integer_in(v.first, "class id", 1, max_id);
    if (!names.emplace(id, v.second).second) f.fail("class id " + v.first + " listed twice");
  }
  return names;
}

// The single-level datasets split by class number (CUB-200-2011, Cars196): classes 1..last_train are "train", the
// others up to `last` "test"; named from an optional "<class_id> <name>" file, otherwise by the number itself.
class NumberedClasses {
 public:
  NumberedClasses(const fs::path& names_file, const std::string& layout, long long last_train, long long last)
      : names_file_(names_file.filename().string()), last_train_(last_train), last_(last) {
    if (fs::exists(names_file)) names_ = read_class_names(names_file, layout, last);
  }
  // The class field of list f's current line: a number within 1..last, and in the names file when there is one.
  long long parse(const ListFile& f, const std::string& field, const std::string& what) const {
    const long long cls = f.integer_in(field, what, 1, last_);
    if (!names_.empty() && !names_.count(cls)) f.fail(what + " " + field + " is not in " + names_file_);
    return cls;
  }
  void add(std::string path, long long cls) {
    const auto it = names_.find(cls);
    (cls <= last_train_ ? train_ : test_)
        .add(std::move(path), {{{cls, ""}, it == names_.end() ? std::to_string(cls) : it->second}});
  }
  DatasetSplits splits(const std::string& layout, const fs::path& root, const std::string& list) const {
    const auto range = [&](long long a, long long b) {
      return "no image of classes " + std::to_string(a) + "-" + std::to_string(b) + " in " + list;
    };
    return {layout, root.string(),
            {finish(train_, layout, range(1, last_train_)), finish(test_, layout, range(last_train_ + 1, last_))}};
  }

 private:
  std::string names_file_;
  long long last_train_, last_;
  std::map<long long, std::string> names_;
  SetBuilder train_{"train", {"class"}}, test_{"test", {"class"}};
};

}  // namespace

DatasetSplits read_omniglot(const std::string& root_dir) {
  const std::string layout = "omniglot";
  const fs::path root = dataset_root(root_dir, layout);
  DatasetSplits out{layout, root.string(), {}};
  for (const auto& [split, folder] : {std::pair<std::string, std::string>{"train", "images_background"},
                                      std::pair<std::string, std::string>{"test", "images_evaluation"}}) {
    const fs::path dir = root / folder;
    if (!fs::is_directory(dir))
      throw data_error(layout + ": folder not found: " + dir.string() +
                       " (the official layout has images_background/ and images_evaluation/ under the root)");
    SetBuilder b(split, {"alphabet", "character"});
    long long alphabet_number = 0;
    for (const auto& alphabet : sorted_entries(dir, true, {})) {
      const std::string a = alphabet.filename().string();
      for (const auto& character : sorted_entries(alphabet, true, {})) {
        const std::string c = character.filename().string();
        const auto images = sorted_entries(character, false, {".png"});
        if (images.empty()) throw data_error(layout + ": character folder with no .png image: " + character.string());
        if (images.size() < 2)  // a letter with one drawing has no positive to retrieve, nothing to hold out
          throw data_error(layout + ": character folder with one .png image (a class needs at least two): " +
                           character.string());
        for (const auto& image : images)
          b.add(image.lexically_normal().string(), {{{0, a}, a}, {{alphabet_number, c}, a + "/" + c}});
      }
      ++alphabet_number;
    }
    out.splits.push_back(finish(b, layout, "no <alphabet>/<character>/*.png under " + dir.string()));
  }
  check_class_disjoint(out.splits[0], out.splits[1], layout, "an alphabet folder in both " + root.string() +
                                                                 "/images_background and images_evaluation");
  return out;
}

DatasetSplits read_cub200(const std::string& root_dir) {
  const std::string layout = "cub200";
  const fs::path root = dataset_root(root_dir, layout);
  NumberedClasses classes(root / "classes.txt", layout, 100, 200);
  // image_class_labels.txt first: images.txt then walks once in its own order.
  std::map<long long, std::pair<long long, int>> class_of;  // image id -> (class id, line)
  {
    ListFile f(root / "image_class_labels.txt", layout);
    for (std::string line; f.next(line);) {
      if (blank_or_comment(line)) continue;
      const auto v = fields(line);
      if (v.size() != 2) f.fail("expected '<image_id> <class_id>', got '" + trim(line) + "'");
      const long long image = f.integer_in(v[0], "image id", 1, (1LL << 62));
      const long long cls = classes.parse(f, v[1], "class id");
      if (!class_of.emplace(image, std::make_pair(cls, f.line_no())).second) f.fail("image id " + v[0] + " listed twice");
    }
  }
  std::set<long long> listed;
  ListFile f(root / "images.txt", layout);
  for (std::pair<std::string, std::string> v; f.next_pair(v, false, "<image_id> <path under images/>");) {
    const long long image = f.integer_in(v.first, "image id", 1, (1LL << 62));
    if (!listed.insert(image).second) f.fail("image id " + v.first + " listed twice");
    const auto it = class_of.find(image);
    if (it == class_of.end()) f.fail("image id " + v.first + " has no line in image_class_labels.txt");
    classes.add(f.image(root / "images", v.second), it->second.first);
  }
  for (const auto& [image, where] : class_of)
    if (!listed.count(image))
      throw data_error((root / "image_class_labels.txt").string() + ":" + std::to_string(where.second) +
                       ": image id " + std::to_string(image) + " is not in images.txt");
  return classes.splits(layout, root, f.path());
}

DatasetSplits read_cars196(const std::string& root_dir) {
  const std::string layout = "cars196";
  const fs::path root = dataset_root(root_dir, layout);
  const fs::path list = root / "cars_annos.txt";
  if (!fs::exists(list)) {
    if (fs::exists(root / "cars_annos.mat"))
      throw data_error(layout + ": " + list.string() + " not found, only the official cars_annos.mat: convert it " +
                       "once with  /usr/bin/python3 scripts/convert_cars_annos.py " + root.string() +
                       "  (needs Debian's python3-scipy)");
    throw data_error(layout + ": neither " + list.string() + " nor cars_annos.mat found under " + root.string() +
                     " (the official layout: cars_annos.mat and car_ims/)");
  }
  NumberedClasses classes(root / "cars_classes.txt", layout, 98, 196);
  ListFile f(list, layout);
  for (std::pair<std::string, std::string> v; f.next_pair(v, true, "<relative_im_path> <class>");) {
    const long long cls = classes.parse(f, v.second, "class");
    classes.add(f.image(root, v.first), cls);
  }
  return classes.splits(layout, root, f.path());
}

DatasetSplits read_sop(const std::string& root_dir) {
  const std::string layout = "sop";
  const fs::path root = dataset_root(root_dir, layout);
  DatasetSplits out{layout, root.string(), {}};
  std::map<long long, std::pair<std::string, std::string>> folder_of_super;  // super id -> (folder, where)
  for (const auto& [split, file] : {std::pair<std::string, std::string>{"train", "Ebay_train.txt"},
                                    std::pair<std::string, std::string>{"test", "Ebay_test.txt"}}) {
    SetBuilder b(split, {"superclass", "class"});
    std::map<long long, std::pair<long long, int>> super_of;  // class id -> (super id, line)
    ListFile f(root / file, layout);
    bool header = false;
    for (std::string line; f.next(line);) {
      if (trim(line).empty()) continue;
      const auto v = fields(line);
      if (!header) {
        if (v != std::vector<std::string>{"image_id", "class_id", "super_class_id", "path"})
          f.fail("expected the header 'image_id class_id super_class_id path', got '" + trim(line) + "'");
        header = true;
        continue;
      }
      if (v.size() != 4) f.fail("expected 'image_id class_id super_class_id path', got '" + trim(line) + "'");
      f.integer_in(v[0], "image_id", 1, (1LL << 62));
      const long long cls = f.integer_in(v[1], "class_id", 1, (1LL << 62));
      const long long super = f.integer_in(v[2], "super_class_id", 1, (1LL << 62));
      const auto [it, fresh] = super_of.emplace(cls, std::make_pair(super, f.line_no()));
      if (!fresh && it->second.first != super)
        f.fail("class_id " + v[1] + " has super_class_id " + v[2] + " here but " + std::to_string(it->second.first) +
               " on line " + std::to_string(it->second.second));
      const auto slash = v[3].find('/');
      const std::string folder = slash == std::string::npos ? v[2] : v[3].substr(0, slash);
      const std::string where = f.path() + ":" + std::to_string(f.line_no());
      const auto [sit, sfresh] = folder_of_super.emplace(super, std::make_pair(folder, where));
      if (!sfresh && sit->second.first != folder)
        f.fail("super_class_id " + v[2] + " is folder '" + folder + "' here but '" + sit->second.first + "' at " +
               sit->second.second);
      b.add(f.image(root, v[3]), {{{super, ""}, folder}, {{cls, ""}, v[1]}});
    }
    if (!header) throw data_error(f.path() + ": empty file, expected the header 'image_id class_id super_class_id path'");
    out.splits.push_back(finish(b, layout, "no rows in " + f.path()));
  }
  check_class_disjoint(out.splits[0], out.splits[1], layout, "class_id in Ebay_train.txt and Ebay_test.txt");
  return out;
}

DatasetSplits read_inshop(const std::string& root_dir) {
  const std::string layout = "inshop";
  const fs::path root = dataset_root(root_dir, layout);
  SetBuilder train("train", {"category", "item"}), pool("query+gallery", {"category", "item"});
  std::vector<std::size_t> query, gallery;
  ListFile f(root / "list_eval_partition.txt", layout);
  long long promised = -1;
  bool header = false;
  std::size_t rows = 0;
  for (std::string line; f.next(line);) {
    if (trim(line).empty()) continue;
    const auto v = fields(line);
    if (promised < 0) {
      if (v.size() != 1) f.fail("expected the image count on the first line, got '" + trim(line) + "'");
      promised = f.integer_in(v[0], "image count", 0, (1LL << 62));
      continue;
    }
    if (!header) {
      if (v != std::vector<std::string>{"image_name", "item_id", "evaluation_status"})
        f.fail("expected the header 'image_name item_id evaluation_status', got '" + trim(line) + "'");
      header = true;
      continue;
    }
    if (v.size() != 3) f.fail("expected 'image_name item_id evaluation_status', got '" + trim(line) + "'");
    ++rows;
    const auto first = v[0].find('/');
    const auto second = first == std::string::npos ? first : v[0].find('/', first + 1);
    const auto third = second == std::string::npos ? second : v[0].find('/', second + 1);
    if (third == std::string::npos || first == 0 || second == first + 1 || third == second + 1)
      f.fail("image_name '" + v[0] + "' is not of the official form img/<gender>/<category>/.../<file>");
    const std::string category = v[0].substr(first + 1, third - first - 1);
    const std::vector<std::pair<ClassKey, std::string>> classes{{{0, category}, category}, {{0, v[1]}, v[1]}};
    const std::string status = v[2];
    if (status == "train") {
      train.add(f.image(root, v[0]), classes);
    } else if (status == "query" || status == "gallery") {
      (status == "query" ? query : gallery).push_back(pool.size());
      pool.add(f.image(root, v[0]), classes);
    } else {
      f.fail("evaluation_status '" + status + "' is not train, query or gallery");
    }
  }
  if (!header) f.fail("expected the image count and the header 'image_name item_id evaluation_status'");
  if (promised != (long long)rows)
    throw data_error(f.path() + ":1: says " + std::to_string(promised) + " images, the file lists " +
                     std::to_string(rows));
  const ImageSet both = pool.build();
  DatasetSplits out{layout, root.string(),
                    {finish(train, layout, "no 'train' row in " + f.path()), select_items(both, query, "query"),
                     select_items(both, gallery, "gallery")}};
  for (std::size_t s = 1; s < 3; ++s)
    if (out.splits[s].size() == 0)
      throw data_error(layout + ": split '" + out.splits[s].name + "' is empty (no '" + out.splits[s].name +
                       "' row in " + f.path() + ")");
  check_class_disjoint(out.splits[0], both, layout, "item_id with status train and query/gallery in " + f.path());
  return out;
}

DatasetSplits read_image_folder(const std::string& root_dir) {
  const std::string layout = "folder";
  const fs::path root = dataset_root(root_dir, layout);
  SetBuilder b("all", {"class"});
  for (const auto& cls : sorted_entries(root, true, {})) {
    const auto images = sorted_entries(cls, false, {".png", ".jpg", ".jpeg"});
    if (images.empty()) throw data_error(layout + ": class folder with no .png/.jpg/.jpeg image: " + cls.string());
    const std::string name = cls.filename().string();
    for (const auto& image : images) b.add(image.lexically_normal().string(), {{{0, name}, name}});
  }
  return {layout, root.string(), {finish(b, layout, "no <class>/<image> under " + root.string())}};
}

std::vector<std::string> dataset_layouts() { return image_layout_names(); }

DatasetSplits read_dataset(DatasetKind layout, const std::string& root) {
  switch (layout) {
    case DatasetKind::omniglot: return read_omniglot(root);
    case DatasetKind::cub200: return read_cub200(root);
    case DatasetKind::cars196: return read_cars196(root);
    case DatasetKind::sop: return read_sop(root);
    case DatasetKind::inshop: return read_inshop(root);
    case DatasetKind::folder: return read_image_folder(root);
    case DatasetKind::mnist_evenodd:
    case DatasetKind::mnist:
    case DatasetKind::fashion_mnist: break;
  }
  throw std::invalid_argument("dataset " + dataset_kinds().name_of(layout) + " is idx files, not an image layout");
}

DatasetSplits read_dataset(const std::string& layout, const std::string& root) {
  const auto names = dataset_layouts();
  if (std::find(names.begin(), names.end(), layout) != names.end())
    return read_dataset(dataset_kinds().named(layout), root);
  const auto nearest = nearest_name(layout, dataset_layouts());
  throw std::invalid_argument("unknown dataset layout '" + layout + "' (valid: " + joined_names(dataset_layouts()) +
                              (nearest.empty() ? "" : "; nearest: " + nearest) + ")");
}

ImageSet select_items(const ImageSet& set, const std::vector<std::size_t>& items, const std::string& name) {
  ImageSet s;
  s.name = name;
  s.level_names = set.level_names;
  s.class_names = set.class_names;
  s.labels.resize(set.labels.size());
  for (const auto i : items) {
    if (i >= set.size())
      throw std::invalid_argument("select_items: item " + std::to_string(i) + " is outside set '" + set.name +
                                  "' of " + std::to_string(set.size()));
    s.paths.push_back(set.paths[i]);
    for (std::size_t l = 0; l < set.labels.size(); ++l) s.labels[l].push_back(set.labels[l][i]);
  }
  return s;
}

void densify(ImageSet& set) {
  for (std::size_t l = 0; l < set.labels.size(); ++l) {
    std::vector<int> new_id(set.class_names[l].size(), -1);
    for (const int id : set.labels[l]) new_id[std::size_t(id)] = 0;
    std::vector<std::string> names;
    for (std::size_t id = 0; id < new_id.size(); ++id)
      if (new_id[id] == 0) {
        new_id[id] = int(names.size());
        names.push_back(set.class_names[l][id]);
      }
    for (int& id : set.labels[l]) id = new_id[std::size_t(id)];
    set.class_names[l] = std::move(names);
  }
}

ClassSplit split_by_class(const ImageSet& set, const std::string& level, int train_classes) {
  const int l = set.level_index(level);
  const int classes = set.num_classes(level);
  if (train_classes <= 0 || train_classes >= classes)
    throw std::invalid_argument("split_by_class: train_classes = " + std::to_string(train_classes) + " must lie in 1.." +
                                std::to_string(classes - 1) + " (set '" + set.name + "' has " +
                                std::to_string(classes) + " classes at level '" + level + "')");
  std::vector<std::size_t> train, test;
  for (std::size_t i = 0; i < set.size(); ++i) (set.labels[std::size_t(l)][i] < train_classes ? train : test).push_back(i);
  ClassSplit out{select_items(set, train, "train"), select_items(set, test, "test")};
  densify(out.train);
  densify(out.test);
  return out;
}

ClassSplit split_by_class_fraction(const ImageSet& set, const std::string& level, double train_fraction) {
  const int classes = set.num_classes(level);
  if (!(train_fraction > 0.0 && train_fraction < 1.0))
    throw std::invalid_argument("split_by_class: train_fraction = " + std::to_string(train_fraction) +
                                " must lie strictly between 0 and 1");
  return split_by_class(set, level, int(std::lround(train_fraction * classes)));
}

}  // namespace dmlbench::experiments
