#include "dmlbench/experiments/embedding_model.hpp"

#include "dmlbench/experiments/atomic_file.hpp"
#include "dmlbench/experiments/idx_file.hpp"
#include "dmlbench/experiments/mnist_embedding_net.hpp"
#include "dmlbench/experiments/nearest_name.hpp"
#include "dmlbench/experiments/resnet.hpp"
#include "dmlbench/experiments/safetensors_file.hpp"
#include "dmlbench/experiments/small_conv_net.hpp"

#include <map>
#include <set>
#include <sstream>
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

void EmbeddingModel::train() {
  module_->train(true);
  if (!freeze_bn_) return;
  for (const auto& m : module_->modules())
    if (m->as<torch::nn::BatchNorm1d>() || m->as<torch::nn::BatchNorm2d>() || m->as<torch::nn::BatchNorm3d>())
      m->eval();
}

void EmbeddingModel::set_freeze_bn(bool freeze) {
  freeze_bn_ = freeze;
  if (module_->is_training()) train();
}

void EmbeddingModel::save(const std::string& path) const { write_file_atomically(path, saved_bytes()); }

std::string EmbeddingModel::saved_bytes() const {
  torch::serialize::OutputArchive a;
  module_->save(a);
  std::ostringstream bytes;
  a.save_to(bytes);
  return bytes.str();
}

void EmbeddingModel::load(const std::string& path) {
  torch::serialize::InputArchive a;
  a.load_from(path);
  module_->load(a);
}

namespace {

std::string shape_text(const torch::Tensor& t) {
  std::ostringstream s;
  s << t.sizes();
  return s.str();
}

// The EmbeddingModel of a TORCH_MODULE network with forward(x) and the given head parameters.
template <class Net>
EmbeddingModel wrap(Net net, std::vector<torch::Tensor> head, const std::string& name) {
  return EmbeddingModel(net.ptr(), [net](const torch::Tensor& x) mutable { return net->forward(x); },
                        std::move(head), name);
}

}  // namespace

void EmbeddingModel::load_pretrained(const std::string& path) {
  const NamedTensors file = read_safetensors(path);
  const auto arch = file.metadata.find("arch");
  if (arch != file.metadata.end() && arch->second != name_)
    throw data_error(path + ": holds weights of " + arch->second + ", not of model " + name_);
  std::map<std::string, const torch::Tensor*> given;
  for (const auto& [n, t] : file.tensors)
    if (n.rfind("fc.", 0) != 0) given[n] = &t;  // torchvision's classifier: replaced by the embedding head
  std::set<const void*> head;
  for (const auto& t : head_) head.insert(t.unsafeGetTensorImpl());
  std::vector<std::pair<torch::Tensor, const torch::Tensor*>> plan;
  auto take = [&](const std::string& n, const torch::Tensor& dst) {
    if (head.count(dst.unsafeGetTensorImpl())) return;
    const auto it = given.find(n);
    if (it == given.end()) throw data_error(path + ": tensor " + n + " of model " + name_ + " is missing");
    const torch::Tensor& src = *it->second;
    if (src.sizes() != dst.sizes())
      throw data_error(path + ": tensor " + n + " has shape " + shape_text(src) + ", model " + name_ + " needs " +
                       shape_text(dst));
    if (src.is_floating_point() != dst.is_floating_point())
      throw data_error(path + ": tensor " + n + " is " + std::string(c10::toString(src.scalar_type())) + ", model " +
                       name_ + " needs " + std::string(c10::toString(dst.scalar_type())));
    plan.emplace_back(dst, &src);
    given.erase(it);
  };
  for (const auto& p : module_->named_parameters()) take(p.key(), p.value());
  for (const auto& b : module_->named_buffers()) take(b.key(), b.value());
  if (!given.empty())
    throw data_error(path + ": tensor " + given.begin()->first + " is not a tensor of model " + name_ +
                     (given.size() > 1 ? " (and " + std::to_string(given.size() - 1) + " more)" : ""));
  torch::NoGradGuard no_grad;
  for (auto& [dst, src] : plan) dst.copy_(*src);
}

std::vector<std::string> embedding_model_names() { return model_archs().names(); }

EmbeddingModel make_embedding_model(ModelArch arch, int embedding_dim, const std::string& kernels, int in_channels) {
  const std::string& name = model_archs().name_of(arch);
  if (embedding_dim < 1 || in_channels < 0)
    throw std::invalid_argument("model " + name + ": embedding_dim must be >= 1 and in_channels >= 0 (0: the "
                                "model's default), got " + std::to_string(embedding_dim) + " and " +
                                std::to_string(in_channels));
  switch (arch) {
    case ModelArch::lcc_mnist: {
      if (in_channels != 0 && in_channels != 1)
        throw std::invalid_argument("model lcc-mnist takes 1 x 28 x 28 images, not " + std::to_string(in_channels) +
                                    " channels");
      MnistEmbeddingNet net(embedding_dim, parse_net_kernels(kernels));
      return wrap(net, net->fc2->parameters(), name);
    }
    case ModelArch::small_conv: {
      SmallConvNet net(embedding_dim, in_channels == 0 ? 1 : in_channels);
      return wrap(net, net->embedding->parameters(), name);
    }
    case ModelArch::resnet18:
    case ModelArch::resnet50: {
      ResNet net(arch == ModelArch::resnet18 ? 18 : 50, embedding_dim, in_channels == 0 ? 3 : in_channels);
      return wrap(net, net->embedding->parameters(), name);
    }
  }
  throw std::logic_error("make_embedding_model: a model without a case");
}

EmbeddingModel make_embedding_model(const std::string& name, int embedding_dim, const std::string& kernels,
                                    int in_channels) {
  return make_embedding_model(model_archs().named(name), embedding_dim, kernels, in_channels);
}

}  // namespace dmlbench::experiments
