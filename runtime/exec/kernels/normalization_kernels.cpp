// BatchNorm (inference form), LayerNorm and Softmax on torch.
#include "runtime/exec/kernels/kernel_table.h"

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

std::vector<Tensor> batchNorm(const KernelCall& c)
{
    // Inference form with the stored statistics: the same function on every batch split.
    Tensor x = in(c, 0);
    std::vector<int64_t> bshape(size_t(x.dim()), 1);
    bshape[1] = -1;
    const double eps = c.node.attrFloat("epsilon", 1e-5);
    Tensor y = (x - in(c, 3).reshape(bshape)) / (in(c, 4).reshape(bshape) + eps).sqrt() * in(c, 1).reshape(bshape) +
               in(c, 2).reshape(bshape);
    std::vector<Tensor> out{y};
    for (size_t o = 1; o < c.node.outputs.size(); ++o) out.push_back(c.in[std::min<size_t>(o + 2, 4)]);
    return out;
}

std::vector<Tensor> layerNorm(const KernelCall& c)
{
    Tensor x = in(c, 0);
    const int64_t axis = normAxis(c.node.attrInt("axis", -1), x.dim());
    const double eps = c.node.attrFloat("epsilon", 1e-5);
    std::vector<int64_t> dims;
    for (int64_t d = axis; d < x.dim(); ++d) dims.push_back(d);
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
    t.add("LayerNormalization", layerNorm);
    t.add("Softmax", [](const KernelCall& c) { return softmax(c, false); });
    t.add("LogSoftmax", [](const KernelCall& c) { return softmax(c, true); });
    t.notRun({"InstanceNormalization", "GroupNormalization", "MeanVarianceNormalization", "LRN", "Hardmax",
              "LpNormalization", "SimplifiedLayerNormalization", "SkipLayerNormalization"},
             "no torch kernel for it yet");
}

} // namespace tapas::runtime
