// Shape arithmetic and layout ops on torch. Ops whose output shape comes from data or
// attributes take the IR's shape localised to the rank (KernelCall::outShapes).
#include "runtime/exec/kernels/kernel_table.h"

#include <algorithm>

namespace tapas::runtime {

namespace {
using namespace kernels;

std::vector<Tensor> reshapeTo(const KernelCall& c)
{
    Tensor x = in(c, 0);
    const auto shape = outShape(c, 0, [&] {
        std::vector<int64_t> s = ints(in(c, 1));
        for (size_t i = 0; i < s.size(); ++i)
            if (s[i] == 0 && !c.node.attrInt("allowzero", 0)) s[i] = x.size(int64_t(i));
        return s;
    });
    return one(x.reshape(shape));
}

std::vector<Tensor> unsqueeze(const KernelCall& c)
{
    Tensor x = in(c, 0);
    const auto shape = outShape(c, 0, [&] {
        std::vector<int64_t> axes = axesOf(c, 1);
        const int64_t r = x.dim() + int64_t(axes.size());
        for (int64_t& a : axes) a = normAxis(a, r);
        std::sort(axes.begin(), axes.end());
        Tensor y = x;
        for (int64_t a : axes) y = y.unsqueeze(a);
        return y.sizes().vec();
    });
    return one(x.reshape(shape));
}

std::vector<Tensor> squeeze(const KernelCall& c)
{
    Tensor x = in(c, 0);
    const auto shape = outShape(c, 0, [&] {
        std::vector<int64_t> axes = axesOf(c, 1);
        std::vector<int64_t> s;
        for (int64_t d = 0; d < x.dim(); ++d) {
            bool drop = axes.empty() ? x.size(d) == 1 : false;
            for (int64_t a : axes) drop = drop || normAxis(a, x.dim()) == d;
            if (!drop) s.push_back(x.size(d));
        }
        return s;
    });
    return one(x.reshape(shape));
}

std::vector<Tensor> flatten(const KernelCall& c)
{
    Tensor x = in(c, 0);
    const int64_t axis = normAxis(c.node.attrInt("axis", 1), x.dim());
    int64_t lead = 1;
    for (int64_t d = 0; d < axis; ++d) lead *= x.size(d);
    return one(x.reshape({lead, -1}));
}

std::vector<Tensor> expand(const KernelCall& c)
{
    Tensor x = in(c, 0);
    const auto shape = outShape(c, 0, [&] {
        std::vector<int64_t> t = ints(in(c, 1));
        return at::infer_size(x.sizes(), t);
    });
    return one(x.expand(shape));
}

} // namespace

void registerShapeKernels(KernelTable& t)
{
    t.add("Shape", [](const KernelCall& c) {
        std::vector<int64_t> s = in(c, 0).sizes().vec();
        // A split input is read where it lies: its global size is tp local ones.
        if (!c.strategy.inputs.empty() && c.strategy.inputs[0].kind == TensorLayout::S && c.strategy.inputs[0].dim >= 0 &&
            c.strategy.inputs[0].dim < int(s.size()))
            s[size_t(c.strategy.inputs[0].dim)] *= c.tp;
        const int64_t r = int64_t(s.size());
        int64_t start = std::clamp(normAxis(c.node.attrInt("start", 0), r), int64_t(0), r);
        int64_t end = std::clamp(c.node.attr("end") ? normAxis(c.node.attrInt("end", r), r) : r, start, r);
        return one(torch::tensor(std::vector<int64_t>(s.begin() + start, s.begin() + end), torch::kLong));
    });
    t.add("Size", [](const KernelCall& c) { return one(torch::tensor(in(c, 0).numel())); });
    t.add("Reshape", reshapeTo);
    t.add("Flatten", flatten);
    t.add("Squeeze", squeeze);
    t.add("Unsqueeze", unsqueeze);
    t.add("Transpose", [](const KernelCall& c) {
        Tensor x = in(c, 0);
        std::vector<int64_t> perm = c.node.attrInts("perm");
        if (perm.empty())
            for (int64_t d = x.dim() - 1; d >= 0; --d) perm.push_back(d);
        return one(x.permute(perm));
    });
    t.add("Expand", expand);
    t.add("Tile", [](const KernelCall& c) { return one(in(c, 0).repeat(ints(in(c, 1)))); });
}

} // namespace tapas::runtime
