// One writer per folder (folder_lock.hpp): a second process is refused in one line that names the holder;
// the lock goes with its holder, a SIGKILL included; the same process shares its own lock; a filesystem without
// locks is said once and not refused. The other process is a fork of this test that takes the lock and waits.
#include "dmlbench/experiments/folder_lock.hpp"
#include "scratch_dir.hpp"

#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <filesystem>
#include <sstream>

using namespace dmlbench::experiments;

namespace {

// A child process that holds the lock of `folder` until it is killed; returns once the lock is held.
pid_t holder(const std::string& folder) {
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(ready[0]);
    try {
      const auto lock = FolderLock::take(folder);
      [[maybe_unused]] const auto n = ::write(ready[1], "1", 1);
      for (;;) ::pause();
    } catch (...) {
      ::_exit(3);
    }
  }
  ::close(ready[1]);
  char c = 0;
  REQUIRE(::read(ready[0], &c, 1) == 1);
  ::close(ready[0]);
  return pid;
}

void kill_and_reap(pid_t pid) {
  ::kill(pid, SIGKILL);
  int st = 0;
  ::waitpid(pid, &st, 0);
}

int fake_flock_no_locks(int, int) {
  errno = ENOLCK;
  return -1;
}

}  // namespace

TEST_CASE("a folder held by another process is refused in one line naming it, its command and pid",
          "[folder_lock]") {
  ScratchDir d("folder-lock-held");
  const std::string folder = d.path("run");
  const pid_t other = holder(folder);
  try {
    FolderLock::take(folder);
    FAIL("a second writer was let in");
  } catch (const FolderInUse& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Catch::StartsWith(folder + " is in use by `"));
    CHECK_THAT(what, Catch::Contains("(pid " + std::to_string(other) + " on "));
    CHECK(what.find('\n') == std::string::npos);
  }
  kill_and_reap(other);
}

TEST_CASE("a holder's SIGKILL frees the folder with nothing to clean up, and so does a released lock",
          "[folder_lock]") {
  ScratchDir d("folder-lock-killed");
  const std::string folder = d.path("run");
  const pid_t other = holder(folder);
  CHECK_THROWS_AS(FolderLock::take(folder), FolderInUse);
  kill_and_reap(other);
  CHECK(std::filesystem::exists(folder + "/" + kFolderLockName));  // the file stays; its lock went with the holder
  {
    const auto mine = FolderLock::take(folder);
    CHECK(mine.held());
  }
  // released: another process takes it (the control that the lock above was really held: holder() then blocks it)
  const pid_t next = holder(folder);
  CHECK_THROWS_AS(FolderLock::take(folder), FolderInUse);
  kill_and_reap(next);
}

TEST_CASE("the same process taking a folder twice shares its lock (a command, then the engine)", "[folder_lock]") {
  ScratchDir d("folder-lock-shared");
  const auto a = FolderLock::take(d.path("run"));
  const auto b = FolderLock::take(d.path("run") + "/.");  // the same folder by another spelling
  CHECK(a.held());
  CHECK(b.held());
  CHECK(a.lock_file() == b.lock_file());
}

TEST_CASE("a folder replaced by a rename is locked through a file beside it", "[folder_lock]") {
  CHECK(lock_file_beside("/a/b/reports") == "/a/b/.reports.dmlbench.lock");
  CHECK(lock_file_beside("/a/b/reports/") == "/a/b/.reports.dmlbench.lock");
  ScratchDir d("folder-lock-beside");
  const auto l = FolderLock::take(d.path("reports"), {lock_file_beside(d.path("reports"))});
  CHECK(l.held());
  CHECK(std::filesystem::exists(d.path(".reports.dmlbench.lock")));
  CHECK_FALSE(std::filesystem::exists(d.path("reports")));
}

TEST_CASE("a filesystem without working locks is said once, and the command goes on unlocked", "[folder_lock]") {
  CHECK(lock_unsupported(ENOLCK));
  CHECK(lock_unsupported(EOPNOTSUPP));
  CHECK_FALSE(lock_unsupported(EWOULDBLOCK));  // a held lock is no missing support
  CHECK_FALSE(lock_unsupported(EBADF));
  ScratchDir d("folder-lock-nfs");
  std::ostringstream note;
  FolderLockOptions o;
  o.note = &note;
  o.flock = fake_flock_no_locks;
  const auto a = FolderLock::take(d.path("one"), o);
  CHECK_FALSE(a.held());
  CHECK_THAT(note.str(), Catch::Contains("is on a filesystem without working locks"));
  const auto first = note.str();
  const auto b = FolderLock::take(d.path("two"), o);
  CHECK(note.str() == first);  // once per process
}
