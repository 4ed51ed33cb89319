// Concat, Split, Slice, Gather (vocabulary-parallel included), Scatter, Pad and Trilu on torch.
#include "runtime/exec/kernels/kernel_table.h"

#include <algorithm>

namespace tapas::runtime {

namespace {
using namespace kernels;

std::vector<Tensor> split(const KernelCall& c)
{
    Tensor x = in(c, 0);
    const int64_t axis = normAxis(c.node.attrInt("axis", 0), x.dim());
    std::vector<int64_t> sizes;
    bool known = true;
    for (size_t o = 0; o < c.node.outputs.size(); ++o) {
        if (o < c.outShapes.size() && c.outShapes[o]) sizes.push_back((*c.outShapes[o])[size_t(axis)]);
        else known = false;
    }
    if (!known) {
        sizes = has(c, 1) ? ints(c.in[1]) : c.node.attrInts("split");
        if (sizes.empty()) sizes.assign(c.node.outputs.size(), x.size(axis) / int64_t(c.node.outputs.size()));
    }
    return x.split_with_sizes(sizes, axis);
}

std::vector<Tensor> slice(const KernelCall& c)
{
    Tensor x = in(c, 0);
    std::vector<int64_t> starts, ends, axes, steps;
    if (has(c, 1)) {
        starts = ints(c.in[1]);
        ends = ints(in(c, 2));
        if (has(c, 3)) axes = ints(c.in[3]);
        if (has(c, 4)) steps = ints(c.in[4]);
    } else {
        starts = c.node.attrInts("starts");
        ends = c.node.attrInts("ends");
        axes = c.node.attrInts("axes");
    }
    if (axes.empty())
        for (size_t i = 0; i < starts.size(); ++i) axes.push_back(int64_t(i));
    steps.resize(starts.size(), 1);
    // A split input sliced along its split axis holds its share of each of k equal parts side by
    // side (the producer was interleaved k ways): take this device's share of the part.
    const int packedAxis = c.tp > 1 && !c.strategy.inputs.empty() && c.strategy.inputs[0].kind == TensorLayout::S
                               ? c.strategy.inputs[0].dim
                               : -1;
    for (size_t i = 0; i < starts.size(); ++i) {
        const int64_t a = normAxis(axes[i], x.dim()), n = x.size(a), st = steps[i];
        if (st == 0) fail(c, "slice step 0");
        if (a == packedAxis) {
            const int64_t whole = n * c.tp;
            int64_t s = std::min(starts[i], whole), e = std::min(ends[i], whole);
            if (s < 0) s += whole;
            if (e < 0) e += whole;
            const int64_t extent = e - s;
            if (st != 1 || extent <= 0 || whole % extent != 0 || s % extent != 0 || n % (whole / extent) != 0)
                fail(c, "a split axis can only be sliced into equal parts");
            const int64_t local = n / (whole / extent);
            x = x.slice(a, (s / extent) * local, (s / extent + 1) * local);
            continue;
        }
        auto clampTo = [](int64_t v, int64_t lo, int64_t hi) { return std::max(lo, std::min(hi, v)); };
        int64_t s = std::max<int64_t>(-n - 1, std::min<int64_t>(n + 1, starts[i]));
        int64_t e = std::max<int64_t>(-n - 1, std::min<int64_t>(n + 1, ends[i]));
        if (s < 0) s += n;
        if (e < 0) e += n;
        if (st > 0) {
            s = clampTo(s, 0, n);
            e = clampTo(e, 0, n);
            x = x.slice(a, s, std::max(s, e), st);
        } else {
            s = clampTo(s, 0, n - 1);
            e = clampTo(e, -1, n - 1);
            std::vector<int64_t> idx;
            for (int64_t j = s; j > e; j += st) idx.push_back(j);
            x = x.index_select(a, torch::tensor(idx, torch::kLong));
        }
    }
    return one(x);
}

std::vector<Tensor> gather(const KernelCall& c)
{
    Tensor data = in(c, 0), idx = in(c, 1).to(torch::kLong);
    const int64_t axis = normAxis(c.node.attrInt("axis", 0), data.dim());
    const int64_t rows = data.size(axis);
    // Vocabulary-parallel lookup: this rank holds rows [offset, offset + rows); others add zeros.
    const bool vocabSplit = c.tp > 1 && !c.strategy.inputs.empty() && c.strategy.inputs[0].kind == TensorLayout::S &&
                            c.strategy.inputs[0].dim == axis;
    const int64_t whole = vocabSplit ? rows * c.tp : rows;
    idx = torch::where(idx < 0, idx + whole, idx);
    Tensor mask;
    if (vocabSplit) {
        const int64_t offset = c.tpIndex * rows;
        mask = (idx >= offset) & (idx < offset + rows);
        idx = (idx - offset).clamp(0, rows - 1);
    }
    std::vector<int64_t> shape;
    for (int64_t d = 0; d < axis; ++d) shape.push_back(data.size(d));
    for (int64_t s : idx.sizes()) shape.push_back(s);
    for (int64_t d = axis + 1; d < data.dim(); ++d) shape.push_back(data.size(d));
    Tensor y = data.index_select(axis, idx.reshape({-1})).reshape(shape);
    if (vocabSplit) {
        std::vector<int64_t> ms(size_t(axis), 1);
        for (int64_t s : idx.sizes()) ms.push_back(s);
        for (int64_t d = axis + 1; d < data.dim(); ++d) ms.push_back(1);
        y = y * mask.reshape(ms).to(y.scalar_type());
    }
    return one(y);
}

std::vector<Tensor> scatterElements(const KernelCall& c)
{
    Tensor x = in(c, 0);
    const int64_t axis = normAxis(c.node.attrInt("axis", 0), x.dim());
    Tensor idx = in(c, 1).to(torch::kLong);
    idx = torch::where(idx < 0, idx + x.size(axis), idx);
    const std::string red = c.node.attrString("reduction", "none");
    if (red == "add") return one(x.scatter_add(axis, idx, in(c, 2)));
    return one(x.scatter(axis, idx, in(c, 2)));
}

// Reflect and edge padding as an index_select per padded dim (any rank, any dim; autograd
// scatters the gradient back through the indices). Negative pads crop.
Tensor padByIndex(const KernelCall& c, Tensor x, const std::vector<int64_t>& pads, bool reflect)
{
    const size_t n = pads.size() / 2;
    for (size_t d = 0; d < n; ++d) {
        const int64_t b = pads[d], e = pads[d + n], len = x.size(int64_t(d));
        if (b == 0 && e == 0) continue;
        if (reflect && (b >= len || e >= len))
            fail(c, "reflect padding of " + std::to_string(std::max(b, e)) + " on a dim of " + std::to_string(len) +
                        " (it must be smaller than the dim)");
        std::vector<int64_t> idx;
        for (int64_t i = -b; i < len + e; ++i) {
            int64_t j = i;
            if (reflect) j = j < 0 ? -j : j >= len ? 2 * (len - 1) - j : j;
            else j = std::clamp<int64_t>(j, 0, len - 1);
            idx.push_back(j);
        }
        x = x.index_select(int64_t(d), torch::tensor(idx, torch::kLong));
    }
    return x;
}

std::vector<Tensor> padOp(const KernelCall& c)
{
    Tensor x = in(c, 0);
    const std::string mode = c.node.attrString("mode", "constant");
    if (mode != "constant" && mode != "reflect" && mode != "edge")
        fail(c, "padding mode '" + mode + "' is not run (constant, reflect and edge are)");
    std::vector<int64_t> pads = has(c, 1) ? ints(c.in[1]) : c.node.attrInts("pads");
    if (has(c, 3)) { // opset 18: pads for the listed axes only
        const std::vector<int64_t> axes = ints(c.in[3]);
        if (pads.size() != 2 * axes.size()) fail(c, "pads has " + std::to_string(pads.size()) + " values for " + std::to_string(axes.size()) + " axes");
        std::vector<int64_t> full(size_t(2 * x.dim()), 0);
        for (size_t i = 0; i < axes.size(); ++i) {
            const int64_t a = normAxis(axes[i], x.dim());
            full[size_t(a)] = pads[i];
            full[size_t(a + x.dim())] = pads[i + axes.size()];
        }
        pads = full;
    }
    if (pads.size() != size_t(2 * x.dim()))
        fail(c, "pads has " + std::to_string(pads.size()) + " values for an input of rank " + std::to_string(x.dim()));
    if (mode != "constant") return one(padByIndex(c, x, pads, mode == "reflect"));
    const double value = has(c, 2) ? c.in[2].item<double>() : c.node.attrFloat("value", 0);
    const size_t n = pads.size() / 2;
    std::vector<int64_t> tp;
    for (size_t i = n; i-- > 0;) {
        tp.push_back(pads[i]);
        tp.push_back(pads[i + n]);
    }
    return one(torch::constant_pad_nd(x, tp, value));
}

} // namespace

void registerIndexingKernels(KernelTable& t)
{
    t.add("Concat", [](const KernelCall& c) {
        std::vector<Tensor> xs;
        for (const Tensor& x : c.in)
            if (x.defined()) xs.push_back(x);
        return one(torch::cat(xs, normAxis(c.node.attrInt("axis", 0), in(c, 0).dim())));
    });
    t.add("Split", split);
    t.add("Slice", slice);
    t.add("Gather", gather);
    t.add("GatherElements", [](const KernelCall& c) {
        Tensor x = in(c, 0);
        const int64_t axis = normAxis(c.node.attrInt("axis", 0), x.dim());
        Tensor idx = in(c, 1).to(torch::kLong);
        return one(torch::gather(x, axis, torch::where(idx < 0, idx + x.size(axis), idx)));
    });
    t.add("ScatterElements", scatterElements);
    t.add("Pad", padOp);
    t.add("Trilu", [](const KernelCall& c) {
        const int64_t k = has(c, 1) ? ints(c.in[1]).at(0) : 0;
        return one(c.node.attrInt("upper", 1) ? torch::triu(in(c, 0), k) : torch::tril(in(c, 0), k));
    });
}

} // namespace tapas::runtime
