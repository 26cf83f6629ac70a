#include "dmlbench/experiments/retrieval_evaluation.hpp"

#include "dmlbench/experiments/exact_knn.hpp"
#include "dmlbench/experiments/nmi.hpp"

#include "dmlbench/experiments/blas_info.hpp"

#include <ATen/Parallel.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <exception>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <thread>
#include <unordered_map>

namespace dmlbench::experiments {

const char* const kRetrievalTieRule =
    "neighbours ranked by float32 distance (Euclidean: squared distance; cosine: minus the cosine similarity), "
    "exactly equal distances by gallery index, lower first; the query excluded by index";
const char* const kQueriesWithoutPositiveRule =
    "a query with no other item of its label: a miss in Recall@K, left out of precision@1, R-precision and MAP@R, "
    "counted in queries_without_positive; those three are null where no query has a positive";

namespace {

using Levels = std::vector<LabelLevel>;

// LibTorch's intra-op threads and OpenBLAS's at one while it lives, for work run side by side on threads of its own
struct OneThreadEach {
  OneTorchThread torch_threads;
  SerialBlas blas_threads;
};

void check_embeddings(const torch::Tensor& x, const std::string& what) {
  if (x.dim() != 2 || x.size(0) < 1 || x.size(1) < 1)
    throw std::invalid_argument(what + " must be a non-empty rows x dims matrix");
  for (std::int64_t s = 0; s < x.size(0); s += 65536) {  // in slices: no N x d mask at once
    const auto bad = torch::isfinite(x.slice(0, s, std::min(x.size(0), s + 65536))).all(1).logical_not().nonzero();
    if (bad.size(0) > 0)
      throw std::invalid_argument(what + " contain NaN or infinite values (row " +
                                  std::to_string(s + bad[0][0].item<std::int64_t>()) + ")");
  }
}

void check_levels(const Levels& levels, std::int64_t rows, const std::string& what) {
  if (levels.empty()) throw std::invalid_argument(what + ": no label level");
  std::set<std::string> names;
  for (const auto& l : levels) {
    if (l.name.empty()) throw std::invalid_argument(what + ": a label level without a name");
    if (!names.insert(l.name).second) throw std::invalid_argument(what + ": label level \"" + l.name + "\" twice");
    if (std::int64_t(l.labels.size()) != rows)
      throw std::invalid_argument(what + ": level \"" + l.name + "\" has " + std::to_string(l.labels.size()) +
                                  " labels for " + std::to_string(rows) + " embeddings");
  }
}

void check_ks(const std::vector<int>& ks, std::int64_t max_k, const std::string& why) {
  if (ks.empty()) throw std::invalid_argument("no K for Recall@K");
  std::set<int> seen;
  for (int k : ks) {
    if (k < 1 || k > max_k)
      throw std::invalid_argument("K = " + std::to_string(k) + " must lie in [1, " + std::to_string(max_k) + "] " + why);
    if (!seen.insert(k).second) throw std::invalid_argument("K = " + std::to_string(k) + " given twice");
  }
}

// float32, L2-normalised for cosine: the same tensors recall_at_k compares. A zero row (or one whose norm
// overflows) has no direction, and normalize would make it a zero vector: an error.
torch::Tensor prepared(const torch::Tensor& x, Similarity s, const std::string& what) {
  if (s == Similarity::euclidean) return x.to(torch::kFloat32);
  auto n = torch::nn::functional::normalize(x.to(torch::kFloat32), torch::nn::functional::NormalizeFuncOptions().dim(1));
  const auto zero = n.eq(0).all(1).nonzero();
  if (zero.size(0) > 0)
    throw std::invalid_argument(what + ": row " + std::to_string(zero[0][0].item<std::int64_t>()) +
                                " has no direction (L2 norm 0 in float32), so no cosine similarity");
  return n;
}

// What one query contributes at one level.
struct QueryScore {
  std::int64_t first_hit = 0;  // 1-based rank of the first same-label neighbour among those ranked, 0: none
  std::int64_t positives = 0;  // R
  double r_precision = 0, average_precision_at_r = 0;
};

// Ranks every query's gallery (kRetrievalTieRule) with the exact kNN engine and scores each level. query_levels[l]
// and gallery_levels[l] describe the same level. ties_at_k[i]: the queries whose K-th and (K+1)-th nearest tie (K =
// o.ks[i]).
std::vector<LevelReport> score(const torch::Tensor& xq, const torch::Tensor& xg, bool exclude_self,
                               const Levels& query_levels, const Levels& gallery_levels, const RetrievalOptions& o,
                               std::vector<std::int64_t>& ties_at_k, KnnStats& stats) {
  const std::int64_t Q = xq.size(0), G = xg.size(0), ranked_max = G - (exclude_self ? 1 : 0);
  const std::size_t L = query_levels.size();
  const int kmax = *std::max_element(o.ks.begin(), o.ks.end());
  // R per query and level, and how many neighbours each query needs ranked
  std::vector<std::vector<std::int64_t>> positives(L, std::vector<std::int64_t>(std::size_t(Q)));
  std::vector<std::int64_t> needed(std::size_t(Q), kmax);
  for (std::size_t l = 0; l < L; ++l) {
    std::unordered_map<std::int64_t, std::int64_t> count;
    for (auto y : gallery_levels[l].labels) ++count[y];
    for (std::int64_t q = 0; q < Q; ++q) {
      const auto y = query_levels[l].labels[std::size_t(q)];
      const auto it = count.find(y);
      const std::int64_t r = (it == count.end() ? 0 : it->second) - (exclude_self ? 1 : 0);
      positives[l][std::size_t(q)] = r;
      if (o.ranking_metrics) needed[std::size_t(q)] = std::max(needed[std::size_t(q)], r);
    }
  }
  std::vector<std::vector<QueryScore>> scores(L, std::vector<QueryScore>(std::size_t(Q)));
  std::vector<char> boundary_tie(std::size_t(Q) * o.ks.size(), 0);  // [query][K]
  KnnOptions ko;
  ko.similarity = o.similarity;
  ko.exclude_self = exclude_self;
  ko.query_block = o.block;
  ko.gallery_tile = o.gallery_tile;
  ko.backend = o.backend;
  if (o.progress) ko.on_block = [&o](std::int64_t done, std::int64_t total) { o.progress("search", done, total); };
  // one neighbour more than the metrics read, so that a tie between the K-th and (K+1)-th is seen
  const auto wanted = [&](std::int64_t q) { return std::min(needed[std::size_t(q)], ranked_max - 1) + 1; };
  const auto visit = [&](std::int64_t q, const Neighbour* nb, std::int64_t count) {
    const auto m = std::size_t(std::min(needed[std::size_t(q)], ranked_max));  // the neighbours the metrics read
    for (std::size_t i = 0; i < o.ks.size(); ++i) {
      const auto k = std::size_t(o.ks[i]);
      if (std::int64_t(k) < count) boundary_tie[std::size_t(q) * o.ks.size() + i] = nb[k - 1].distance == nb[k].distance;
    }
    for (std::size_t l = 0; l < L; ++l) {
      const auto y = query_levels[l].labels[std::size_t(q)];
      const auto& gy = gallery_levels[l].labels;
      auto& sc = scores[l][std::size_t(q)];
      sc.positives = positives[l][std::size_t(q)];
      const auto R = std::size_t(std::max<std::int64_t>(sc.positives, 0));
      std::int64_t hits = 0, hits_in_r = 0;
      const std::size_t upto = std::min(m, std::max(R, std::size_t(kmax)));
      for (std::size_t i = 0; i < upto; ++i) {
        if (gy[nb[i].index] != y) continue;
        ++hits;
        if (sc.first_hit == 0) sc.first_hit = std::int64_t(i) + 1;
        if (i < R) {
          hits_in_r = hits;
          sc.average_precision_at_r += double(hits) / double(i + 1);  // P(i) at each relevant rank i <= R
        }
      }
      if (R > 0) {
        sc.r_precision = double(hits_in_r) / double(R);
        sc.average_precision_at_r /= double(R);
      }
    }
  };
  stats = exact_knn(xq, xg, ko, wanted, visit);
  ties_at_k.assign(o.ks.size(), 0);
  for (std::size_t i = 0; i < boundary_tie.size(); ++i) ties_at_k[i % o.ks.size()] += boundary_tie[i];
  // sums in query order, so the result does not depend on the thread count
  std::vector<LevelReport> out(L);
  for (std::size_t l = 0; l < L; ++l) {
    auto& rep = out[l];
    rep.level = query_levels[l].name;
    rep.ks = o.ks;
    rep.queries = Q;
    std::vector<std::int64_t> recall_hits(o.ks.size(), 0);
    std::int64_t with_positive = 0, p1 = 0;
    double rp = 0, map = 0;
    for (const auto& sc : scores[l]) {
      for (std::size_t i = 0; i < o.ks.size(); ++i) recall_hits[i] += sc.first_hit >= 1 && sc.first_hit <= o.ks[i];
      if (sc.positives <= 0) continue;
      ++with_positive;
      p1 += sc.first_hit == 1;
      rp += sc.r_precision;
      map += sc.average_precision_at_r;
    }
    for (auto h : recall_hits) rep.recall_at_k.push_back(double(h) / double(Q));
    rep.queries_without_positive = Q - with_positive;
    if (with_positive == 0 || !o.ranking_metrics) continue;  // precision@1, R-precision and MAP@R undefined
    rep.precision_at_1 = double(p1) / double(with_positive);
    rep.r_precision = rp / double(with_positive);
    rep.map_at_r = map / double(with_positive);
  }
  return out;
}

// Dense ids of a level's labels in their numeric order: labels 0..C-1 keep their values, so NMI sums its terms in the
// order nmi_of_kmeans does (the trainer's), and any int64 labels fit the int ids.
std::vector<int> dense_ids(const std::vector<std::int64_t>& labels, int& classes) {
  std::map<std::int64_t, int> dense;
  for (auto v : labels) dense.emplace(v, 0);
  int id = 0;
  for (auto& kv : dense) kv.second = id++;
  classes = id;
  std::vector<int> y;
  for (auto v : labels) y.push_back(dense.at(v));
  return y;
}

// Clusterings of at most this N k d run side by side, one thread each, where the caller gives two or more threads: a
// small k-means gains little from a second thread (its Lloyd steps are short GEMMs between serial work; the glyph
// proxy's k = 20 ... 584 ran 1.2-1.6 times faster on two threads than on one), and its clusters do not depend on the
// thread count (kmeans.hpp). Larger ones run one after the other on all threads.
constexpr double kSideBySideBudget = 1e10;

// The k-means of every k (the first k-means seed), with their cost in the order of `ks`.
std::map<int, std::vector<int>> cluster_all(const torch::Tensor& x, const std::vector<int>& ks, const RetrievalOptions& o,
                                            std::vector<std::pair<int, KMeansStats>>& cost) {
  std::map<int, std::vector<int>> out;
  std::map<int, KMeansStats> stats;
  const int threads = at::get_num_threads();
  std::vector<int> side;
  for (int k : ks)
    if (double(x.size(0)) * double(x.size(1)) * k <= kSideBySideBudget) side.push_back(k);
  if (threads < 2 || side.size() < 2) side.clear();
  if (!side.empty()) {
    // the largest first, each to the worker with the least k so far
    std::sort(side.begin(), side.end(), std::greater<int>());
    const auto workers = std::min<std::size_t>(std::size_t(threads), side.size());
    std::vector<std::vector<int>> plan(workers);
    std::vector<std::int64_t> load(workers, 0);
    for (int k : side) {
      const auto w = std::size_t(std::min_element(load.begin(), load.end()) - load.begin());
      plan[w].push_back(k);
      load[w] += k;
    }
    for (int k : ks)
      if (o.progress && std::count(side.begin(), side.end(), k)) o.progress("k-means k = " + std::to_string(k), 0, 1);
    std::vector<std::vector<std::pair<int, std::pair<std::vector<int>, KMeansStats>>>> done(workers);
    std::vector<std::exception_ptr> failed(workers);
    {
      const OneThreadEach one_thread_each;
      std::vector<std::thread> pool;
      for (std::size_t w = 0; w < workers; ++w)
        pool.emplace_back([&, w] {
          try {
            for (int k : plan[w]) {
              KMeansStats st;
              auto c = kmeans(x, k, o.kmeans_seed, o.kmeans_iterations, &st);
              done[w].push_back({k, {std::move(c), st}});
            }
          } catch (...) {
            failed[w] = std::current_exception();
          }
        });
      for (auto& t : pool) t.join();
    }
    for (auto& f : failed)
      if (f) std::rethrow_exception(f);
    for (auto& d : done)
      for (auto& [k, r] : d) {
        out[k] = std::move(r.first);
        stats[k] = r.second;
      }
  }
  for (int k : ks) {
    if (out.count(k)) continue;
    if (o.progress) o.progress("k-means k = " + std::to_string(k), 0, 1);
    KMeansStats st;
    out[k] = kmeans(x, k, o.kmeans_seed, o.kmeans_iterations, &st);
    stats[k] = st;
  }
  for (int k : ks) cost.emplace_back(k, stats.at(k));
  return out;
}

// NMI of k-means(k) for every level (k = classes) and NMI+ (k = factor x classes); one clustering per distinct k.
void add_clustering(const torch::Tensor& x, const Levels& levels, const RetrievalOptions& o,
                    std::vector<LevelReport>& reports, std::vector<std::pair<int, KMeansStats>>& cost) {
  std::vector<std::vector<int>> ys;
  std::vector<int> ks;
  auto want = [&](int k) {
    if (std::find(ks.begin(), ks.end(), k) == ks.end()) ks.push_back(k);
  };
  for (std::size_t l = 0; l < levels.size(); ++l) {
    int classes = 0;
    ys.push_back(dense_ids(levels[l].labels, classes));
    reports[l].nmi_k = classes;
    want(classes);
    if (o.nmi_plus_factor > 0) {
      reports[l].nmi_plus_k = o.nmi_plus_factor * classes;
      want(reports[l].nmi_plus_k);
    }
  }
  const auto clusters = cluster_all(x, ks, o, cost);
  for (std::size_t l = 0; l < levels.size(); ++l) {
    auto& rep = reports[l];
    rep.nmi = normalized_mutual_information(clusters.at(rep.nmi_k), ys[l]);
    if (o.nmi_plus_factor > 0) rep.nmi_plus = normalized_mutual_information(clusters.at(rep.nmi_plus_k), ys[l]);
  }
}

// NMI+ needs factor x classes clusters, at most one per row: checked before the search, so that a refusal costs nothing.
void check_nmi_plus(const Levels& levels, std::int64_t rows, const RetrievalOptions& o) {
  if (!o.clustering || o.nmi_plus_factor <= 0) return;
  for (const auto& l : levels) {
    const auto classes = std::int64_t(std::set<std::int64_t>(l.labels.begin(), l.labels.end()).size());
    if (o.nmi_plus_factor * classes > rows)
      throw std::invalid_argument("level \"" + l.name + "\": NMI+ needs k = " + std::to_string(o.nmi_plus_factor) +
                                  " x " + std::to_string(classes) + " classes = " +
                                  std::to_string(o.nmi_plus_factor * classes) + " clusters of " +
                                  std::to_string(rows) + " embeddings (lower the NMI+ factor; 0: no NMI+)");
  }
}

void check_options(const RetrievalOptions& o, std::int64_t gallery) {
  if (o.block < 0 || o.gallery_tile < 0) throw std::invalid_argument("block and gallery_tile must be >= 0 (0: automatic)");
  if (o.nmi_plus_factor < 0) throw std::invalid_argument("the NMI+ factor must be >= 0 (0: no NMI+)");
  if (o.kmeans_iterations < 1) throw std::invalid_argument("k-means needs at least one iteration");
  if (gallery >= (std::int64_t(1) << 32)) throw std::invalid_argument("a gallery of 2^32 items or more");
}

}  // namespace

RetrievalReport retrieval_report(const torch::Tensor& embeddings, const Levels& levels, const RetrievalOptions& o) {
  check_embeddings(embeddings, "embeddings");
  const auto N = embeddings.size(0);
  check_levels(levels, N, "labels");
  check_ks(o.ks, N - 1, "(N - 1 = " + std::to_string(N - 1) + ": the query is not its own neighbour)");
  check_options(o, N);
  check_nmi_plus(levels, N, o);
  const auto x = prepared(embeddings, o.similarity, "embeddings");
  RetrievalReport r;
  r.similarity = o.similarity;
  r.queries = r.gallery = N;
  r.dims = embeddings.size(1);
  r.ks = o.ks;
  r.levels = score(x, x, true, levels, levels, o, r.recall_ties_at_k, r.search);
  if (o.clustering) add_clustering(x, levels, o, r.levels, r.clustering_cost);
  return r;
}

RetrievalReport retrieval_report(const torch::Tensor& queries, const Levels& query_levels, const torch::Tensor& gallery,
                                 const Levels& gallery_levels, const RetrievalOptions& o) {
  check_embeddings(queries, "query embeddings");
  check_embeddings(gallery, "gallery embeddings");
  if (queries.size(1) != gallery.size(1))
    throw std::invalid_argument("query embeddings have " + std::to_string(queries.size(1)) +
                                " dimensions, gallery embeddings " + std::to_string(gallery.size(1)));
  check_levels(query_levels, queries.size(0), "query labels");
  check_levels(gallery_levels, gallery.size(0), "gallery labels");
  Levels matched;
  for (const auto& ql : query_levels) {
    const auto it = std::find_if(gallery_levels.begin(), gallery_levels.end(),
                                 [&](const LabelLevel& g) { return g.name == ql.name; });
    if (it == gallery_levels.end())
      throw std::invalid_argument("the gallery labels have no level \"" + ql.name + "\" (the query labels have)");
    matched.push_back(*it);
  }
  check_ks(o.ks, gallery.size(0), "(the gallery size)");
  check_options(o, gallery.size(0));
  RetrievalReport r;
  r.similarity = o.similarity;
  r.separate_gallery = true;
  r.queries = queries.size(0);
  r.gallery = gallery.size(0);
  r.dims = queries.size(1);
  r.ks = o.ks;
  r.levels = score(prepared(queries, o.similarity, "query embeddings"),
                   prepared(gallery, o.similarity, "gallery embeddings").to(queries.device()), false,
                   query_levels, matched, o, r.recall_ties_at_k, r.search);
  return r;
}

void to_json(nlohmann::ordered_json& j, const LevelReport& r) {
  using json = nlohmann::ordered_json;
  json recall = json::object();
  for (std::size_t i = 0; i < r.ks.size(); ++i) recall[std::to_string(r.ks[i])] = r.recall_at_k[i];
  auto optional = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  j = json{{"recall_at_k", recall},
           {"precision_at_1", optional(r.precision_at_1)},
           {"r_precision", optional(r.r_precision)},
           {"map_at_r", optional(r.map_at_r)},
           {"nmi", optional(r.nmi)},
           {"nmi_k", r.nmi ? json(r.nmi_k) : json(nullptr)},
           {"nmi_plus", optional(r.nmi_plus)},
           {"nmi_plus_k", r.nmi_plus ? json(r.nmi_plus_k) : json(nullptr)},
           {"queries", r.queries},
           {"queries_without_positive", r.queries_without_positive}};
}

void to_json(nlohmann::ordered_json& j, const RetrievalReport& r) {
  using json = nlohmann::ordered_json;
  json levels = json::object();
  for (const auto& l : r.levels) levels[l.level] = l;
  json ties = json::object();
  for (std::size_t i = 0; i < r.ks.size(); ++i) ties[std::to_string(r.ks[i])] = r.recall_ties_at_k[i];
  j = json{{"metric", r.similarity == Similarity::cosine ? "cosine" : "euclidean"},
           {"gallery_is_queries", !r.separate_gallery},
           {"queries", r.queries},
           {"gallery", r.gallery},
           {"dims", r.dims},
           {"recall_ties_at_k", ties},
           {"levels", levels}};
}

}  // namespace dmlbench::experiments
