// The embedding networks a run config names ([LCC] App. C, [LCC] Sec 5.2.2, [XHN] Sec 6), behind one value type the
// trainer drives: forward, train/eval, parameter groups (the embedding head may have its own learning rate),
// checkpoints and pretrained weights.
#pragma once

#include "dmlbench/experiments/model_arch.hpp"

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
  void train();  // training mode; batch-norm layers stay in eval mode while freeze_bn is set
  void eval() { module_->eval(); }
  // Frozen batch norm: every BatchNorm layer keeps eval mode (running statistics used, not updated) while the rest
  // trains; its affine weight and bias still train. Applies at once when the model is in training mode.
  void set_freeze_bn(bool freeze);
  bool freeze_bn() const { return freeze_bn_; }
  void to(torch::Device d) { module_->to(d); }
  std::vector<torch::Tensor> parameters() const { return module_->parameters(); }
  std::vector<torch::Tensor> head_parameters() const { return head_; }
  std::vector<torch::Tensor> backbone_parameters() const;  // every parameter that is not the head's
  void save(const std::string& path) const;                 // checkpoint (torch::save of the module)
  std::string saved_bytes() const;                          // the bytes save() writes
  void load(const std::string& path);                       // a checkpoint written by save()
  // Weights written by scripts/export_torchvision_weights.py (safetensors_file.hpp): every backbone parameter and
  // buffer by torchvision name; the file's fc.* (torchvision's classifier) is ignored, the head keeps its values.
  // A tensor missing from the file, one the model does not have, a shape or kind (floating / integer) mismatch, or
  // a file written for another architecture (its metadata "arch") throws data_error naming the file and the tensor;
  // nothing is loaded then.
  void load_pretrained(const std::string& path);
  torch::nn::Module& module() { return *module_; }
  const std::string& name() const { return name_; }

 private:
  std::shared_ptr<torch::nn::Module> module_;
  std::function<torch::Tensor(const torch::Tensor&)> forward_;
  std::vector<torch::Tensor> head_;
  std::string name_;
  bool freeze_bn_ = false;
};

// Model names: lcc-mnist ([LCC] App. C, mnist_embedding_net.hpp; `kernels` fused | stock; 1 x 28 x 28 only),
// small-conv (small_conv_net.hpp; head: embedding), resnet18 and resnet50 (resnet.hpp, torchvision layout; head:
// embedding). `kernels` matters to lcc-mnist only. in_channels 0: the model's default (1 for lcc-mnist and small-conv,
// 3 for the ResNets). Unknown names, embedding_dim < 1 and in_channels < 0 throw std::invalid_argument (an unknown
// name's message lists the valid ones).
std::vector<std::string> embedding_model_names();
EmbeddingModel make_embedding_model(ModelArch arch, int embedding_dim, const std::string& kernels, int in_channels);
// The same by name (the parser's edge: tests, a caller with a typed name): model_archs().named(name) first.
EmbeddingModel make_embedding_model(const std::string& name, int embedding_dim, const std::string& kernels,
                                    int in_channels);

}  // namespace dmlbench::experiments
