#pragma once
// INTERNAL to runtime/exec (includes torch): one Adam step over contiguous fp32 buffers in a
// single pass (read weight, gradient and both moments once, write three), where the same
// update as tensor expressions makes about ten passes and five temporaries. Element-wise, so a
// shard updates exactly as its slice of the whole weight would.
#include <torch/types.h>

#include <cstdint>

namespace tapas::runtime {

struct AdamSettings {
    double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
};

// `step` counts from 1 (bias correction). All four tensors contiguous fp32 of one size;
// throws std::invalid_argument otherwise.
void adamUpdate(torch::Tensor& weight, const torch::Tensor& grad, torch::Tensor& m, torch::Tensor& v, int64_t step,
                const AdamSettings& a);

} // namespace tapas::runtime
