#include "dmlbench/experiments/embedding_model.hpp"

#include "dmlbench/experiments/mnist_embedding_net.hpp"

#include <set>
#include <stdexcept>

namespace dmlbench::experiments {

EmbeddingModel::EmbeddingModel(std::shared_ptr<torch::nn::Module> module,
                               std::function<torch::Tensor(const torch::Tensor&)> forward,
                               std::vector<torch::Tensor> head, std::string name)
    : module_(std::move(module)), forward_(std::move(forward)), head_(std::move(head)), name_(std::move(name)) {}

std::vector<torch::Tensor> EmbeddingModel::backbone_parameters() const {
  std::set<const void*> h;
  for (const auto& t : head_) h.insert(t.unsafeGetTensorImpl());
  std::vector<torch::Tensor> out;
  for (const auto& p : module_->parameters())
    if (!h.count(p.unsafeGetTensorImpl())) out.push_back(p);
  return out;
}

void EmbeddingModel::save(const std::string& path) const {
  torch::serialize::OutputArchive a;
  module_->save(a);
  a.save_to(path);
}

void EmbeddingModel::load(const std::string& path) {
  torch::serialize::InputArchive a;
  a.load_from(path);
  module_->load(a);
}

void EmbeddingModel::load_pretrained(const std::string& path) {
  throw std::invalid_argument("model " + name_ + " takes no pretrained weights (" + path + ")");
}

std::vector<std::string> embedding_model_names() { return {"lcc-mnist"}; }

EmbeddingModel make_embedding_model(const std::string& name, int embedding_dim, const std::string& kernels,
                                    int in_channels) {
  if (name == "lcc-mnist") {
    if (in_channels != 0 && in_channels != 1)
      throw std::invalid_argument("model lcc-mnist takes 1 x 28 x 28 images, not " + std::to_string(in_channels) +
                                  " channels");
    MnistEmbeddingNet net(embedding_dim, parse_net_kernels(kernels));
    return EmbeddingModel(net.ptr(), [net](const torch::Tensor& x) mutable { return net->forward(x); },
                          net->fc2->parameters(), name);
  }
  std::string all;
  for (const auto& n : embedding_model_names()) all += (all.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown model '" + name + "' (" + all + ")");
}

}  // namespace dmlbench::experiments
