#include "dmlbench/experiments/image_loader.hpp"

#include "dmlbench/experiments/idx_file.hpp"

#include <algorithm>
#include <stdexcept>
#include <tuple>

namespace dmlbench::experiments {

ImageSource ImageSource::files(std::vector<std::string> paths) {
  ImageSource s;
  s.paths_ = std::make_shared<const std::vector<std::string>>(std::move(paths));
  return s;
}

ImageSource ImageSource::memory(std::vector<Image> images) {
  ImageSource s;
  s.images_ = std::make_shared<const std::vector<Image>>(std::move(images));
  return s;
}

std::size_t ImageSource::size() const { return paths_ ? paths_->size() : images_ ? images_->size() : 0; }

std::string ImageSource::name(std::size_t i) const {
  return paths_ ? (*paths_)[i] : "in-memory image " + std::to_string(i);
}

const Image& ImageSource::get(std::size_t i, int channels, Image& scratch) const {
  if (paths_) return scratch = decode_image((*paths_)[i], channels);
  const Image& image = (*images_)[i];
  if (image.channels == channels) return image;
  return scratch = convert_channels(image, channels);
}

namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

std::uint64_t item_seed(std::uint64_t seed, std::uint64_t epoch, std::uint64_t batch, std::uint64_t position) {
  return splitmix64(splitmix64(splitmix64(splitmix64(seed) ^ epoch) ^ batch) ^ position);
}

PrefetchLoader::PrefetchLoader(ImageSource source, std::vector<std::vector<int>> plan, TransformPipeline pipeline,
                               LoaderOptions options)
    : source_(std::move(source)), plan_(std::move(plan)), pipeline_(std::move(pipeline)), options_(options) {
  if (options_.channels != 1 && options_.channels != 3)
    throw std::invalid_argument("loader: channels must be 1 or 3, not " + std::to_string(options_.channels));
  if (options_.threads < 0 || options_.threads > 256)
    throw std::invalid_argument("loader: threads must lie in 0..256, not " + std::to_string(options_.threads));
  if (options_.prefetch_batches < 1 || options_.prefetch_batches > 1024)
    throw std::invalid_argument("loader: prefetch_batches must lie in 1..1024, not " +
                                std::to_string(options_.prefetch_batches));
  pipeline_.check_channels(options_.channels);
  for (std::size_t b = 0; b < plan_.size(); ++b) {
    if (plan_[b].empty()) throw std::invalid_argument("loader: batch " + std::to_string(b) + " of the plan is empty");
    for (int i : plan_[b])
      if (i < 0 || std::size_t(i) >= source_.size())
        throw std::invalid_argument("loader: batch " + std::to_string(b) + " holds index " + std::to_string(i) +
                                    ", outside the " + std::to_string(source_.size()) + " items of the source");
    max_batch_ = std::max(max_batch_, plan_[b].size());
  }
  if (plan_.empty()) return;
  if (const auto fixed = pipeline_.fixed_output_size()) {
    std::tie(rows_, cols_) = *fixed;
  } else {
    Image scratch;
    const Image& first = source_.get(std::size_t(plan_[0][0]), options_.channels, scratch);
    std::tie(rows_, cols_) = pipeline_.output_size(first.rows, first.cols);
  }
  item_floats_ = std::size_t(options_.channels) * std::size_t(rows_) * std::size_t(cols_);
  if (options_.threads == 0) return;
  slots_.resize(std::size_t(options_.prefetch_batches));
  for (auto& s : slots_) s.data.resize(max_batch_ * item_floats_);
  workers_.reserve(std::size_t(options_.threads));
  for (int t = 0; t < options_.threads; ++t) workers_.emplace_back([this] { work(); });
}

PrefetchLoader::~PrefetchLoader() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  work_ready_.notify_all();
  for (auto& w : workers_) w.join();
}

void PrefetchLoader::process(std::size_t batch, std::size_t position, float* out) const {
  const std::size_t index = std::size_t(plan_[batch][position]);
  Image scratch;
  const Image& image = source_.get(index, options_.channels, scratch);
  std::mt19937_64 rng(item_seed(options_.seed, options_.epoch, batch, position));
  const Image t = pipeline_.transform(image, rng);
  if (t.rows != rows_ || t.cols != cols_)
    throw data_error(source_.name(index) + ": " + std::to_string(t.rows) + " x " + std::to_string(t.cols) +
                     " after the transforms, but the batch holds " + std::to_string(rows_) + " x " +
                     std::to_string(cols_) + " (give the pipeline a fixed output size)");
  pipeline_.to_chw(t, out);
}

void PrefetchLoader::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  const std::size_t depth = slots_.size();
  for (;;) {
    work_ready_.wait(lock, [&] { return stop_ || claim_batch_ >= plan_.size() || claim_batch_ < consumed_ + depth; });
    if (stop_ || claim_batch_ >= plan_.size()) return;
    const std::size_t b = claim_batch_, p = claim_position_;
    Slot& slot = slots_[b % depth];
    if (p == 0) {  // the slot's previous batch was handed out (b - depth < consumed_): it is free
      slot.batch = b;
      slot.remaining = plan_[b].size();
      slot.error = nullptr;
    }
    if (++claim_position_ == plan_[b].size()) ++claim_batch_, claim_position_ = 0;
    float* out = slot.data.data() + p * item_floats_;
    lock.unlock();
    std::exception_ptr error;
    try {
      process(b, p, out);
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    if (error && (!slot.error || p < slot.error_position)) slot.error = error, slot.error_position = p;
    if (--slot.remaining == 0) batch_done_.notify_all();
  }
}

bool PrefetchLoader::next(Batch& batch) {
  if (failed_) std::rethrow_exception(failed_);
  if (consumed_ >= plan_.size()) return false;
  const std::size_t b = consumed_, n = plan_[b].size();
  if (workers_.empty()) {
    batch.data.resize(n * item_floats_);
    try {
      for (std::size_t p = 0; p < n; ++p) process(b, p, batch.data.data() + p * item_floats_);
    } catch (...) {
      failed_ = std::current_exception();
      throw;
    }
  } else {
    std::unique_lock<std::mutex> lock(mutex_);
    Slot& slot = slots_[b % slots_.size()];
    batch_done_.wait(lock, [&] { return slot.batch == b && slot.remaining == 0; });
    if (slot.error) {
      failed_ = slot.error;
      stop_ = true;
      lock.unlock();
      work_ready_.notify_all();
      std::rethrow_exception(failed_);
    }
    std::swap(batch.data, slot.data);
    lock.unlock();
    // The slot is free until consumed_ moves on: give it a full-size buffer back outside the lock.
    slot.data.resize(max_batch_ * item_floats_);
    batch.data.resize(n * item_floats_);
  }
  batch.number = b;
  batch.indices = plan_[b];
  batch.channels = options_.channels;
  batch.rows = rows_;
  batch.cols = cols_;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++consumed_;
  }
  work_ready_.notify_all();
  return true;
}

}  // namespace dmlbench::experiments
