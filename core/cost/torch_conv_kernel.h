#pragma once
// Which kernel libtorch (1.13, the worker's) runs for a float convolution on a CPU rank with one
// intra-op thread: oneDNN's, or its own (unfold + GEMM per sample, col2im in the backward).
// torch decides by the shapes (ConvParams::use_mkldnn); the two differ several times in fixed
// cost (a 1-D convolution of 2 x 129 x 3 samples takes 3x the time on oneDNN that one sample
// with twice the output channels takes on torch's own, for the same FLOPs), so the cost model
// prices each convolution by the kernel it runs, and the calibration names its cases so.
// Plain data, no torch: core/cost and runtime/calibrate share it.
#include <cstdint>
#include <vector>

namespace tapas {

struct ConvShape {
    std::vector<int64_t> input;  // [N, C, spatial...] on this device
    std::vector<int64_t> kernel; // spatial kernel dims
    std::vector<int64_t> strides, dilations; // empty: all 1
    int64_t groups = 1;
    bool transposed = false;
};

// torch's rule for float CPU input with one thread, a 1-D convolution taken as the 2-D one of
// height 1 torch runs: oneDNN when (strided or dilated or N >= 16 or the kernel is not 1x1) and
// (groups > 1 or both kernel dims above 3 or N > 1 or the input above 20480 elements).
bool torchConvRunsOneDnn(const ConvShape& s);

} // namespace tapas
