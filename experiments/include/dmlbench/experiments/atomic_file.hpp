// Outputs written through a temporary file and a rename, so that a killed run never leaves a half-written file and a
// full disk never replaces a good file with a truncated one. Torch-free; used by every command that writes
// a report, a CSV, a checkpoint or a run summary.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace dmlbench::experiments {

// Creates the parent folder, writes path.tmp, then renames it over path. Throws std::runtime_error "cannot write
// <path>: <reason> (<path> is left as it was)" when it cannot (a read-only folder, a full disk: ENOSPC is found at the
// write or at close, never after the rename); the temporary file is removed.
void write_file_atomically(const std::string& path, const std::string& bytes);

// A set of files in `dir` that must change together (a checkpoint): every file and then the manifest are written
// to temporary names first; only when all are complete are they renamed, the manifest last. The manifest is the JSON
// `manifest` with a block "files": {name: {"bytes", "fnv1a"}} added. A failure while writing leaves every file as it
// was. A kill during the renames leaves a complete manifest.tmp, from which finish_file_set() completes them.
void write_file_set(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& files,
                    const std::string& manifest_name, nlohmann::ordered_json manifest);

// Completes the renames of a write_file_set() that was killed after every file was written (its manifest.tmp whole
// and each file it lists present, as name.tmp or renamed, with its size and hash); otherwise removes the temporary
// files, which a kill before the renames left. Returns true when it completed a set.
bool finish_file_set(const std::string& dir, const std::string& manifest_name);

// Throws std::runtime_error naming the file when a file the manifest lists is missing or has another size or hash
// than the manifest records (a damaged checkpoint). A manifest without "files" (an older one) passes.
void check_file_set(const std::string& dir, const nlohmann::ordered_json& manifest, const std::string& manifest_name);

}  // namespace dmlbench::experiments
