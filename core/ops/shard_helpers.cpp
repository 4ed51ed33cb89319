#include "core/ops/shard_helpers.h"

#include <algorithm>

namespace tapas {

OpStrategy replicateStrategy(const Node& n)
{
    OpStrategy s;
    s.name = "replicate";
    s.inputs.assign(n.inputs.size(), TensorLayout::replicated());
    s.outputs.assign(n.outputs.size(), TensorLayout::replicated());
    return s;
}

OpStrategy splitStrategy(const ShardContext& c, std::string name, std::initializer_list<TensorLayout> inputs,
                         const TensorLayout& output)
{
    OpStrategy s = replicateStrategy(c.node);
    s.name = std::move(name);
    size_t i = 0;
    for (const TensorLayout& layout : inputs) {
        if (i < s.inputs.size() && c.node.input(i) != kNoTensor) s.inputs[i] = layout;
        ++i;
    }
    if (!s.outputs.empty()) s.outputs[0] = output;
    s.computeFraction = 1.0 / c.tp;
    return s;
}

OpStrategy broadcastStrategy(const ShardContext& c, const TensorLayout& out, std::string name)
{
    OpStrategy s = replicateStrategy(c.node);
    s.name = std::move(name);
    for (auto& o : s.outputs) o = out;
    if (out.kind != TensorLayout::S) return s;
    const Shape& os = c.outShape(0);
    for (size_t i = 0; i < c.node.inputs.size(); ++i) {
        const TensorId t = c.node.input(i);
        if (t == kNoTensor || c.graph.tensor(t).value) continue; // scalars, shape vectors
        const Shape& is = c.inShape(i);
        const int aligned = out.dim - (os.rank() - is.rank());
        if (is.rankKnown && aligned >= 0 && is.dims[size_t(aligned)] == os.dims[size_t(out.dim)])
            s.inputs[i] = TensorLayout::split(aligned);
    }
    s.computeFraction = 1.0 / c.tp;
    return s;
}

std::vector<OpStrategy> elementwiseStrategies(const ShardContext& c, std::vector<int> excludeDims)
{
    std::vector<OpStrategy> out{replicateStrategy(c.node)};
    const Shape& os = c.outShape(0);
    for (int d = 0; d < os.rank(); ++d) {
        if (std::find(excludeDims.begin(), excludeDims.end(), d) != excludeDims.end()) continue;
        out.push_back(broadcastStrategy(c, TensorLayout::split(d), "S(" + std::to_string(d) + ")"));
    }
    return out;
}

std::vector<OpStrategy> channelwiseStrategies(const ShardContext& c)
{
    using L = TensorLayout;
    std::vector<OpStrategy> out{replicateStrategy(c.node)};
    if (c.inShape(0).rank() < 2) return out;
    for (int d : {0, 1}) {
        OpStrategy s = replicateStrategy(c.node);
        s.name = d == 0 ? "batch" : "channels";
        s.inputs[0] = L::split(d);
        for (size_t i = 1; i < s.inputs.size(); ++i)
            if (d == 1 && c.inShape(i).rank() == 1 && !c.isMeta(i)) s.inputs[i] = L::split(0);
        for (size_t o = 0; o < s.outputs.size(); ++o)
            s.outputs[o] = o == 0 ? L::split(d) : (d == 1 ? L::split(0) : L::replicated());
        s.computeFraction = 1.0 / c.tp;
        out.push_back(std::move(s));
    }
    return out;
}

} // namespace tapas
