// Where and when a run record is written: the UTC time as ISO 8601 text and this machine's host name, as the sweep
// points' status, the Slurm submissions, the report's stages and the folder locks stamp them. Torch-free.
#pragma once

#include <string>

namespace dmlbench::experiments {

std::string utc_now_text();  // "2026-11-27T13:05:01Z"
std::string host_name();     // gethostname(2); "" where it fails

}  // namespace dmlbench::experiments
