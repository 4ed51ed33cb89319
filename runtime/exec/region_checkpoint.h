#pragma once
// INTERNAL to runtime/exec (includes torch): only the exec .cpp files include this header.
//
// Activation checkpointing of one region of the graph (Megatron-LM's checkpointed core
// attention, Korthikanti et al. 2022): the region runs without recording for autograd, so none
// of its insides outlive the forward; autograd keeps only its inputs. Right before the backward
// needs the region, it runs again on those inputs, recorded this time, and the gradients flow
// through that rerun. The rerun is the same ops on the same values, so the outputs and the
// gradients are the same floats as keeping everything.
#include <torch/torch.h>

#include <functional>
#include <vector>

namespace tapas::runtime {

using RegionFunction = std::function<std::vector<torch::Tensor>(const std::vector<torch::Tensor>&)>;

// `fn(inputs)` as one autograd node whose backward reruns `fn`. `fn` must give the same values
// for the same inputs (no randomness) and must stay callable until the backward has run.
// Undefined inputs are passed through as undefined.
std::vector<torch::Tensor> runCheckpointed(RegionFunction fn, const std::vector<torch::Tensor>& inputs);

} // namespace tapas::runtime
