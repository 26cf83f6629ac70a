// Atomic outputs and file sets: temporary names, write errors checked at write and at close, renames last.
#include "dmlbench/experiments/atomic_file.hpp"

#include "dmlbench/experiments/content_hash.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace dmlbench::experiments {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

// Writes bytes to path (created or truncated); the reason of a failure, empty on success.
std::string write_bytes(const std::string& path, const std::string& bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return std::strerror(errno);
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = n < 0 ? std::strerror(errno) : "short write";
      ::close(fd);
      return why;
    }
    done += std::size_t(n);
  }
  if (::close(fd) != 0) return std::strerror(errno);  // NFS and some full filesystems report here
  return "";
}

void create_parent(const fs::path& p) {
  std::error_code ec;
  if (p.has_parent_path()) fs::create_directories(p.parent_path(), ec);
  if (ec) throw std::runtime_error("cannot create the folder " + p.parent_path().string() + ": " + ec.message());
}

json file_entry(const std::string& bytes) { return {{"bytes", bytes.size()}, {"fnv1a", fnv1a_hex(bytes)}}; }

std::string read_all(const fs::path& p, bool& ok) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  ok = bool(in) || in.eof();
  return s.str();
}

bool matches(const fs::path& p, const json& entry) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return false;
  bool ok = false;
  const std::string bytes = read_all(p, ok);
  return ok && entry.is_object() && json(file_entry(bytes)) == json(entry);
}

// A file name of the set's own folder: no folder part, not "." or "..".
bool plain_name(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos;
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& bytes) {
  create_parent(path);
  const std::string tmp = path + ".tmp";
  const std::string why = write_bytes(tmp, bytes);
  if (!why.empty()) {
    std::error_code ec;
    fs::remove(tmp, ec);
    throw std::runtime_error("cannot write " + path + ": " + why + " (" + path + " is left as it was)");
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) throw std::runtime_error("cannot write " + path + ": " + ec.message() + " (" + path + " is left as it was)");
}

void write_file_set(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& files,
                    const std::string& manifest_name, json manifest) {
  json entries = json::object();
  for (const auto& [name, bytes] : files) entries[name] = file_entry(bytes);
  manifest["files"] = entries;
  std::vector<std::pair<std::string, std::string>> all = files;
  all.emplace_back(manifest_name, manifest.dump());
  create_parent(fs::path(dir) / manifest_name);
  for (const auto& [name, bytes] : all) {
    const std::string path = (fs::path(dir) / name).string(), why = write_bytes(path + ".tmp", bytes);
    if (why.empty()) continue;
    for (const auto& other : all) {
      std::error_code ec;
      fs::remove((fs::path(dir) / other.first).string() + ".tmp", ec);
    }
    throw std::runtime_error("cannot write " + path + ": " + why + " (the previous " + manifest_name +
                             " and its files are left as they were)");
  }
  for (const auto& [name, bytes] : all) {
    const std::string path = (fs::path(dir) / name).string();
    std::error_code ec;
    fs::rename(path + ".tmp", path, ec);
    if (ec) throw std::runtime_error("cannot rename " + path + ".tmp: " + ec.message());
  }
}

bool finish_file_set(const std::string& dir, const std::string& manifest_name) {
  const fs::path manifest_tmp = fs::path(dir) / (manifest_name + ".tmp");
  std::error_code ec;
  if (!fs::exists(manifest_tmp, ec)) return false;
  bool ok = false;
  const std::string text = read_all(manifest_tmp, ok);
  const json m = json::parse(text, nullptr, false);
  const bool whole = ok && m.is_object() && m.contains("files") && m["files"].is_object() && !m["files"].empty();
  bool complete = whole;
  const json files = whole ? m["files"] : json::object();
  for (const auto& [name, entry] : files.items()) {
    const fs::path p = fs::path(dir) / name;
    complete = complete && plain_name(name) && (matches(fs::path(p.string() + ".tmp"), entry) || matches(p, entry));
  }
  // the temporary files to complete or remove: those the new manifest lists, or where it is cut short, those of the
  // set's previous manifest (a set keeps its file names)
  json names = files;
  if (!whole) {
    const json previous = json::parse(read_all(fs::path(dir) / manifest_name, ok), nullptr, false);
    if (previous.is_object() && previous.contains("files") && previous["files"].is_object()) names = previous["files"];
  }
  for (const auto& [name, entry] : names.items()) {
    if (!plain_name(name)) continue;
    const fs::path p = fs::path(dir) / name, tmp = p.string() + ".tmp";
    if (!fs::exists(tmp, ec)) continue;
    if (complete) fs::rename(tmp, p, ec);
    else fs::remove(tmp, ec);
  }
  if (complete) fs::rename(manifest_tmp, fs::path(dir) / manifest_name, ec);
  else fs::remove(manifest_tmp, ec);
  return complete;
}

void check_file_set(const std::string& dir, const json& manifest, const std::string& manifest_name) {
  if (!manifest.contains("files")) return;
  const json& files = manifest["files"];
  if (!files.is_object())
    throw std::runtime_error((fs::path(dir) / manifest_name).string() + ": \"files\" is not an object");
  for (const auto& [name, entry] : files.items()) {
    if (!plain_name(name))
      throw std::runtime_error((fs::path(dir) / manifest_name).string() + ": file name '" + name + "' is not a name");
    if (!matches(fs::path(dir) / name, entry))
      throw std::runtime_error((fs::path(dir) / name).string() + " does not match " + manifest_name +
                               " (missing, or another size or hash): a damaged checkpoint");
  }
}

}  // namespace dmlbench::experiments
