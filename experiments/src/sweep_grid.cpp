#include "dmlbench/experiments/sweep_grid.hpp"

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

const json& need(const json& j, const char* key, const std::string& where) {
  if (!j.contains(key)) throw config_error(where + ": \"" + key + "\" is required");
  return j[key];
}

std::string resolve(const std::string& p, const std::string& root) {
  return fs::path(p).is_absolute() ? p : (fs::path(root) / p).lexically_normal().string();
}

std::vector<std::uint64_t> read_seeds(const json& v, const std::string& where) {
  std::vector<std::uint64_t> out;
  if (v.is_number_integer()) {  // "seeds": N = 1..N
    if (v.get<long long>() < 1) throw config_error(where + ": seeds must be >= 1");
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

}  // namespace

SweepGrid read_sweep_grid(const std::string& path, const std::string& repo_root) {
  std::ifstream in(path);
  if (!in) throw config_error("cannot read the grid file " + path);
  json source;
  try {
    source = json::parse(in, nullptr, true, true);
  } catch (const json::exception& e) {
    throw config_error(path + ": not valid JSON (" + e.what() + ")");
  }
  return parse_sweep_grid(source, path, repo_root);
}

SweepGrid parse_sweep_grid(const json& j, const std::string& path, const std::string& repo_root,
                           const json* reproduction_source) {
  const std::string w = path;
  check_only_keys(j, {"name", "title", "note", "command", "reproduction", "profile", "arms", "variants", "config", "set",
                      "axes", "seeds", "metrics"},
                  w);
  SweepGrid g;
  g.file = path;
  g.source = j;
  const json& name = need(j, "name", w);
  if (!name.is_string() || name.get<std::string>().empty() || folder_part(name.get<std::string>()) != name.get<std::string>())
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

  if (j.contains("reproduction")) {
    if (!j["reproduction"].is_string()) throw config_error(w + ": reproduction must be a file name");
    for (const char* k : {"command", "config", "metrics"})
      if (j.contains(k))
        throw config_error(w + ": a reproduction grid takes its " + k + " from the reproduction file; remove \"" + k +
                           "\"");
    const std::string rf = resolve(j["reproduction"].get<std::string>(), repo_root);
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
      g.seeds = read_seeds(j["axes"]["seed"], w + ": axes.seed");
    }
    if (g.seeds.empty())
      for (int k = 1; k <= g.reproduction->profiles.at(g.profile).seeds; ++k) g.seeds.push_back(std::uint64_t(k));
    return g;
  }

  if (j.contains("profile") || j.contains("variants"))
    throw config_error(w + ": profile and variants belong to reproduction grids (\"reproduction\": file)");
  const json& cmd = need(j, "command", w);
  if (cmd != "train" && cmd != "sim collapse")
    throw config_error(w + ": command must be \"train\" or \"sim collapse\", got " + cmd.dump());
  g.command = cmd.get<std::string>();
  const bool sim = g.command == "sim collapse";
  if (sim && j.contains("config")) throw config_error(w + ": sim collapse takes its options from \"set\", not a config");
  if (!sim) {
    const json& c = need(j, "config", w);
    if (!c.is_string()) throw config_error(w + ": config must be a run config file");
    g.config = resolve(c.get<std::string>(), repo_root);
    if (!fs::exists(g.config)) throw config_error(w + ": config " + g.config + " does not exist");
  }
  if (sim)
    for (auto it = g.set.begin(); it != g.set.end(); ++it) check_sim_option(it.key(), it.value(), w + ": set");
  if (j.contains("arms")) {
    if (!j["arms"].is_array() || j["arms"].empty()) throw config_error(w + ": arms must be a non-empty list");
    std::set<std::string> seen;
    for (const auto& a : j["arms"]) {
      check_only_keys(a, {"name", "set"}, w + ": arm");
      const json& an = need(a, "name", w + ": arm");
      if (!an.is_string() || an.get<std::string>().empty() || folder_part(an.get<std::string>()) != an.get<std::string>())
        throw config_error(w + ": an arm name must be letters, digits, '.', '-' and '+', got " + an.dump());
      if (!seen.insert(an.get<std::string>()).second) throw config_error(w + ": arm " + an.dump() + " listed twice");
      SweepArm arm{an.get<std::string>(), a.value("set", json::object())};
      if (!arm.set.is_object()) throw config_error(w + ": arm " + arm.name + ": set must be an object");
      if (arm.set.contains("seed")) throw config_error(w + ": arm " + arm.name + ": the seeds are the grid's");
      if (sim)
        for (auto it = arm.set.begin(); it != arm.set.end(); ++it)
          check_sim_option(it.key(), it.value(), w + ": arm " + arm.name);
      g.arms.push_back(arm);
    }
  }
  if (j.contains("axes")) {
    if (!j["axes"].is_object()) throw config_error(w + ": axes must be an object (key -> list of values)");
    for (auto it = j["axes"].begin(); it != j["axes"].end(); ++it) {
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
  if (g.seeds.empty()) g.seeds = {1};
  if (j.contains("metrics")) {
    if (!j["metrics"].is_array()) throw config_error(w + ": metrics must be a list of {label, path}");
    for (const auto& m : j["metrics"]) {
      check_only_keys(m, {"label", "path", "scale"}, w + ": metric");
      const json& l = need(m, "label", w + ": metric");
      const json& p = need(m, "path", w + ": metric");
      if (!l.is_string() || !p.is_string()) throw config_error(w + ": a metric's label and path are strings");
      g.metrics.push_back({l.get<std::string>(), p.get<std::string>(), m.value("scale", 1.0)});
    }
  } else if (sim) {
    g.metrics = {{"collapsed minimizers", "collapsed_runs", 1}, {"best objective", "best_objective", 1}};
  }
  if (g.metrics.empty()) throw config_error(w + ": metrics: name at least one number the summary reports");
  return g;
}

SweepPlan expand_sweep(const SweepGrid& g, const std::string& dir, const std::vector<std::string>& cli_set,
                       const std::string& repo_root, const SimOptionCheck& check) {
  SweepPlan plan;
  plan.grid = g;
  plan.dir = fs::absolute(dir).lexically_normal().string();
  while (plan.dir.size() > 1 && plan.dir.back() == '/') plan.dir.pop_back();
  plan.cli_set = cli_set;
  const fs::path root(plan.dir);
  auto train_args = [&](const std::string& name) {
    return std::vector<std::string>{"train", "--config", (root / name / "run_config.json").string(), "--out",
                                    (root / name).string(), "--resume"};
  };

  if (g.reproduction) {
    const auto& r = *g.reproduction;
    const Reproduction rr = with_arms(r, g.arm_names);
    std::vector<std::string> set = config_overrides(g.set, g.file + ": set");
    set.insert(set.end(), cli_set.begin(), cli_set.end());
    const auto runs = plan_reproduction_runs(r, r.profiles.at(g.profile), selected_variants(r, g.variant_names),
                                             rr.arms, g.seeds, set, plan.dir, repo_root);
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
      p.args = train_args(p.name);
      p.result = "metrics.json";
      p.config = run.config.resolved;
      p.depends = run.depends;
      plan.points.push_back(std::move(p));
    }
    return plan;
  }

  const bool sim = g.command == "sim collapse";
  std::map<std::string, std::string> cli_values;  // sim: --set key=value on the command line, by option
  for (const auto& kv : cli_set) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) throw config_error("--set " + kv + ": expected key=value");
    if (sim) {
      const std::string key = kv.substr(0, eq), text = kv.substr(eq + 1);
      json v;
      try {
        v = json::parse(text);
      } catch (const json::exception&) {
        v = text;  // a string option's value as it is
      }
      check_sim_option(key, v, "--set");
      cli_values[key] = text;
    }
  }
  // the cartesian product of the axes, first axis outermost
  std::vector<std::vector<std::size_t>> combos(1);
  for (const auto& [key, values] : g.axes) {
    std::vector<std::vector<std::size_t>> next;
    for (const auto& c : combos)
      for (std::size_t i = 0; i < values.size(); ++i) {
        next.push_back(c);
        next.back().push_back(i);
      }
    combos = next;
  }
  std::vector<SweepArm> arms = g.arms;
  if (arms.empty()) arms.push_back({"", json::object()});
  std::set<std::string> names;
  for (const auto& arm : arms)
    for (const auto& c : combos)
      for (const std::uint64_t seed : g.seeds) {
        SweepPoint p;
        p.index = plan.points.size();
        p.seed = seed;
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
          const json& v = values[c[a]];
          p.coordinates[key] = v;
          opts[key] = v;
          axes_part += (axes_part.empty() ? "" : "_") + folder_part(key) + "-" + folder_part(value_text(v));
          label += (label.empty() ? "" : " ") + key + "=" + value_text(v);
        }
        if (!axes_part.empty()) folder += (folder.empty() ? "" : "/") + axes_part;
        p.coordinates["seed"] = seed;
        p.arm = label;
        p.name = (folder.empty() ? "" : folder + "/") + "seed" + std::to_string(seed);
        if (!names.insert(p.name).second) throw config_error(g.file + ": two points share the folder " + p.name);
        const fs::path pdir = root / p.name;
        if (sim) {
          json merged = opts;
          for (const auto& [k, text] : cli_values) merged[k] = text;
          json typed = opts;  // what the simulation's check sees: the values with their JSON types
          for (const auto& [k, text] : cli_values) {
            try {
              typed[k] = json::parse(text);
            } catch (const json::exception&) {
              typed[k] = text;
            }
          }
          typed["seed"] = seed;
          if (check) {
            try {
              check(typed);
            } catch (const std::exception& e) {
              throw config_error(g.file + ": point " + p.name + ": " + e.what());
            }
          }
          p.args = {"sim", "collapse"};
          for (const auto& [k, kind] : sim_collapse_options())
            if (merged.contains(k)) p.args.insert(p.args.end(), {"--" + k, value_text(merged[k])});
          p.args.insert(p.args.end(), {"--seed", std::to_string(seed), "--out", (pdir / "result.json").string()});
          p.result = "result.json";
        } else {
          std::vector<std::string> set;
          for (auto it = opts.begin(); it != opts.end(); ++it) set.push_back(it.key() + "=" + value_text(it.value()));
          set.insert(set.end(), cli_set.begin(), cli_set.end());
          set.push_back("seed=" + std::to_string(seed));
          try {
            p.config = load_run_config(g.config, set, repo_root).resolved;
          } catch (const config_error& e) {
            throw config_error(g.file + ": point " + p.name + ": " + e.what());
          }
          p.args = train_args(p.name);
          p.result = "metrics.json";
        }
        plan.points.push_back(std::move(p));
      }
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
  SweepPlan plan;
  const json& rsrc = j.at("reproduction");
  plan.grid = parse_sweep_grid(j.at("config").at("grid"), j.at("config").at("grid_file").get<std::string>(), repo_root,
                               rsrc.is_null() ? nullptr : &rsrc);
  plan.dir = fs::absolute(dir).lexically_normal().string();
  while (plan.dir.size() > 1 && plan.dir.back() == '/') plan.dir.pop_back();
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
    plan.points.push_back(std::move(s));
  }
  return plan;
}

}  // namespace dmlbench::experiments
