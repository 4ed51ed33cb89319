// Shape ops move a split to wherever the split dimension lands (Reshape: a split of the leading
// dim of a merged/split group, so S on hidden becomes S on heads when heads divide evenly);
// Gather on an embedding table splits the vocabulary (output partial, masked lookups) or the
// hidden size.
#include "core/shard/op_sharding.h"
#include "core/shard/shard_families.h"

#include <cmath>
#include <functional>

namespace tapas {

namespace {

using L = TensorLayout;

int normAxis(int64_t axis, int rank) { return int(axis < 0 ? axis + rank : axis); }

double dimValue(const Dim& d)
{
    if (d.isKnown()) return double(d.value);
    // A symbolic dim stands for an unknown factor; distinct names get distinct large values.
    return 1e6 + double(std::hash<std::string>{}(d.symbol) % 9973);
}

// The output dim a split of input dim d lands on, or -1: d must lead a group of input dims
// whose product equals that of a group of output dims, and the split goes to that group's lead.
int reshapeTarget(const Shape& in, const Shape& out, int d)
{
    if (!in.rankKnown || !out.rankKnown) return -1;
    size_t i = 0, j = 0;
    while (i < in.dims.size() && j < out.dims.size()) {
        const size_t i0 = i, j0 = j;
        double pi = dimValue(in.dims[i++]), pj = dimValue(out.dims[j++]);
        while (std::abs(pi - pj) > 1e-9 * std::max(pi, pj)) {
            if (pi < pj) {
                if (i >= in.dims.size()) return -1;
                pi *= dimValue(in.dims[i++]);
            } else {
                if (j >= out.dims.size()) return -1;
                pj *= dimValue(out.dims[j++]);
            }
        }
        if (int(i0) == d) return int(j0);
        if (d > int(i0) && d < int(i)) return -1; // inside a group, not its lead
    }
    return -1;
}

std::vector<OpStrategy> reshapeStrategies(const ShardContext& c)
{
    std::vector<OpStrategy> out{replicateStrategy(c.node)};
    for (int d = 0; d < c.inShape(0).rank(); ++d) {
        const int od = reshapeTarget(c.inShape(0), c.outShape(0), d);
        if (od < 0) continue;
        OpStrategy s = replicateStrategy(c.node);
        s.name = "S(" + std::to_string(d) + ")->S(" + std::to_string(od) + ")";
        s.inputs[0] = L::split(d);
        s.outputs[0] = L::split(od);
        s.computeFraction = 1.0 / c.tp;
        out.push_back(std::move(s));
    }
    return out;
}

std::vector<OpStrategy> transposeStrategies(const ShardContext& c)
{
    std::vector<OpStrategy> out{replicateStrategy(c.node)};
    const int r = c.inShape(0).rank();
    std::vector<int64_t> perm = c.node.attrInts("perm");
    if (perm.empty())
        for (int i = r - 1; i >= 0; --i) perm.push_back(i);
    for (int o = 0; o < int(perm.size()); ++o) {
        OpStrategy s = replicateStrategy(c.node);
        s.name = "S(" + std::to_string(perm[size_t(o)]) + ")->S(" + std::to_string(o) + ")";
        s.inputs[0] = L::split(int(perm[size_t(o)]));
        s.outputs[0] = L::split(o);
        s.computeFraction = 1.0 / c.tp;
        out.push_back(std::move(s));
    }
    return out;
}

// Split along any dim keeps a split of any dim on every part (along the split axis itself the
// parts are interleaved per device, as Megatron stores its packed QKV weight).
std::vector<OpStrategy> splitStrategies(const ShardContext& c)
{
    std::vector<OpStrategy> out{replicateStrategy(c.node)};
    for (int d = 0; d < c.inShape(0).rank(); ++d) {
        OpStrategy s = replicateStrategy(c.node);
        s.name = "S(" + std::to_string(d) + ")";
        s.inputs[0] = L::split(d);
        for (auto& o : s.outputs) o = L::split(d);
        s.computeFraction = 1.0 / c.tp;
        out.push_back(std::move(s));
    }
    return out;
}

std::vector<OpStrategy> concatStrategies(const ShardContext& c)
{
    const int r = c.outShape(0).rank();
    std::vector<OpStrategy> out{replicateStrategy(c.node)};
    const int axis = normAxis(c.node.attrInt("axis", 0), r);
    for (int d = 0; d < r; ++d) {
        if (d == axis) continue;
        OpStrategy s = replicateStrategy(c.node);
        s.name = "S(" + std::to_string(d) + ")";
        for (auto& i : s.inputs) i = L::split(d);
        s.outputs[0] = L::split(d);
        s.computeFraction = 1.0 / c.tp;
        out.push_back(std::move(s));
    }
    return out;
}

std::vector<OpStrategy> sliceStrategies(const ShardContext& c)
{
    const int r = c.inShape(0).rank();
    std::vector<int64_t> axes = c.node.attrInts("axes");
    if (c.node.input(3) != kNoTensor) {
        const Tensor& a = c.graph.tensor(c.node.input(3));
        if (!a.value) return {replicateStrategy(c.node)};
        axes = a.value->ints;
    } else if (c.node.input(1) != kNoTensor && axes.empty()) {
        for (int d = 0; d < r; ++d) axes.push_back(d); // no axes input: every dim may be sliced
    }
    std::vector<OpStrategy> out{replicateStrategy(c.node)};
    for (int d = 0; d < r; ++d) {
        bool sliced = false;
        for (int64_t a : axes) sliced |= normAxis(a, r) == d;
        if (sliced) continue;
        OpStrategy s = replicateStrategy(c.node);
        s.name = "S(" + std::to_string(d) + ")";
        s.inputs[0] = L::split(d);
        s.outputs[0] = L::split(d);
        s.computeFraction = 1.0 / c.tp;
        out.push_back(std::move(s));
    }
    return out;
}

std::vector<OpStrategy> gatherStrategies(const ShardContext& c)
{
    const int rd = c.inShape(0).rank(), ri = c.inShape(1).rank(), ro = c.outShape(0).rank();
    const int axis = normAxis(c.node.attrInt("axis", 0), rd);
    std::vector<OpStrategy> out{replicateStrategy(c.node)};
    auto make = [&](std::string name, L data, L idx, L o) {
        out.push_back(splitStrategy(c, std::move(name), {data, idx}, o));
    };
    if (c.isWeight(0) && rd == 2 && axis == 0) // embedding table [vocab, hidden]
        make("vocab", L::split(0), L::replicated(), L::partial());
    for (int d = 0; d < rd; ++d)
        if (d != axis) make(d == rd - 1 && c.isWeight(0) ? "hidden" : "S(" + std::to_string(d) + ")", L::split(d),
                            L::replicated(), L::split(d < axis ? d : d + ri - 1));
    for (int j = 0; j < ri && ro > 0; ++j) make("indices S(" + std::to_string(j) + ")", L::replicated(), L::split(j), L::split(axis + j));
    return out;
}

} // namespace

void registerShapeSharding(ShardRegistry& r)
{
    for (const char* op : {"Reshape", "Flatten", "Squeeze", "Unsqueeze"}) r.add(op, reshapeStrategies);
    r.add("Transpose", transposeStrategies);
    r.add("Split", splitStrategies);
    r.add("Concat", concatStrategies);
    r.add("Slice", sliceStrategies);
    r.add("Gather", gatherStrategies);
}

} // namespace tapas
