// One writer per folder: an exclusive flock(2) on a lock file that names its holder. The kernel drops the
// lock when the holder ends, a SIGKILL included, so a folder whose holder died is free again with nothing to clean up.
// Torch-free.
#pragma once

#include <iosfwd>
#include <memory>
#include <stdexcept>
#include <string>

namespace dmlbench::experiments {

inline constexpr const char* kFolderLockName = ".dmlbench.lock";  // the lock file inside a folder

// Another process holds the folder: what() is the one line a command prints (the folder, that it is in use, by which
// command and process, since when).
struct FolderInUse : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct FolderLockOptions {
  // The lock file; empty: <folder>/.dmlbench.lock. A folder that is replaced by a rename (the report's output) is
  // locked through a file beside it, which the rename leaves in place.
  std::string lock_file;
  std::ostream* note = nullptr;  // where the no-locks note goes (default std::cerr)
  int (*flock)(int, int) = nullptr;  // default ::flock; tests act out a filesystem without locks
};

// Holds the lock of a folder while it lives. Taking the same folder again in the same process shares the lock (the
// report takes its work folder, then a stage's runs take theirs; `train` takes its --out before the engine does).
class FolderLock {
 public:
  // Takes the lock of `folder` (created with its parents when missing, unless it is locked from beside) without
  // waiting. Throws FolderInUse when
  // another process holds it, std::runtime_error when the lock file cannot be opened. On a filesystem whose locks do
  // not work (flock fails with ENOLCK, EOPNOTSUPP, ENOSYS or EINVAL: NFS without lock support) it says so once per
  // process, as SQLite documents for its own locks, and goes on without the lock: held() is then false.
  static FolderLock take(const std::string& folder, const FolderLockOptions& options = {});

  bool held() const;
  const std::string& lock_file() const;

  struct Held;  // the open lock file, shared by the process's takers of one folder

 private:
  explicit FolderLock(std::shared_ptr<Held> h) : held_(std::move(h)) {}
  std::shared_ptr<Held> held_;
};

// The lock file beside a folder that is replaced by a rename: <parent>/.<name>.dmlbench.lock.
std::string lock_file_beside(const std::string& folder);

// Whether an errno of flock(2) means the filesystem has no working locks (rather than a held lock or a bad file).
bool lock_unsupported(int err);

}  // namespace dmlbench::experiments
