// Wall seconds of a run by phase (its profile): data, forward, mining, loss, backward, optimizer, evaluation
// (embedding, ranking, NMI, NMI+), checkpoints and outputs. On the CPU every op has finished when it returns, so the
// laps are the phases' own times; on CUDA they time the launches unless the phase ends in a copy to the host.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace dmlbench::experiments {

class PhaseClock {
 public:
  // Adds the time from its construction to its destruction to `phase` (a null clock times nothing).
  class Lap {
   public:
    Lap(PhaseClock* clock, std::string phase)
        : clock_(clock), phase_(std::move(phase)), start_(std::chrono::steady_clock::now()) {}
    Lap(const Lap&) = delete;
    Lap& operator=(const Lap&) = delete;
    ~Lap() {
      if (clock_) clock_->add(phase_, std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
    }

   private:
    PhaseClock* clock_;
    std::string phase_;
    std::chrono::steady_clock::time_point start_;
  };

  void add(const std::string& phase, double seconds) {
    for (auto& [name, s] : phases_)
      if (name == phase) {
        s += seconds;
        return;
      }
    phases_.emplace_back(phase, seconds);
  }
  double total() const {
    double t = 0;
    for (const auto& p : phases_) t += p.second;
    return t;
  }
  // {"seconds": {phase: s, ...} in first-use order, "timed": the sum}
  nlohmann::ordered_json to_json() const {
    nlohmann::ordered_json s = nlohmann::ordered_json::object();
    for (const auto& [name, sec] : phases_) s[name] = sec;
    return {{"seconds", s}, {"timed", total()}};
  }

 private:
  std::vector<std::pair<std::string, double>> phases_;
};

}  // namespace dmlbench::experiments
