#pragma once
// INTERNAL to runtime (includes torch): the torch compositions the worker runs for ONNX ops that
// torch has no one function for, shared with `tapas-worker calibrate` (runtime/calibrate), which
// times exactly these so the cost model prices what a step runs.
#include <torch/types.h>

#include <optional>

namespace tapas::runtime {

// x limited to [lo, hi] (a missing bound: none on that side): Clip with bounds known as numbers,
// HardSigmoid, and a Max or Min against a constant scalar (tf2onnx's ReLU). torch's hardtanh,
// not clamp: clamp's backward goes through torch's CPU `where`, which branches per element, so
// with signs in random order it mispredicts about every other element and runs 5-10x a relu's
// time, a time that depends on the data (a convolution's spatially smooth output runs it about
// twice as fast as the calibration's random one). hardtanh's backward is a vectorized blend
// whose time does not depend on the data; its values are clamp's, its gradient PyTorch's ReLU6
// and Hardtanh's (zero at the bounds themselves).
torch::Tensor clampBetween(const torch::Tensor& x, std::optional<double> lo, std::optional<double> hi);

// BatchNormalization in inference form, as the worker trains it (the stored statistics, the same
// function on every batch split): (x - mean) / sqrt(var + eps) * scale + shift, each per-channel
// tensor ([channels]) broadcast over dim 1 of x. Four broadcast ops and their backward, which
// reduces the scale's and shift's gradients.
torch::Tensor inferenceBatchNorm(const torch::Tensor& x, const torch::Tensor& scale, const torch::Tensor& shift,
                                 const torch::Tensor& mean, const torch::Tensor& var, double eps);

} // namespace tapas::runtime
