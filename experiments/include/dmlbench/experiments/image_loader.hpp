// A prefetching image loader: batches of a plan (index lists, e.g. from ClassBalancedSampler) decoded and transformed
// on worker threads a bounded number of batches ahead of the consumer, handed out in plan order as one float
// buffer B x C x H x W. Each item's random transform is seeded from (seed, epoch, batch, position), so the bytes do
// not depend on the thread count. Torch-free.
#pragma once

#include "dmlbench/experiments/image.hpp"
#include "dmlbench/experiments/image_transforms.hpp"

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace dmlbench::experiments {

// Where a loader's items come from: image files, decoded on the workers, or images already in memory (shared,
// read-only; converted to the loader's channels when they differ). Cheap to copy.
class ImageSource {
 public:
  static ImageSource files(std::vector<std::string> paths);
  static ImageSource memory(std::vector<Image> images);
  std::size_t size() const;
  std::string name(std::size_t i) const;  // the path, or "in-memory image i"
  // Item i in `channels` (1 or 3): the stored image itself, or a decoded or converted copy held in `scratch`.
  // Thread-safe. Throws data_error (naming the file) for a file that cannot be decoded.
  const Image& get(std::size_t i, int channels, Image& scratch) const;

 private:
  std::shared_ptr<const std::vector<std::string>> paths_;
  std::shared_ptr<const std::vector<Image>> images_;
};

struct LoaderOptions {
  int channels = 3;              // 1 (gray) or 3 (RGB)
  int threads = 0;               // worker threads; 0 decodes in the thread that calls next()
  int prefetch_batches = 2;      // batches in flight at once, counting the one next() waits for (>= 1)
  std::uint64_t seed = 0;        // with the epoch, the batch number and the position: each item's generator
  std::uint64_t epoch = 0;
};

struct Batch {
  std::size_t number = 0;      // its position in the plan
  std::vector<int> indices;    // the plan's indices, in order
  int channels = 0, rows = 0, cols = 0;
  std::vector<float> data;     // indices.size() x channels x rows x cols
};

// The seed of the generator that transforms item `position` of batch `batch` (splitmix64 of the four).
std::uint64_t item_seed(std::uint64_t seed, std::uint64_t epoch, std::uint64_t batch, std::uint64_t position);

class PrefetchLoader {
 public:
  // Starts the workers. Throws std::invalid_argument for an index outside the source, an empty batch, bad options,
  // or a normalize step that does not fit the channels. When the pipeline's output size depends on the input
  // size (no fixed-size step), the first item of the plan is decoded here to learn it (its data_error too), and
  // every item must give that size.
  PrefetchLoader(ImageSource source, std::vector<std::vector<int>> plan, TransformPipeline pipeline,
                 LoaderOptions options);
  ~PrefetchLoader();  // stops the workers after their current item and joins them, wherever the epoch stands
  PrefetchLoader(const PrefetchLoader&) = delete;
  PrefetchLoader& operator=(const PrefetchLoader&) = delete;

  // The next batch of the plan into `batch` (its old buffer is recycled); false once the plan is done. An item that
  // failed (the first by position in its batch) rethrows its exception here, e.g. the data_error naming the file;
  // the loader then stops and every later call rethrows it.
  bool next(Batch& batch);
  std::size_t batches() const { return plan_.size(); }
  int rows() const { return rows_; }
  int cols() const { return cols_; }

 private:
  struct Slot {
    std::vector<float> data;
    std::size_t batch = SIZE_MAX, remaining = 0, error_position = 0;
    std::exception_ptr error;
  };
  void process(std::size_t batch, std::size_t position, float* out) const;
  void work();

  ImageSource source_;
  std::vector<std::vector<int>> plan_;
  TransformPipeline pipeline_;
  LoaderOptions options_;
  int rows_ = 0, cols_ = 0;
  std::size_t item_floats_ = 0, max_batch_ = 0;

  std::mutex mutex_;
  std::condition_variable work_ready_, batch_done_;
  std::vector<Slot> slots_;  // batch b fills slot b % prefetch_batches
  std::size_t consumed_ = 0, claim_batch_ = 0, claim_position_ = 0;
  bool stop_ = false;
  std::exception_ptr failed_;
  std::vector<std::thread> workers_;
};

}  // namespace dmlbench::experiments
