// A training run's final evaluation and its files: metrics.json, the embeddings of every set (npy, labels, image
// paths), embeddings.csv for 2-D embeddings, scatter.csv, train_steps.csv and movement.csv, each starting with the
// resolved config, the git revision and the seed.
#include "dmlbench/experiments/atomic_file.hpp"
#include "dmlbench/experiments/class_tree_json.hpp"
#include "dmlbench/experiments/npy_file.hpp"
#include "dmlbench/experiments/subcluster_count.hpp"
#include "dmlbench/experiments/triplet_movement_log.hpp"
#include "training_run.hpp"

#include <filesystem>
#include <iomanip>
#include <map>
#include <optional>
#include <sstream>

namespace dmlbench::experiments {

namespace fs = std::filesystem;
namespace F = torch::nn::functional;
using json = nlohmann::ordered_json;

namespace {

json run_head(const RunConfig& c, const RunOptions& o) {
  return {{"config", c.resolved}, {"git_revision", o.git_revision}, {"seed", c.seed}};
}

// The largest step loss against the first step's; past kLossGrowthFactor times it the run may have diverged
// (reported, not an error: a non-finite loss is the error).
json loss_growth(const json& step_rows) {
  json g = {{"factor", kLossGrowthFactor}, {"first_step_loss", nullptr}, {"max_step_loss", nullptr},
            {"max_at_step", nullptr}, {"past_factor", false}};
  if (step_rows.empty()) return g;
  const double first = step_rows.front()[2].get<double>();
  double max = first;
  long at = step_rows.front()[0].get<long>();
  for (const auto& r : step_rows)
    if (r[2].get<double>() > max) {
      max = r[2].get<double>();
      at = r[0].get<long>();
    }
  g["first_step_loss"] = first;
  g["max_step_loss"] = max;
  g["max_at_step"] = at;
  g["past_factor"] = loss_grown(first, max);
  return g;
}

// The training's own measures: steps, losses, active triplets ([HTL] Sec 3.1), the loss's block, the movement log's
// summary ([XHN] Sec 6.1 / Fig 3) and, beyond [HTL], the class tree of the final embeddings against a known grouping.
json training_metrics(const RunConfig& c, TrainingSetup& s, const TrainingProgress& p, const RunOptions& o) {
  json m = run_head(c, o);
  m["steps"] = p.steps;
  m["first_loss"] = p.first_loss;
  m["last_loss"] = p.last_loss;
  m["skipped_anchors"] = p.skipped_anchors;
  m["loss_growth"] = loss_growth(p.step_rows);
  if (!p.config_changes.empty()) m["resumed_with_changes"] = p.config_changes;
  if (!p.active_by_epoch.empty())
    m["active_triplets"] = {{"first_epoch", p.active_by_epoch.begin().value()},
                            {"last_epoch", (--p.active_by_epoch.end()).value()}, {"by_epoch", p.active_by_epoch}};
  if (const auto* state = capability<EpochState>(*s.loss))
    if (json own = state->metrics(); !own.is_null()) m[c.loss.name] = std::move(own);
  if (c.eval.movement) {
    m["movement"] = movement_summary(p.movement_rows);
    m["movement"]["tolerance"] = c.eval.movement_tolerance;
    m["movement"]["model"] = theory::name(movement_model_of(c.loss.name));
  }
  if (!c.eval.tree_groups.empty()) {
    const auto tree = tree_of_training_set(c, *s.model, s.data.train, s.train_level, s.device);
    const auto known = known_groups(tree, s.data.train, s.train_level, c.eval.tree_groups);
    m["tree"] = tree_recovery_of(tree, known, c.eval.tree_groups, c.seed);
    auto tj = class_tree_json(tree.distances, tree.tree,
                              {{"run", c.name}, {"seed", c.seed}, {"from", "final training embeddings"},
                               {"level", s.train_level}, {"levels", c.loss.setting("htl_levels")},
                               {"linkage", c.loss.setting("htl_linkage")}, {"groups", c.eval.tree_groups}});
    tj["known_groups"] = {{"level", c.eval.tree_groups}, {"of_class", known.of_class}};
    write_file_atomically((fs::path(o.out_dir) / "class_tree.json").string(), tj.dump(1) + "\n");
  }
  return m;
}

// A set's embeddings for `dmlbench eval` and the figures: npy, the labels of each row, the image of each row.
void write_embeddings(const fs::path& out, const std::string& name, const LabeledSplit& s, const torch::Tensor& emb) {
  const auto e32 = emb.to(torch::kFloat32).contiguous();
  write_npy_float32((out / "embeddings" / (name + ".npy")).string(), e32.data_ptr<float>(), e32.size(0), e32.size(1));
  std::ostringstream lab;
  for (std::size_t l = 0; l < s.level_names.size(); ++l) lab << (l ? "," : "") << s.level_names[l];
  lab << "\n";
  for (std::int64_t i = 0; i < s.size; ++i) {
    for (std::size_t l = 0; l < s.level_names.size(); ++l) lab << (l ? "," : "") << s.labels[l][std::size_t(i)];
    lab << "\n";
  }
  write_file_atomically((out / "embeddings" / (name + "_labels.csv")).string(), lab.str());
  if (s.paths.empty()) return;
  std::ostringstream files;
  for (const auto& path : s.paths) files << path << "\n";
  write_file_atomically((out / "embeddings" / (name + "_files.txt")).string(), files.str());
}

// eval.subclusters: per coarse class, how many of its fine classes stay apart, as retrieval sees the rows.
json subclusters_of(const RunConfig& c, const LabeledSplit& s, const torch::Tensor& emb) {
  const auto& lv = c.eval.subclusters;
  const auto rows = c.eval.similarity == Similarity::cosine ? F::normalize(emb, F::NormalizeFuncOptions().dim(1)) : emb;
  const auto sc = count_subclusters(rows, s.labels[std::size_t(s.level_index(lv[0]))],
                                    s.labels[std::size_t(s.level_index(lv[1]))]);
  return {{"coarse", lv[0]}, {"fine", lv[1]}, {"coarse_classes", sc.coarse_classes},
          {"mean_fine_classes", sc.mean_fine_classes}, {"mean_subclusters", sc.mean_subclusters},
          {"mean_surviving", sc.mean_surviving}};
}

// The rows of a 2-D embedding in embeddings.csv: set, its labels, x, y.
void append_2d_rows(std::ostringstream& csv, const std::string& name, const LabeledSplit& s, const torch::Tensor& emb) {
  for (std::int64_t i = 0; i < emb.size(0); ++i) {
    csv << name;
    for (std::size_t l = 0; l < s.level_names.size(); ++l) csv << "," << s.labels[l][std::size_t(i)];
    csv << "," << emb[i][0].item<float>() << "," << (emb.size(1) > 1 ? emb[i][1].item<float>() : 0.0f) << "\n";
  }
}

// Every evaluation set (and query-to-gallery protocol) evaluated and its embeddings written; embeddings.csv of a
// 2-D embedding.
json evaluate_all_sets(const RunConfig& c, TrainingSetup& s, const TrainingProgress& p, json& metrics,
                       const RunOptions& o) {
  const fs::path out(o.out_dir);
  json ev = json::object();
  std::ostringstream csv;
  csv << "# " << run_head(c, o).dump() << "\nsplit";
  const auto& all_levels = s.data.eval.front().level_names;
  for (const auto& l : all_levels) csv << "," << l;
  const bool two_d = c.model.embedding_dim <= 2;
  if (two_d) csv << ",x,y";
  csv << "\n";
  std::map<std::string, torch::Tensor> embedded;
  for (const auto& name : eval_sets(c, s.data)) {
    const auto& set = s.data.eval_set(name);
    std::optional<PhaseClock::Lap> lap(std::in_place, &p.clock, "final embedding");
    const auto reused = p.last_curve_embeddings.find(name);
    const auto emb = reused != p.last_curve_embeddings.end() ? reused->second
                                                             : embed_set(*s.model, set, s.device, c.model.normalize);
    lap.reset();
    embedded[name] = emb;
    ev[name] = evaluate_set(c, emb, set, c.eval.nmi, true, &p.clock, "final ");
    lap.emplace(&p.clock, "subclusters");
    if (!c.eval.subclusters.empty()) ev[name]["subclusters"] = subclusters_of(c, set, emb);
    lap.emplace(&p.clock, "triplet accuracy");
    if (s.accuracy_set == &set)
      metrics["heldout_triplet_accuracy"] = {{"set", name}, {"level", s.train_level},
                                             {"before", p.triplet_accuracy_before},
                                             {"after", triplet_accuracy(emb, s.accuracy_triplets)},
                                             {"triplets", s.accuracy_triplets.anchors.size(0)}};
    lap.emplace(&p.clock, "outputs");
    write_embeddings(out, name, set, emb);
    if (two_d && set.level_names == all_levels) append_2d_rows(csv, name, set, emb);
  }
  for (const auto& [query, gallery] : s.data.query_gallery)
    if (embedded.count(query) && embedded.count(gallery))
      ev[query + "_to_" + gallery] = evaluate_query_gallery(c, embedded[query], s.data.eval_set(query),
                                                            embedded[gallery], s.data.eval_set(gallery));
  if (two_d) write_file_atomically((out / "embeddings.csv").string(), csv.str());
  return ev;
}

// scatter.csv ([XHN] Fig 6), train_steps.csv (loss and active triplets per step) and movement.csv ([XHN] Sec 6.1).
void write_logs(const RunConfig& c, const TrainingProgress& p, const RunOptions& o) {
  const fs::path out(o.out_dir);
  const json head = run_head(c, o);
  if (c.eval.scatter) {
    std::ostringstream sc;
    json h = head;
    h["figure"] = "XHN Fig 6: easiest positive, hardest negative";
    sc << "# " << h.dump() << "\nepoch,s_ap,s_an\n";
    for (const auto& row : p.scatter) sc << row[0] << "," << row[1].get<double>() << "," << row[2].get<double>() << "\n";
    write_file_atomically((out / "scatter.csv").string(), sc.str());
  }
  std::ostringstream st;
  st << "# " << head.dump() << "\nstep,epoch,loss,active_triplets\n";
  for (const auto& r : p.step_rows)
    st << r[0] << "," << r[1] << "," << std::setprecision(9) << r[2].get<double>() << ","
       << (r[3].is_null() ? std::string() : std::to_string(r[3].get<double>())) << "\n";
  write_file_atomically((out / "train_steps.csv").string(), st.str());
  if (!c.eval.movement) return;
  std::ostringstream mv;  // per step: where the triplets' dots moved, and where the isolated-triplet model says
  mv << "# " << head.dump() << "\nstep,epoch";
  for (const char* side : {"", "predicted_"})
    for (const char* q : {"up_right", "up_left", "down_left", "down_right", "stationary"}) mv << "," << side << q;
  mv << ",agree,compared\n";
  for (const auto& r : p.movement_rows) {
    for (std::size_t i = 0; i < r.size(); ++i) mv << (i ? "," : "") << r[i].get<std::int64_t>();
    mv << "\n";
  }
  write_file_atomically((out / "movement.csv").string(), mv.str());
}

}  // namespace

json finish_run(const RunConfig& c, TrainingSetup& s, const TrainingProgress& p, const RunOptions& o,
                std::chrono::steady_clock::time_point started) {
  std::optional<PhaseClock::Lap> lap(std::in_place, &p.clock, "training metrics (tree)");
  json metrics = training_metrics(c, s, p, o);
  lap.reset();
  const json ev = evaluate_all_sets(c, s, p, metrics, o);
  metrics["eval"] = ev;
  if (!p.curve.empty()) metrics["curve"] = p.curve;
  if (c.schedule.patience > 0 && !p.curve.empty()) {  // what tuning reads: the best point and the length that reached it
    const auto e = stops_early(c, p.curve);
    const auto& best = p.curve.at(e.best_index);
    metrics["early_stopping"] = {{"metric", c.schedule.stop_metric}, {"patience", c.schedule.patience},
                                 {"best", e.best}, {"best_epoch", best["epoch"]}, {"best_step", best["step"]},
                                 {"epochs_run", p.epochs_done}, {"stopped_early", e.stop}};
  }
  metrics["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  metrics["train_seconds"] = p.train_seconds;
  metrics["torch_threads"] = torch::get_num_threads();
  metrics["device"] = s.device.str();
  lap.emplace(&p.clock, "outputs");
  write_logs(c, p, o);
  lap.reset();
  metrics["profile"] = p.clock.to_json();
  metrics["profile"]["run_seconds"] = metrics["seconds"];
  write_file_atomically((fs::path(o.out_dir) / "metrics.json").string(), metrics.dump(2) + "\n");
  // last: a run folder with its key record is finished (a kill before it leaves a run that resumes and finishes again)
  if (!p.run_key.key.empty()) write_run_key(o.out_dir, p.run_key, o.work_root, o.source_dir);
  return metrics;
}

}  // namespace dmlbench::experiments
