#include "core/shard/op_sharding.h"

#include "core/ops/op_registry.h"
#include "core/ops/shard_helpers.h"

namespace tapas {

const Shape& ShardContext::inShape(size_t i) const
{
    static const Shape none;
    const TensorId t = node.input(i);
    return t == kNoTensor ? none : graph.tensor(t).shape;
}

const Shape& ShardContext::outShape(size_t i) const
{
    static const Shape none;
    const TensorId t = node.output(i);
    return t == kNoTensor ? none : graph.tensor(t).shape;
}

bool ShardContext::isWeight(size_t i) const
{
    const TensorId t = node.input(i);
    return t != kNoTensor && graph.tensor(t).isParameter();
}

bool ShardContext::isMeta(size_t i) const
{
    const TensorId t = node.input(i);
    if (t == kNoTensor) return true;
    const Tensor& x = graph.tensor(t);
    return x.value.has_value() || !dtypeIsFloating(x.dtype);
}

bool splitsEvenly(const Graph& g, TensorId t, int d, int tp, int dp)
{
    if (t == kNoTensor) return false;
    const Shape& s = g.tensor(t).shape;
    if (d < 0 || d >= s.rank() || !s.dims[size_t(d)].isKnown()) return false;
    int64_t v = s.dims[size_t(d)].value;
    if (dp > 1 && d < 32 && (g.tensor(t).batchScaledDims >> d & 1u)) {
        if (v % dp != 0) return false;
        v /= dp;
    }
    return v > 0 && v % tp == 0;
}

bool ShardContext::splittable(TensorId t, int d) const { return splitsEvenly(graph, t, d, tp, dp); }

namespace {

// Drops strategies that split a dimension the tensor cannot split evenly, or that lay out an
// known-value output as anything but R (shape arithmetic stays replicated).
bool valid(const ShardContext& c, const OpStrategy& s)
{
    if (s.inputs.size() != c.node.inputs.size() || s.outputs.size() != c.node.outputs.size()) return false;
    for (size_t i = 0; i < s.inputs.size(); ++i)
        if (s.inputs[i].kind == TensorLayout::S && !c.splittable(c.node.inputs[i], s.inputs[i].dim)) return false;
    for (size_t i = 0; i < s.outputs.size(); ++i) {
        const TensorId t = c.node.outputs[i];
        if (t == kNoTensor) continue;
        if (s.outputs[i].kind == TensorLayout::S && !c.splittable(t, s.outputs[i].dim)) return false;
        const Tensor& x = c.graph.tensor(t);
        if (s.outputs[i].kind != TensorLayout::R && x.value) return false;
        if (s.outputs[i].kind == TensorLayout::P && !dtypeIsFloating(x.dtype)) return false;
    }
    return true;
}

bool allMeta(const Graph& g, const Node& n)
{
    for (TensorId t : n.outputs) {
        if (t == kNoTensor) continue;
        const Tensor& x = g.tensor(t);
        if (dtypeIsFloating(x.dtype) && !x.value) return false;
    }
    return true;
}

} // namespace

std::vector<OpStrategy> nodeStrategies(const Graph& g, NodeId n, int tp, std::string* warning, int dp)
{
    const Node& node = g.node(n);
    ShardContext c{g, node, tp, dp};
    // Shape arithmetic stays replicated, except that Shape itself reads only the metadata of its
    // input, so its rule lets the input keep whatever layout it has.
    if (tp <= 1 || (allMeta(g, node) && node.opType != "Shape")) return {replicateStrategy(node)};
    const OpDef* def = OpRegistry::instance().find(node.opType);
    const ShardRule* rule = def && def->sharding.rule ? &def->sharding.rule : nullptr;
    if (!rule) {
        if (warning)
            *warning = nodeLabel(g, n) + ": no sharding rule, replicated";
        return {replicateStrategy(node)};
    }
    std::vector<OpStrategy> out;
    for (OpStrategy& s : (*rule)(c))
        if (valid(c, s)) out.push_back(std::move(s));
    if (out.empty() || out.front().name != "replicate") out.insert(out.begin(), replicateStrategy(node));
    return out;
}

} // namespace tapas
