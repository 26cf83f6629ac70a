// Where and when a run record is written (run_stamp.hpp).
#include "dmlbench/experiments/run_stamp.hpp"

#include <unistd.h>

#include <ctime>

namespace dmlbench::experiments {

std::string utc_now_text() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string host_name() {
  char h[256] = {0};
  ::gethostname(h, sizeof h - 1);
  return h;
}

}  // namespace dmlbench::experiments
