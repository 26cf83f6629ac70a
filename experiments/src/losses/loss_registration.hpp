// How a loss's file registers itself: its spec, and where the engine is built its implementation. The
// torch-free library compiles each file in experiments/src/losses/ with DMLBENCH_LOSS_SPECS_ONLY, where
// DMLBENCH_LOSS_IMPLEMENTATION is 0, the implementation block is left out and the spec is registered alone; the
// engine compiles it whole.
#pragma once

#include "dmlbench/experiments/loss_spec.hpp"
#include "dmlbench/experiments/run_config.hpp"

#ifdef DMLBENCH_LOSS_SPECS_ONLY
#define DMLBENCH_LOSS_IMPLEMENTATION 0
#define DMLBENCH_REGISTER_LOSS(spec_function, Impl)                                                     \
  namespace {                                                                                           \
  const bool registered_loss = (::dmlbench::experiments::register_loss_spec(spec_function()), true); \
  }
#else
#define DMLBENCH_LOSS_IMPLEMENTATION 1
#include "dmlbench/experiments/training_loss.hpp"
#define DMLBENCH_REGISTER_LOSS(spec_function, Impl)                                                      \
  namespace {                                                                                            \
  const bool registered_loss =                                                                           \
      (::dmlbench::experiments::register_loss(spec_function(),                                          \
                                              [](const ::dmlbench::experiments::LossSetup& s)            \
                                                  -> std::unique_ptr<::dmlbench::experiments::TrainingLoss> { \
                                                return std::make_unique<Impl>(s);                        \
                                              }),                                                        \
       true);                                                                                            \
  }
#endif
