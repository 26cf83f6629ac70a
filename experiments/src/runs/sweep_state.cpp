#include "dmlbench/experiments/sweep_state.hpp"

#include "dmlbench/experiments/child_process.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>

namespace dmlbench::experiments {

using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

const char* state_name(PointState s) {
  switch (s) {
    case PointState::done: return "done";
    case PointState::failed: return "failed";
    case PointState::running: return "running";
    case PointState::interrupted: return "interrupted";
    case PointState::missing: return "missing";
  }
  return "?";
}

std::string point_dir(const SweepPlan& plan, const SweepPoint& p) { return (fs::path(plan.dir) / p.name).string(); }

namespace {

// Whether another process holds the point's lock now (a task running it).
bool locked(const fs::path& lock) {
  const int fd = ::open(lock.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool busy = ::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);  // closing drops the lock this probe may have taken
  return busy;
}

json read_json(const fs::path& f) {
  std::ifstream in(f);
  if (!in) throw std::runtime_error("cannot read " + f.string());
  try {
    return json::parse(in);
  } catch (const json::exception& e) {
    throw std::runtime_error(f.string() + ": not valid JSON (" + e.what() + ")");
  }
}

}  // namespace

PointStatus point_status(const SweepPlan& plan, const SweepPoint& p, std::size_t tail_lines) {
  const fs::path d = point_dir(plan, p);
  PointStatus s;
  std::error_code ec;  // a probe that fails reads as "not there"
  if (fs::is_regular_file(d / p.result, ec)) {
    s.state = PointState::done;
    return s;
  }
  if (locked(d / kSweepLock)) {
    s.state = PointState::running;
    return s;
  }
  if (fs::is_regular_file(d / kSweepStatus, ec)) {
    json st;
    try {
      st = read_json(d / kSweepStatus);
    } catch (const std::exception& e) {
      st = {{"description", e.what()}};
    }
    if (st.value("ok", false)) {  // it finished once and its result has been removed since: to be run again
      s.detail = "finished once; its " + p.result + " is gone";
      return s;
    }
    s.state = PointState::failed;
    s.detail = st.value("description", "failed");
    s.log_tail = file_tail((d / kSweepLog).string(), tail_lines);
    return s;
  }
  if (fs::exists(d / kSweepLog, ec)) {
    s.state = PointState::interrupted;
    s.detail = "started, no exit status: killed with its task or its node, or its status found no room on a full disk";
    s.log_tail = file_tail((d / kSweepLog).string(), tail_lines);
    return s;
  }
  return s;
}

json collect_sweep(const SweepPlan& plan, const std::string& git_revision, std::string* table) {
  json failed = json::array(), unfinished = json::array();
  std::vector<const SweepPoint*> done;
  std::ostringstream notes;
  for (const auto& p : plan.points) {
    const auto st = point_status(plan, p);
    if (st.state == PointState::done) {
      done.push_back(&p);
    } else if (st.state == PointState::failed) {
      failed.push_back({{"name", p.name}, {"detail", st.detail}, {"log_tail", st.log_tail}});
      notes << "failed: " << p.name << " (" << st.detail << "), its log " << point_dir(plan, p) << "/" << kSweepLog
            << " ends:\n" << st.log_tail;
    } else {
      unfinished.push_back({{"name", p.name}, {"state", state_name(st.state)}});
    }
  }
  if (done.empty())
    throw std::runtime_error("sweep " + plan.dir + ": no point has finished (" + std::to_string(failed.size()) +
                             " failed, " + std::to_string(unfinished.size()) + " not finished)");
  const json sweep_part = {{"dir", plan.dir},      {"name", plan.grid.name},  {"points", plan.points.size()},
                           {"done", done.size()},  {"failed", failed},        {"not_finished", unfinished}};
  std::ostringstream out;
  json summary;
  if (plan.grid.reproduction) {
    const Reproduction rr = with_arms(*plan.grid.reproduction, plan.grid.arm_names);
    const auto variants = selected_variants(*plan.grid.reproduction, plan.grid.variant_names);
    std::map<std::string, std::map<std::string, std::vector<json>>> runs;  // points are in seed order per arm
    for (const auto* p : done) runs[p->variant][p->arm].push_back(read_json(fs::path(point_dir(plan, *p)) / p->result));
    std::vector<std::string> set = config_overrides(plan.grid.set, plan.grid.file + ": set");
    set.insert(set.end(), plan.cli_set.begin(), plan.cli_set.end());
    const json first = read_json(fs::path(point_dir(plan, *done.front())) / done.front()->result);
    summary = reproduction_summary(rr, variants, plan.grid.profile, int(plan.grid.seeds.size()), set,
                                   first.value("config", json()), git_revision, runs);
    summary["config"]["sweep"] = plan.to_json()["config"];
    summary["sweep"] = sweep_part;
    out << summary_table_text(summary, rr);
  } else {
    struct Arm {
      std::string name;
      json coordinates;
      std::size_t points = 0;
      std::vector<const SweepPoint*> done;
    };
    std::vector<Arm> arms;
    for (const auto& p : plan.points) {
      auto it = std::find_if(arms.begin(), arms.end(), [&](const Arm& a) { return a.name == p.arm; });
      if (it == arms.end()) {
        json c = p.coordinates;
        c.erase("seed");
        arms.push_back({p.arm, c, 0, {}});
        it = arms.end() - 1;
      }
      ++it->points;
      if (std::find(done.begin(), done.end(), &p) != done.end()) it->done.push_back(&p);
    }
    summary = {{"config", plan.to_json()["config"]}, {"git_revision", git_revision}, {"sweep", sweep_part},
               {"arms", json::array()}};
    out << std::left << std::setw(34) << "arm" << std::setw(8) << "seeds";
    for (const auto& m : plan.grid.metrics) out << std::setw(26) << m.label;
    out << "\n";
    for (const auto& a : arms) {
      json e = {{"arm", a.name}, {"coordinates", a.coordinates}, {"points", a.points}, {"done", a.done.size()},
                {"metrics", json::object()}};
      out << std::setw(34) << (a.name.empty() ? "(one arm)" : a.name) << std::setw(8)
          << (std::to_string(a.done.size()) + "/" + std::to_string(a.points));
      for (const auto& m : plan.grid.metrics) {
        std::vector<double> x;
        for (const auto* p : a.done) {
          const json r = read_json(fs::path(point_dir(plan, *p)) / p->result);
          try {
            x.push_back(m.scale * metric_at(r, m.path));
          } catch (const metric_undefined&) {
            // no value in this point's result: left out of the mean, as in a reproduction's summary
          } catch (const std::invalid_argument& err) {
            throw std::runtime_error(plan.grid.file + ": metric " + m.label + ": " + err.what() + " (point " + p->name +
                                     ")");
          }
        }
        e["metrics"][m.label] = mean_std_entry(x);
        out << std::setw(26) << mean_std_text(e["metrics"][m.label], 4);
      }
      out << "\n";
      summary["arms"].push_back(e);
    }
  }
  out << done.size() << " of " << plan.points.size() << " points merged";
  if (!failed.empty()) out << ", " << failed.size() << " failed";
  if (!unfinished.empty()) out << ", " << unfinished.size() << " not finished";
  out << "\n" << notes.str();
  if (table) *table = out.str();
  return summary;
}

}  // namespace dmlbench::experiments
