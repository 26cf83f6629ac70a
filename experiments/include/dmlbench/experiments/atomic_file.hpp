// Text outputs written through a temporary file and a rename, so a killed run never leaves a half-written file.
// Torch-free; used by every command that writes a report, a CSV, a checkpoint's metadata or a run summary.
#pragma once

#include <string>

namespace dmlbench::experiments {

// Creates the parent folder; throws std::runtime_error when the file cannot be written.
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace dmlbench::experiments
