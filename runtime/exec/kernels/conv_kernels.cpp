// Convolutions and pooling on torch; ONNX pads that are not symmetric become an explicit pad.
#include "runtime/exec/kernels/kernel_table.h"

#include <limits>

namespace tapas::runtime {

namespace {
using namespace kernels;

std::vector<int64_t> spatialAttr(const KernelCall& c, const char* name, size_t n, int64_t def)
{
    std::vector<int64_t> v = c.node.attrInts(name);
    if (v.empty()) v.assign(n, def);
    return v;
}

// ONNX pads [b1..bn, e1..en]: symmetric ones go to the op, the rest as explicit padding.
Tensor padAsym(const Tensor& x, const std::vector<int64_t>& pads, size_t n, std::vector<int64_t>& sym, double value)
{
    sym.assign(n, 0);
    if (pads.empty()) return x;
    std::vector<int64_t> extra; // torch order: last dim first, (begin, end)
    bool any = false;
    for (size_t i = 0; i < n; ++i) sym[i] = std::min(pads[i], pads[i + n]);
    for (size_t i = n; i-- > 0;) {
        extra.push_back(pads[i] - sym[i]);
        extra.push_back(pads[i + n] - sym[i]);
        any = any || extra[extra.size() - 1] || extra[extra.size() - 2];
    }
    return any ? torch::constant_pad_nd(x, extra, value) : x;
}

std::vector<Tensor> conv(const KernelCall& c, bool transposed)
{
    Tensor x = in(c, 0), w = in(c, 1);
    const size_t n = size_t(x.dim() - 2);
    if (c.node.attrString("auto_pad", "NOTSET") != "NOTSET" && c.node.attrString("auto_pad", "NOTSET") != "VALID")
        fail(c, "auto_pad SAME is not supported; export with explicit pads");
    std::vector<int64_t> sym;
    x = padAsym(x, c.node.attrInts("pads"), n, sym, 0);
    int64_t groups = c.node.attrInt("group", 1);
    // Grouped convolutions split over channels keep whole groups on every rank.
    if (groups > 1 && !c.strategy.inputs.empty() && c.strategy.inputs[0].kind == TensorLayout::S &&
        c.strategy.inputs[0].dim == 1)
        groups /= c.tp;
    std::vector<int64_t> outPad = spatialAttr(c, "output_padding", n, 0);
    Tensor b = has(c, 2) ? c.in[2] : Tensor();
    return one(at::convolution(x, w, b, spatialAttr(c, "strides", n, 1), sym, spatialAttr(c, "dilations", n, 1),
                               transposed, transposed ? outPad : std::vector<int64_t>(n, 0), groups));
}

std::vector<Tensor> pool(const KernelCall& c, bool max)
{
    Tensor x = in(c, 0);
    const size_t n = size_t(x.dim() - 2);
    const std::vector<int64_t> k = c.node.attrInts("kernel_shape");
    std::vector<int64_t> sym;
    x = padAsym(x, c.node.attrInts("pads"), n, sym, max ? -std::numeric_limits<double>::infinity() : 0);
    const auto s = spatialAttr(c, "strides", n, 1);
    const bool ceil = c.node.attrInt("ceil_mode", 0) != 0;
    if (n != 2) fail(c, "only 2-D pooling is supported");
    if (max) return one(torch::max_pool2d(x, k, s, sym, spatialAttr(c, "dilations", n, 1), ceil));
    return one(torch::avg_pool2d(x, k, s, sym, ceil, c.node.attrInt("count_include_pad", 0) != 0));
}

} // namespace

void registerConvKernels(KernelTable& t)
{
    t.add("Conv", [](const KernelCall& c) { return conv(c, false); });
    t.add("ConvTranspose", [](const KernelCall& c) { return conv(c, true); });
    t.add("MaxPool", [](const KernelCall& c) { return pool(c, true); });
    t.add("AveragePool", [](const KernelCall& c) { return pool(c, false); });
    t.add("GlobalAveragePool", [](const KernelCall& c) {
        Tensor x = in(c, 0);
        std::vector<int64_t> dims;
        for (int64_t d = 2; d < x.dim(); ++d) dims.push_back(d);
        return one(x.mean(dims, true));
    });
    t.add("GlobalMaxPool", [](const KernelCall& c) {
        Tensor x = in(c, 0);
        std::vector<int64_t> dims;
        for (int64_t d = 2; d < x.dim(); ++d) dims.push_back(d);
        return one(x.amax(dims, true));
    });
}

} // namespace tapas::runtime
