#include "dmlbench/experiments/sweep_grid.hpp"

#include "dmlbench/experiments/json_fields.hpp"
#include "dmlbench/experiments/run_config.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

namespace dmlbench::experiments {

using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

const std::vector<std::pair<std::string, std::string>>& sim_collapse_options() {
  static const std::vector<std::pair<std::string, std::string>> o = {
      {"loss", "string"},  {"n", "integer"},     {"classes", "integer"},  {"p-correct", "number"},
      {"margin", "number"}, {"dim", "integer"},  {"sampling", "string"}, {"triples", "string"},
      {"restarts", "integer"}, {"max-iterations", "integer"}};
  return o;
}

std::string folder_part(const std::string& text) {
  std::string out;
  for (char ch : text) {
    const bool keep = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' ||
                      ch == '-' || ch == '+';
    out += keep ? ch : '-';
  }
  return out;
}

std::string value_text(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

namespace {

// The most points one sweep makes: ten job arrays of Slurm's default MaxArraySize (1001). A grid past it is refused
// before any point is made (a seed count or an axis product could otherwise fill the memory).
constexpr std::size_t kMaxSweepPoints = 10000;

void check_point_count(std::size_t n, const std::string& where) {
  if (n > kMaxSweepPoints)
    throw config_error(where + ": over " + std::to_string(kMaxSweepPoints) + " points; split it into smaller sweeps");
}

// The product of counts, saturated just past kMaxSweepPoints (no overflow).
std::size_t capped_product(const std::vector<std::size_t>& counts) {
  std::size_t n = 1;
  for (const auto c : counts) n = c == 0 ? 0 : std::min(n * std::min(c, kMaxSweepPoints + 1), kMaxSweepPoints + 1);
  return n;
}

std::vector<std::uint64_t> read_seeds(const json& v, const std::string& where) {
  std::vector<std::uint64_t> out;
  if (v.is_number_integer()) {  // "seeds": N = 1..N
    if (v.get<long long>() < 1) throw config_error(where + ": seeds must be >= 1");
    check_point_count(std::size_t(v.get<long long>()), where + ": seeds " + v.dump());
    for (long long k = 1; k <= v.get<long long>(); ++k) out.push_back(std::uint64_t(k));
    return out;
  }
  if (!v.is_array() || v.empty()) throw config_error(where + ": seeds must be a count or a non-empty list of seeds");
  for (const auto& s : v) {
    if (!s.is_number_integer() || s.get<long long>() < 0)
      throw config_error(where + ": a seed must be a non-negative integer, got " + s.dump());
    if (std::find(out.begin(), out.end(), s.get<std::uint64_t>()) != out.end())
      throw config_error(where + ": seed " + s.dump() + " listed twice");
    out.push_back(s.get<std::uint64_t>());
  }
  return out;
}

// A sim option's value against its kind (string | integer | number).
void check_sim_option(const std::string& key, const json& v, const std::string& where) {
  const auto& opts = sim_collapse_options();
  const auto it = std::find_if(opts.begin(), opts.end(), [&](const auto& o) { return o.first == key; });
  if (it == opts.end()) {
    std::vector<std::string> names;
    for (const auto& o : opts) names.push_back(o.first);
    const auto near = nearest_name(key, names);
    throw config_error(where + ": sim collapse takes no option \"" + key + "\"" +
                       (key == "noise" ? " (renamed \"p-correct\": the value is p = P(correct label), 0.8 = 20% of the "
                                         "labels wrong)"
                        : key == "seed" ? " here (the seeds are the grid's seed axis)"
                        : key == "out" ? " here (each point writes its own result.json)"
                        : near.empty() ? "" : " (did you mean \"" + near + "\"?)"));
  }
  const bool ok = it->second == "string" ? v.is_string() : it->second == "integer" ? v.is_number_integer() : v.is_number();
  if (!ok) throw config_error(where + ": " + key + " must be " + (it->second == "integer" ? "an " : "a ") + it->second +
                              ", got " + v.dump());
}

// A name that is its own folder name: letters, digits, '.', '-' and '+', not empty.
bool is_folder_name(const json& name) {
  return name.is_string() && !name.get<std::string>().empty() &&
         folder_part(name.get<std::string>()) == name.get<std::string>();
}

// What every grid has: its keys checked, the name and title, the overrides of every point and the seeds.
SweepGrid read_grid_head(const json& j, const std::string& w) {
  check_only_keys(j, {"name", "title", "note", "command", "reproduction", "profile", "arms", "variants", "config", "set",
                      "axes", "seeds", "metrics"},
                  w);
  SweepGrid g;
  g.file = w;
  g.source = j;
  const json& name = required_field(j, "name", w);
  if (!is_folder_name(name))
    throw config_error(w + ": name must be a non-empty string of letters, digits, '.', '-' and '+', got " + name.dump());
  g.name = name.get<std::string>();
  g.title = j.value("title", g.name);
  if (j.contains("set")) {
    if (!j["set"].is_object()) throw config_error(w + ": set must be an object (key -> value)");
    g.set = j["set"];
  }
  if (g.set.contains("seed")) throw config_error(w + ": set: the seeds are the grid's \"seeds\" (or its seed axis)");
  if (j.contains("seeds") && j.contains("axes") && j["axes"].is_object() && j["axes"].contains("seed"))
    throw config_error(w + ": give the seeds once, as \"seeds\" or as the seed axis");
  if (j.contains("seeds")) g.seeds = read_seeds(j["seeds"], w);
  return g;
}

// A reproduction grid's rest: the reproduction file (or its kept text), the profile, the arms and variants run and
// the seeds (default: the profile's 1..seeds).
void read_reproduction_grid(const json& j, const std::string& w, const std::string& repo_root,
                            const json* reproduction_source, SweepGrid& g) {
  if (!j["reproduction"].is_string()) throw config_error(w + ": reproduction must be a file name");
  for (const char* k : {"command", "config", "metrics"})
    if (j.contains(k))
      throw config_error(w + ": a reproduction grid takes its " + k + " from the reproduction file; remove \"" + k +
                         "\"");
  const std::string rf = path_under(j["reproduction"].get<std::string>(), repo_root);
  g.reproduction = reproduction_source ? parse_reproduction(*reproduction_source, rf, repo_root)
                                       : read_reproduction(rf, repo_root);
  g.command = "train";
  g.config = g.reproduction->config;
  g.profile = j.value("profile", "default");
  if (!g.reproduction->profiles.count(g.profile))
    throw config_error(w + ": " + rf + " has no profile \"" + g.profile + "\"");
  for (const char* k : {"arms", "variants"}) {
    if (!j.contains(k)) continue;
    if (!j[k].is_array()) throw config_error(w + ": " + k + " must be a list of the reproduction's " + k + " names");
    for (const auto& a : j[k]) {
      if (!a.is_string()) throw config_error(w + ": " + k + " must be a list of names, got " + a.dump());
      (std::string(k) == "arms" ? g.arm_names : g.variant_names).push_back(a.get<std::string>());
    }
  }
  with_arms(*g.reproduction, g.arm_names);            // throws for names that match no arm / variant
  selected_variants(*g.reproduction, g.variant_names);
  if (j.contains("axes")) {
    check_only_keys(j["axes"], {"seed"}, w + ": axes (a reproduction grid's axes are its arms, variants and seeds; "
                                            "put other changes in \"set\" or a reproduction variant)");
    g.seeds = read_seeds(required_field(j["axes"], "seed", w + ": axes"), w + ": axes.seed");
  }
  if (g.seeds.empty()) {
    const int n = g.reproduction->profiles.at(g.profile).seeds;
    check_point_count(std::size_t(std::max(n, 0)), w + ": profile " + g.profile + "'s seeds");
    for (int k = 1; k <= n; ++k) g.seeds.push_back(std::uint64_t(k));
  }
}

// A command grid's command and what it runs from: train a run config file, sim collapse the options in "set".
void read_command(const json& j, const std::string& w, const std::string& repo_root, SweepGrid& g) {
  if (j.contains("profile") || j.contains("variants"))
    throw config_error(w + ": profile and variants belong to reproduction grids (\"reproduction\": file)");
  const json& cmd = required_field(j, "command", w);
  if (cmd != "train" && cmd != "sim collapse")
    throw config_error(w + ": command must be \"train\" or \"sim collapse\", got " + cmd.dump());
  g.command = cmd.get<std::string>();
  const bool sim = g.command == "sim collapse";
  if (sim && j.contains("config")) throw config_error(w + ": sim collapse takes its options from \"set\", not a config");
  if (!sim) {
    const json& c = required_field(j, "config", w);
    if (!c.is_string()) throw config_error(w + ": config must be a run config file");
    g.config = existing_config_file(c.get<std::string>(), repo_root, w);
  }
  if (sim)
    for (auto it = g.set.begin(); it != g.set.end(); ++it) check_sim_option(it.key(), it.value(), w + ": set");
}

// A command grid's named arms: unique folder names, each with its own overrides (the seeds are the grid's).
std::vector<SweepArm> read_arms(const json& arms, const std::string& w, bool sim) {
  if (!arms.is_array() || arms.empty()) throw config_error(w + ": arms must be a non-empty list");
  std::vector<SweepArm> out;
  std::set<std::string> seen;
  for (const auto& a : arms) {
    check_only_keys(a, {"name", "set"}, w + ": arm");
    const json& an = required_field(a, "name", w + ": arm");
    if (!is_folder_name(an))
      throw config_error(w + ": an arm name must be letters, digits, '.', '-' and '+', got " + an.dump());
    if (!seen.insert(an.get<std::string>()).second) throw config_error(w + ": arm " + an.dump() + " listed twice");
    SweepArm arm{an.get<std::string>(), a.value("set", json::object())};
    if (!arm.set.is_object()) throw config_error(w + ": arm " + arm.name + ": set must be an object");
    if (arm.set.contains("seed")) throw config_error(w + ": arm " + arm.name + ": the seeds are the grid's");
    if (sim)
      for (auto it = arm.set.begin(); it != arm.set.end(); ++it)
        check_sim_option(it.key(), it.value(), w + ": arm " + arm.name);
    out.push_back(arm);
  }
  return out;
}

// A command grid's axes, in file order (the seed axis into g.seeds): each a non-empty list of values whose folder
// names differ.
void read_axes(const json& axes, const std::string& w, bool sim, SweepGrid& g) {
  if (!axes.is_object()) throw config_error(w + ": axes must be an object (key -> list of values)");
  for (auto it = axes.begin(); it != axes.end(); ++it) {
    if (!it.value().is_array() || it.value().empty())
      throw config_error(w + ": axis " + it.key() + " must be a non-empty list of values");
    if (it.key() == "seed") {
      g.seeds = read_seeds(it.value(), w + ": axes.seed");
      continue;
    }
    if (it.key() == "arm") throw config_error(w + ": axis \"arm\": give named arms as \"arms\"");
    std::vector<json> values(it.value().begin(), it.value().end());
    std::set<std::string> seen;
    for (const auto& v : values) {
      if (sim) check_sim_option(it.key(), v, w + ": axis " + it.key());
      if (!seen.insert(folder_part(value_text(v))).second)
        throw config_error(w + ": axis " + it.key() + ": value " + v.dump() + " listed twice (or two values share "
                           "the folder name " + folder_part(value_text(v)) + ")");
    }
    g.axes.emplace_back(it.key(), values);
  }
}

// A command grid's metrics: the file's {label, path, scale} list, or sim collapse's two; at least one.
std::vector<SweepMetric> read_metrics(const json& j, const std::string& w, bool sim) {
  std::vector<SweepMetric> metrics;
  if (j.contains("metrics")) {
    if (!j["metrics"].is_array()) throw config_error(w + ": metrics must be a list of {label, path}");
    for (const auto& m : j["metrics"]) {
      check_only_keys(m, {"label", "path", "scale"}, w + ": metric");
      const json& l = required_field(m, "label", w + ": metric");
      const json& p = required_field(m, "path", w + ": metric");
      if (!l.is_string() || !p.is_string()) throw config_error(w + ": a metric's label and path are strings");
      metrics.push_back({l.get<std::string>(), p.get<std::string>(), m.value("scale", 1.0)});
    }
  } else if (sim) {
    metrics = {{"collapsed minimizers", "collapsed_runs", 1}, {"best objective", "best_objective", 1}};
  }
  if (metrics.empty()) throw config_error(w + ": metrics: name at least one number the summary reports");
  return metrics;
}

}  // namespace

SweepGrid read_sweep_grid(const std::string& path, const std::string& repo_root) {
  return parse_sweep_grid(read_json_file(path, "the grid file"), path, repo_root);
}

namespace {

SweepGrid sweep_grid_fields(const json& j, const std::string& path, const std::string& repo_root,
                            const json* reproduction_source) {
  const std::string w = path;
  SweepGrid g = read_grid_head(j, w);
  if (j.contains("reproduction")) {
    read_reproduction_grid(j, w, repo_root, reproduction_source, g);
    return g;
  }
  read_command(j, w, repo_root, g);
  const bool sim = g.command == "sim collapse";
  if (j.contains("arms")) g.arms = read_arms(j["arms"], w, sim);
  if (j.contains("axes")) read_axes(j["axes"], w, sim, g);
  if (g.seeds.empty()) g.seeds = {1};
  g.metrics = read_metrics(j, w, sim);
  return g;
}

}  // namespace

SweepGrid parse_sweep_grid(const json& j, const std::string& path, const std::string& repo_root,
                           const json* reproduction_source) {
  try {
    return sweep_grid_fields(j, path, repo_root, reproduction_source);
  } catch (const json::exception& e) {  // a value of another type than the schema's (found by fuzzing)
    throw config_error(path + ": " + e.what());
  }
}

namespace {

// The sweep folder as sweep.json keeps it: absolute, lexically normal, no trailing '/'.
std::string sweep_folder(const std::string& dir) {
  std::string out = fs::absolute(dir).lexically_normal().string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

// A training point's command line: its resolved run_config.json and its folder, resumed where it stopped, or read
// back where a run of the same key has finished (in the folder, or in the committed store).
std::vector<std::string> train_args(const fs::path& root, const std::string& name) {
  return std::vector<std::string>{"train", "--config", (root / name / "run_config.json").string(), "--out",
                                  (root / name).string(), "--resume", "--reuse-finished"};
}

// A reproduction grid's points: the reproduction's runs (variants x arms x seeds) under the grid's profile.
void add_reproduction_points(SweepPlan& plan, const std::string& repo_root) {
  const SweepGrid& g = plan.grid;
  const fs::path root(plan.dir);
  const auto& r = *g.reproduction;
  const Reproduction rr = with_arms(r, g.arm_names);
  std::vector<std::string> set = config_overrides(g.set, g.file + ": set");
  set.insert(set.end(), plan.cli_set.begin(), plan.cli_set.end());
  const auto variants = selected_variants(r, g.variant_names);
  check_point_count(capped_product({std::max<std::size_t>(variants.size(), 1), rr.arms.size(), g.seeds.size()}),
                    g.file);
  const auto runs = plan_reproduction_runs(r, r.profiles.at(g.profile), variants, rr.arms, g.seeds, set, plan.dir,
                                           repo_root);
  for (const auto& run : runs) {
    SweepPoint p;
    p.index = plan.points.size();
    p.name = fs::path(run.dir).lexically_relative(root).string();
    p.arm = run.arm;
    p.variant = run.variant;
    p.seed = run.config.seed;
    if (!run.variant.empty()) p.coordinates["variant"] = run.variant;
    p.coordinates["arm"] = run.arm;
    p.coordinates["seed"] = p.seed;
    p.args = train_args(root, p.name);
    p.result = "metrics.json";
    p.config = run.config.resolved;
    p.depends = run.depends;
    plan.points.push_back(std::move(p));
  }
}

// A command-line --set value with its JSON type, or the text itself (a string option's value as it is).
json typed_value(const std::string& text) {
  try {
    return json::parse(text);
  } catch (const json::exception&) {
    return text;
  }
}

// The command line's --set key=value, each checked; for sim collapse its values by option (text as given).
std::map<std::string, std::string> cli_values_of(const std::vector<std::string>& cli_set, bool sim) {
  std::map<std::string, std::string> cli_values;
  for (const auto& kv : cli_set) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) throw config_error("--set " + kv + ": expected key=value");
    if (sim) {
      const std::string key = kv.substr(0, eq), text = kv.substr(eq + 1);
      check_sim_option(key, typed_value(text), "--set");
      cli_values[key] = text;
    }
  }
  return cli_values;
}

// The cartesian product of the axes (an index into each axis's values), first axis outermost.
std::vector<std::vector<std::size_t>> axis_combinations(
    const std::vector<std::pair<std::string, std::vector<json>>>& axes) {
  std::vector<std::vector<std::size_t>> combos(1);
  for (const auto& [key, values] : axes) {
    std::vector<std::vector<std::size_t>> next;
    for (const auto& c : combos)
      for (std::size_t i = 0; i < values.size(); ++i) {
        next.push_back(c);
        next.back().push_back(i);
      }
    combos = next;
  }
  return combos;
}

// What every point of a command grid is made with: the grid, the sweep folder, the command line's overrides.
struct CommandPoints {
  const SweepGrid& g;
  fs::path root;
  const std::vector<std::string>& cli_set;
  std::map<std::string, std::string> cli_values;  // sim: --set key=value on the command line, by option
  const std::string& repo_root;
  const SimOptionCheck& check;
};

// Names a point (folder, label, coordinates) from its arm and axis values; returns its options (later keys win: the
// file's set, the arm, the axes).
json place_point(SweepPoint& p, const SweepGrid& g, const SweepArm& arm, const std::vector<std::size_t>& combo) {
  std::string folder, label;
  if (!arm.name.empty()) {
    folder = arm.name;
    label = arm.name;
    p.coordinates["arm"] = arm.name;
  }
  std::string axes_part;
  json opts = g.set;  // later keys win: the file's set, the arm, the axes, then the command line
  for (auto it = arm.set.begin(); it != arm.set.end(); ++it) opts[it.key()] = it.value();
  for (std::size_t a = 0; a < g.axes.size(); ++a) {
    const auto& [key, values] = g.axes[a];
    const json& v = values[combo[a]];
    p.coordinates[key] = v;
    opts[key] = v;
    axes_part += (axes_part.empty() ? "" : "_") + folder_part(key) + "-" + folder_part(value_text(v));
    label += (label.empty() ? "" : " ") + key + "=" + value_text(v);
  }
  if (!axes_part.empty()) folder += (folder.empty() ? "" : "/") + axes_part;
  p.coordinates["seed"] = p.seed;
  p.arm = label;
  p.name = (folder.empty() ? "" : folder + "/") + "seed" + std::to_string(p.seed);
  return opts;
}

// A sim collapse point's command line, after the simulation's own check of its options with their JSON types.
void set_sim_command(SweepPoint& p, const json& opts, const CommandPoints& c) {
  json merged = opts;
  for (const auto& [k, text] : c.cli_values) merged[k] = text;
  json typed = opts;  // what the simulation's check sees: the values with their JSON types
  for (const auto& [k, text] : c.cli_values) typed[k] = typed_value(text);
  typed["seed"] = p.seed;
  if (c.check) {
    try {
      c.check(typed);
    } catch (const std::exception& e) {
      throw config_error(c.g.file + ": point " + p.name + ": " + e.what());
    }
  }
  p.args = {"sim", "collapse"};
  for (const auto& [k, kind] : sim_collapse_options())
    if (merged.contains(k)) p.args.insert(p.args.end(), {"--" + k, value_text(merged[k])});
  p.args.insert(p.args.end(), {"--seed", std::to_string(p.seed), "--out", (c.root / p.name / "result.json").string()});
  p.result = "result.json";
}

// A train point's run config, resolved through the schema with its overrides and the command line's, and its
// command line.
void set_train_command(SweepPoint& p, const json& opts, const CommandPoints& c) {
  std::vector<std::string> set;
  for (auto it = opts.begin(); it != opts.end(); ++it) set.push_back(it.key() + "=" + value_text(it.value()));
  set.insert(set.end(), c.cli_set.begin(), c.cli_set.end());
  set.push_back("seed=" + std::to_string(p.seed));
  try {
    p.config = load_run_config(c.g.config, set, c.repo_root).resolved;
  } catch (const config_error& e) {
    throw config_error(c.g.file + ": point " + p.name + ": " + e.what());
  }
  p.args = train_args(c.root, p.name);
  p.result = "metrics.json";
}

// A command grid's points: arms x axis combinations x seeds, each in its own folder.
void add_command_points(SweepPlan& plan, const CommandPoints& c) {
  const bool sim = c.g.command == "sim collapse";
  std::vector<std::size_t> counts{std::max<std::size_t>(c.g.arms.size(), 1), c.g.seeds.size()};
  for (const auto& axis : c.g.axes) counts.push_back(axis.second.size());
  check_point_count(capped_product(counts), c.g.file);
  const auto combos = axis_combinations(c.g.axes);
  std::vector<SweepArm> arms = c.g.arms;
  if (arms.empty()) arms.push_back({"", json::object()});
  std::set<std::string> names;
  for (const auto& arm : arms)
    for (const auto& combo : combos)
      for (const std::uint64_t seed : c.g.seeds) {
        SweepPoint p;
        p.index = plan.points.size();
        p.seed = seed;
        const json opts = place_point(p, c.g, arm, combo);
        if (!names.insert(p.name).second) throw config_error(c.g.file + ": two points share the folder " + p.name);
        if (sim)
          set_sim_command(p, opts, c);
        else
          set_train_command(p, opts, c);
        plan.points.push_back(std::move(p));
      }
}

}  // namespace

SweepPlan expand_sweep(const SweepGrid& g, const std::string& dir, const std::vector<std::string>& cli_set,
                       const std::string& repo_root, const SimOptionCheck& check) {
  SweepPlan plan;
  plan.grid = g;
  plan.dir = sweep_folder(dir);
  plan.cli_set = cli_set;
  if (g.reproduction) {
    add_reproduction_points(plan, repo_root);
    return plan;
  }
  const CommandPoints points{g, fs::path(plan.dir), cli_set, cli_values_of(cli_set, g.command == "sim collapse"),
                             repo_root, check};
  add_command_points(plan, points);
  return plan;
}

json SweepPlan::to_json() const {
  json pts = json::array();
  for (const auto& p : points)
    pts.push_back({{"index", p.index}, {"name", p.name}, {"arm", p.arm}, {"variant", p.variant}, {"seed", p.seed},
                   {"coordinates", p.coordinates}, {"args", p.args}, {"result", p.result}, {"depends", p.depends}});
  json j = {{"config", {{"grid_file", grid.file}, {"grid", grid.source}, {"set", cli_set}}},
            {"name", grid.name},
            {"title", grid.title},
            {"command", grid.command},
            {"dir", dir},
            {"reproduction", grid.reproduction ? json(grid.reproduction->source) : json(nullptr)},
            {"profile", grid.reproduction ? json(grid.profile) : json(nullptr)},
            {"points", pts}};
  return j;
}

namespace {

// A point's folder or result file as sweep.json names it: a relative path below the sweep folder, each part a name
// the file system takes (a damaged file could otherwise point a run outside the sweep, or make a probe throw).
void check_point_path(const std::string& path, const std::string& what, const std::string& where) {
  const auto refuse = [&](const std::string& why) {
    throw std::runtime_error(where + ": " + what + " " + json(path).dump() + " " + why + ": a damaged sweep.json");
  };
  if (path.empty() || fs::path(path).is_absolute()) refuse("is not a relative path");
  if (std::any_of(path.begin(), path.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }))
    refuse("holds a control character");
  for (const auto& part : fs::path(path)) {
    if (part == "..") refuse("leaves the sweep folder");
    if (part.string().size() > 255) refuse("has a part longer than 255 bytes");
  }
}

// sweep.json's plan; json::exception for a missing or mistyped key, std::runtime_error for points out of order.
SweepPlan sweep_plan_of(const json& j, const std::string& dir, const std::string& repo_root) {
  SweepPlan plan;
  const json& rsrc = j.at("reproduction");
  plan.grid = parse_sweep_grid(j.at("config").at("grid"), j.at("config").at("grid_file").get<std::string>(), repo_root,
                               rsrc.is_null() ? nullptr : &rsrc);
  plan.dir = sweep_folder(dir);
  plan.cli_set = j.at("config").at("set").get<std::vector<std::string>>();
  for (const auto& p : j.at("points")) {
    SweepPoint s;
    s.index = p.at("index").get<std::size_t>();
    s.name = p.at("name").get<std::string>();
    s.arm = p.at("arm").get<std::string>();
    s.variant = p.at("variant").get<std::string>();
    s.seed = p.at("seed").get<std::uint64_t>();
    s.coordinates = p.at("coordinates");
    s.args = p.at("args").get<std::vector<std::string>>();
    s.result = p.at("result").get<std::string>();
    s.depends = p.at("depends").get<long>();
    const std::string where = dir + "/sweep.json: point " + std::to_string(plan.points.size());
    check_point_path(s.name, "name", where);
    check_point_path(s.result, "result", where);
    if (s.index != plan.points.size() || s.depends < -1 || s.depends >= long(s.index))
      throw std::runtime_error(dir + "/sweep.json: point " + std::to_string(plan.points.size()) +
                               " is out of order (index " + std::to_string(s.index) + ", depends on " +
                               std::to_string(s.depends) + "): a damaged sweep.json");
    plan.points.push_back(std::move(s));
  }
  return plan;
}

}  // namespace

SweepPlan read_sweep_plan(const std::string& dir, const std::string& repo_root) {
  const fs::path f = fs::path(dir) / "sweep.json";
  std::ifstream in(f);
  if (!in) throw std::runtime_error(dir + " holds no sweep (no sweep.json; `dmlbench sweep --grid F --out " + dir +
                                    "` starts one)");
  json j;
  try {
    j = json::parse(in);
  } catch (const json::exception& e) {
    throw std::runtime_error(f.string() + ": not valid JSON (" + e.what() + ")");
  }
  try {
    return sweep_plan_of(j, dir, repo_root);
  } catch (const json::exception& e) {
    throw std::runtime_error(f.string() + ": not a sweep's state (" + e.what() + "): a damaged sweep.json");
  }
}

}  // namespace dmlbench::experiments
