// BatchNorm (inference form), InstanceNorm, LayerNorm and Softmax on torch.
#include "runtime/exec/kernels/kernel_table.h"
#include "runtime/exec/kernels/torch_forms.h"

#include <algorithm>

namespace tapas::runtime {

namespace {
using namespace kernels;

std::vector<Tensor> softmax(const KernelCall& c, bool log)
{
    Tensor x = in(c, 0);
    const bool legacy = c.graph.opsetVersion() > 0 && c.graph.opsetVersion() < 13;
    int64_t axis = normAxis(c.node.attrInt("axis", legacy ? 1 : -1), x.dim());
    if (!legacy) return one(log ? torch::log_softmax(x, axis) : torch::softmax(x, axis));
    const auto shape = x.sizes().vec();
    Tensor flat = x.flatten(axis);
    Tensor y = log ? torch::log_softmax(flat, -1) : torch::softmax(flat, -1);
    return one(y.reshape(shape));
}

// A per-channel parameter of a normalization whose input the plan splits over the channels:
// this rank's contiguous part when the parameter is still whole (statistics are constants the
// plan keeps replicated); as it is when it already matches.
Tensor channelPart(const KernelCall& c, const Tensor& p, int64_t channels)
{
    if (p.numel() == channels) return p.reshape({-1});
    if (c.tp > 1 && p.numel() == channels * c.tp) return p.reshape({-1}).narrow(0, c.tpIndex * channels, channels);
    fail(c, "a per-channel parameter has " + std::to_string(p.numel()) + " values for " + std::to_string(channels) +
                " channels on this rank");
}

std::vector<Tensor> batchNorm(const KernelCall& c)
{
    // Inference form with the stored statistics: the same function on every batch split.
    Tensor x = in(c, 0);
    const int64_t ch = x.size(1);
    auto p = [&](size_t i) { return channelPart(c, in(c, i), ch); };
    Tensor y = inferenceBatchNorm(x, p(1), p(2), p(3), p(4), c.node.attrFloat("epsilon", 1e-5));
    std::vector<Tensor> out{y};
    for (size_t o = 1; o < c.node.outputs.size(); ++o) out.push_back(c.in[std::min<size_t>(o + 2, 4)]);
    return out;
}

// Normalizes each (sample, channel) over the spatial dims, then the per-channel affine.
std::vector<Tensor> instanceNorm(const KernelCall& c)
{
    Tensor x = in(c, 0);
    if (x.dim() < 3) fail(c, "expects a rank of at least 3 (N, C, spatial...)");
    std::vector<int64_t> dims, bshape(size_t(x.dim()), 1);
    for (int64_t d = 2; d < x.dim(); ++d) dims.push_back(d);
    bshape[1] = -1;
    const double eps = c.node.attrFloat("epsilon", 1e-5);
    Tensor mean = x.mean(dims, true);
    Tensor y = (x - mean) * ((x - mean).pow(2).mean(dims, true) + eps).rsqrt();
    return one(y * channelPart(c, in(c, 1), x.size(1)).reshape(bshape) + channelPart(c, in(c, 2), x.size(1)).reshape(bshape));
}

// Whether any node or the graph reads output o of the node.
bool outputRead(const KernelCall& c, size_t o)
{
    const TensorId t = c.node.output(o);
    if (t == kNoTensor) return false;
    if (!c.graph.tensor(t).consumers.empty()) return true;
    return std::find(c.graph.outputs.begin(), c.graph.outputs.end(), t) != c.graph.outputs.end();
}

std::vector<Tensor> layerNorm(const KernelCall& c)
{
    Tensor x = in(c, 0);
    const int64_t axis = normAxis(c.node.attrInt("axis", -1), x.dim());
    const double eps = c.node.attrFloat("epsilon", 1e-5);
    std::vector<int64_t> dims;
    for (int64_t d = axis; d < x.dim(); ++d) dims.push_back(d);
    const std::vector<int64_t> normalized(x.sizes().begin() + axis, x.sizes().end());
    int64_t count = 1;
    for (int64_t d : normalized) count *= d;
    auto whole = [&](size_t i) { return !has(c, i) || c.in[i].numel() == count; };
    // One torch kernel each way when nothing reads the mean and inverse deviation (their
    // gradients would not flow through it) and the affine parameters cover the normalised dims.
    if (!outputRead(c, 1) && !outputRead(c, 2) && whole(1) && whole(2)) {
        const Tensor w = has(c, 1) ? c.in[1].reshape(normalized) : Tensor();
        const Tensor b = has(c, 2) ? c.in[2].reshape(normalized) : Tensor();
        return one(torch::layer_norm(x, normalized, w, b, eps));
    }
    Tensor mean = x.mean(dims, true);
    Tensor inv = ((x - mean).pow(2).mean(dims, true) + eps).rsqrt();
    Tensor y = (x - mean) * inv;
    if (has(c, 1)) y = y * c.in[1];
    if (has(c, 2)) y = y + c.in[2];
    return {y, mean, inv};
}

} // namespace

void registerNormalizationKernels(KernelTable& t)
{
    t.add("BatchNormalization", batchNorm);
    t.add("InstanceNormalization", instanceNorm);
    t.add("LayerNormalization", layerNorm);
    t.add("Softmax", [](const KernelCall& c) { return softmax(c, false); });
    t.add("LogSoftmax", [](const KernelCall& c) { return softmax(c, true); });
}

} // namespace tapas::runtime
