// The embedding networks a run config names ([LCC] App. C, [LCC] Sec 5.2.2, [XHN] Sec 6), behind one value type the
// trainer drives: forward, train/eval, parameter groups (the embedding head may have its own learning rate),
// checkpoints and pretrained weights.
#pragma once

#include <torch/torch.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace dmlbench::experiments {

class EmbeddingModel {
 public:
  EmbeddingModel(std::shared_ptr<torch::nn::Module> module, std::function<torch::Tensor(const torch::Tensor&)> forward,
                 std::vector<torch::Tensor> head, std::string name);
  torch::Tensor forward(const torch::Tensor& x) { return forward_(x); }
  void train() { module_->train(true); }
  void eval() { module_->eval(); }
  void to(torch::Device d) { module_->to(d); }
  std::vector<torch::Tensor> parameters() const { return module_->parameters(); }
  std::vector<torch::Tensor> head_parameters() const { return head_; }
  std::vector<torch::Tensor> backbone_parameters() const;  // every parameter that is not the head's
  void save(const std::string& path) const;                 // checkpoint (torch::save of the module)
  void load(const std::string& path);                       // a checkpoint written by save()
  // weights written by scripts/export_torchvision_weights.py (the backbone's tensors by torchvision name)
  void load_pretrained(const std::string& path);
  torch::nn::Module& module() { return *module_; }
  const std::string& name() const { return name_; }

 private:
  std::shared_ptr<torch::nn::Module> module_;
  std::function<torch::Tensor(const torch::Tensor&)> forward_;
  std::vector<torch::Tensor> head_;
  std::string name_;
};

// Model names: lcc-mnist ([LCC] App. C, mnist_embedding_net.hpp; `kernels` fused | stock), small-conv, resnet18,
// resnet50. in_channels 0: the model's default (1 for lcc-mnist). Unknown names throw std::invalid_argument naming the
// valid ones.
std::vector<std::string> embedding_model_names();
EmbeddingModel make_embedding_model(const std::string& name, int embedding_dim, const std::string& kernels,
                                    int in_channels);

}  // namespace dmlbench::experiments
