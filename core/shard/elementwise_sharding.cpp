// Element-wise ops propagate any layout by broadcasting; normalisation, softmax and reductions
// propagate a split of any dimension they do not reduce over, and force a resharding (an
// all-gather) of one they do.
#include "core/shard/op_sharding.h"
#include "core/shard/shard_families.h"

#include <algorithm>

namespace tapas {

namespace {

int normAxis(int64_t axis, int rank) { return int(axis < 0 ? axis + rank : axis); }

std::vector<OpStrategy> softmaxStrategies(const ShardContext& c)
{
    const int r = c.inShape(0).rank();
    return elementwiseStrategies(c, {normAxis(c.node.attrInt("axis", -1), r)});
}

// LayerNormalization normalises dims [axis, rank): those cannot be split; its scale and bias
// cover exactly those dims, so they stay replicated.
std::vector<OpStrategy> layerNormStrategies(const ShardContext& c)
{
    const int r = c.inShape(0).rank();
    std::vector<int> excluded;
    for (int d = normAxis(c.node.attrInt("axis", -1), r); d < r; ++d) excluded.push_back(d);
    std::vector<OpStrategy> out = elementwiseStrategies(c, excluded);
    for (OpStrategy& s : out) {
        for (size_t i = 1; i < s.inputs.size(); ++i) s.inputs[i] = TensorLayout::replicated();
        for (size_t o = 1; o < s.outputs.size(); ++o) s.outputs[o] = s.outputs[0]; // mean/invstd keep the split
    }
    return out;
}

// Reduce*: a split of a kept dim maps to the output; a split of a reduced dim is refused here
// (its consumer would see partial values), so the search must gather first.
std::vector<OpStrategy> reduceStrategies(const ShardContext& c)
{
    const int r = c.inShape(0).rank();
    std::vector<int64_t> axes = c.node.attrInts("axes");
    if (axes.empty() && c.node.input(1) != kNoTensor) {
        const Tensor& a = c.graph.tensor(c.node.input(1));
        if (!a.value) return {replicateStrategy(c.node)};
        axes = a.value->ints;
    }
    std::vector<bool> reduced(size_t(std::max(r, 0)), axes.empty());
    for (int64_t a : axes)
        if (normAxis(a, r) >= 0 && normAxis(a, r) < r) reduced[size_t(normAxis(a, r))] = true;
    const bool keep = c.node.attrInt("keepdims", 1) != 0;
    std::vector<OpStrategy> out{replicateStrategy(c.node)};
    for (int d = 0; d < r; ++d) {
        if (reduced[size_t(d)]) continue;
        int od = d;
        if (!keep)
            for (int e = 0; e < d; ++e) od -= reduced[size_t(e)] ? 1 : 0;
        OpStrategy s = replicateStrategy(c.node);
        s.name = "S(" + std::to_string(d) + ")";
        s.inputs[0] = TensorLayout::split(d);
        s.outputs[0] = TensorLayout::split(od);
        s.computeFraction = 1.0 / c.tp;
        out.push_back(std::move(s));
    }
    return out;
}

std::vector<OpStrategy> plainElementwise(const ShardContext& c) { return elementwiseStrategies(c); }

} // namespace

void registerElementwiseSharding(ShardRegistry& r)
{
    for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Sum", "Mean", "Where", "Equal", "Less",
                           "Greater", "And", "Or", "Not", "Relu", "LeakyRelu", "Sigmoid", "Tanh", "Gelu", "Erf",
                           "Sqrt", "Reciprocal", "Exp", "Log", "Neg", "Abs", "Cast", "Clip", "HardSigmoid",
                           "HardSwish", "Softplus", "Elu", "Selu", "PRelu", "Identity", "Dropout", "FastGelu",
                           "BiasGelu", "Sign", "Floor", "Ceil", "Round", "IsNaN", "Expand"})
        r.add(op, plainElementwise);
    for (const char* op : {"Softmax", "LogSoftmax"}) r.add(op, softmaxStrategies);
    for (const char* op : {"LayerNormalization", "SimplifiedLayerNormalization", "SkipLayerNormalization"})
        r.add(op, layerNormStrategies);
    for (const char* op : {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL2",
                           "ReduceSumSquare", "ReduceLogSumExp"})
        r.add(op, reduceStrategies);
}

} // namespace tapas
