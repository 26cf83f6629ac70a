// One writer per folder: flock(2) on a lock file that names its holder (folder_lock.hpp).
#include "dmlbench/experiments/folder_lock.hpp"

#include "dmlbench/experiments/run_stamp.hpp"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>

namespace dmlbench::experiments {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

struct FolderLock::Held {
  std::string file;
  int fd = -1;
  bool locked = false;
  ~Held() {
    if (fd >= 0) ::close(fd);  // closing drops the lock
  }
};

namespace {

std::mutex g_mutex;
std::map<std::string, std::weak_ptr<FolderLock::Held>> g_held;  // this process's locks, by lock file
bool g_noted_no_locks = false;

// This process's command line, one line, its program as its file name ("dmlbench train --config ... --out ...").
std::string own_command() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()), out, arg;
  std::istringstream args(all);
  for (bool first = true; std::getline(args, arg, '\0'); first = false) {
    if (first) arg = fs::path(arg).filename().string();
    for (char& ch : arg)
      if (ch == '\n' || ch == '\r') ch = ' ';
    out += (out.empty() ? "" : " ") + arg;
  }
  return out.size() > 300 ? out.substr(0, 297) + "..." : out;
}

// Writes who holds the lock into the lock file (the holder alone writes it, under the lock).
void write_holder(int fd) {
  const std::string text = json{{"command", own_command()}, {"pid", long(::getpid())}, {"host", host_name()},
                                {"since", utc_now_text()}}.dump() + "\n";
  if (::ftruncate(fd, 0) != 0) return;  // the lock holds without its description
  [[maybe_unused]] const auto n = ::pwrite(fd, text.data(), text.size(), 0);
}

// The holder as the lock file describes it: "`dmlbench train ...` (pid 12 on host, since ...)".
std::string holder_text(const std::string& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  const json h = json::parse(line, nullptr, false);
  if (!h.is_object() || !h.contains("pid")) return "another process (it has not yet written its name in " + file + ")";
  return "`" + h.value("command", std::string("?")) + "` (pid " + std::to_string(h.value("pid", 0L)) + " on " +
         h.value("host", std::string("?")) + ", since " + h.value("since", std::string("?")) + ")";
}

}  // namespace

bool lock_unsupported(int err) { return err == ENOLCK || err == EOPNOTSUPP || err == ENOSYS || err == EINVAL; }

std::string lock_file_beside(const std::string& folder) {
  const fs::path f = fs::path(folder).lexically_normal();
  const fs::path p = f.has_filename() ? f : f.parent_path();
  return (p.parent_path() / ("." + p.filename().string() + kFolderLockName)).string();
}

FolderLock FolderLock::take(const std::string& folder, const FolderLockOptions& options) {
  if (options.lock_file.empty()) fs::create_directories(folder);  // a folder locked from beside may not exist yet
  const std::string file = options.lock_file.empty() ? (fs::path(folder) / kFolderLockName).string() : options.lock_file;
  fs::create_directories(fs::absolute(file).parent_path());
  const std::string key = fs::weakly_canonical(fs::absolute(file)).string();
  std::lock_guard<std::mutex> guard(g_mutex);
  if (const auto it = g_held.find(key); it != g_held.end())
    if (auto shared = it->second.lock()) return FolderLock(shared);
  auto h = std::make_shared<Held>();
  h->file = file;
  h->fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);  // no child process inherits it
  if (h->fd < 0)
    throw std::runtime_error("cannot open the lock file " + file + " of " + folder + ": " + std::strerror(errno));
  const auto lock = options.flock ? options.flock : ::flock;
  if (lock(h->fd, LOCK_EX | LOCK_NB) == 0) {
    h->locked = true;
    write_holder(h->fd);
  } else if (errno == EWOULDBLOCK) {
    throw FolderInUse(folder + " is in use by " + holder_text(file) +
                      ": wait for it to end, or choose another folder");
  } else if (lock_unsupported(errno)) {
    if (!g_noted_no_locks) {
      (options.note ? *options.note : std::cerr)
          << "dmlbench: note: " << folder << " is on a filesystem without working locks (flock: " << std::strerror(errno)
          << "); nothing stops a second command from writing into it at once" << std::endl;
      g_noted_no_locks = true;
    }
  } else {
    throw std::runtime_error("cannot lock " + file + " of " + folder + ": " + std::strerror(errno));
  }
  g_held[key] = h;
  return FolderLock(h);
}

bool FolderLock::held() const { return held_ && held_->locked; }

const std::string& FolderLock::lock_file() const { return held_->file; }

}  // namespace dmlbench::experiments
