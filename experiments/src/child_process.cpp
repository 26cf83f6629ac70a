#include "dmlbench/experiments/child_process.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <stdexcept>

extern char** environ;

namespace dmlbench::experiments {

pid_t start_process(const std::vector<std::string>& args, const std::string& log_path, bool append) {
  if (args.empty()) throw std::invalid_argument("start_process: no program");
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (!log_path.empty()) {
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log_path.c_str(),
                                     O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0644);
    posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
  }
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, args[0].c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw std::runtime_error("cannot start " + args[0] + ": " + std::strerror(rc));
  return pid;
}

std::string exit_description(int ws) {
  if (WIFEXITED(ws)) return WEXITSTATUS(ws) == 0 ? "" : "exit status " + std::to_string(WEXITSTATUS(ws));
  if (WIFSIGNALED(ws)) return "killed by signal " + std::to_string(WTERMSIG(ws));
  return "unknown wait status";
}

std::string file_tail(const std::string& path, std::size_t lines) {
  std::ifstream in(path);
  std::vector<std::string> all;
  for (std::string l; std::getline(in, l);) all.push_back(l);
  std::string o;
  for (std::size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) o += "  | " + all[i] + "\n";
  return o;
}

}  // namespace dmlbench::experiments
