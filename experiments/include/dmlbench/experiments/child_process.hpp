// Child processes of dmlbench (the report's stages, `reproduce --jobs`): started with their output in a log file, their
// wait status in words, and the tail of the log a failure shows. Torch-free.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <vector>

namespace dmlbench::experiments {

// Starts argv[0] (a path) with argv; stdout and stderr go to log_path (appended when `append`, else truncated), or
// to this process's own streams when log_path is empty. Returns the pid; throws std::runtime_error naming the program
// when it cannot be started.
pid_t start_process(const std::vector<std::string>& argv, const std::string& log_path, bool append);

// A waitpid status in words: "" for exit status 0, else "exit status N" / "killed by signal N".
std::string exit_description(int wait_status);

// The last `lines` lines of a text file, each indented as "  | " (nothing for a missing file).
std::string file_tail(const std::string& path, std::size_t lines);

}  // namespace dmlbench::experiments
