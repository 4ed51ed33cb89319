#include "core/search/attention_heads.h"

#include <vector>

namespace tapas {

namespace {

bool isActivation(const Graph& g, TensorId t)
{
    return t != kNoTensor && !g.tensor(t).isParameter() && !g.tensor(t).value && dtypeIsFloating(g.tensor(t).dtype);
}

// The tensor reaches a product of two activations through view and scaling ops only.
bool feedsActivationProduct(const Graph& g, TensorId t, int depth)
{
    if (depth > 4) return false;
    for (NodeId c : g.tensor(t).consumers) {
        const Node& n = g.node(c);
        if (n.opType == "MatMul" && isActivation(g, n.input(0)) && isActivation(g, n.input(1))) return true;
        const bool passes = n.opType == "Transpose" || n.opType == "Div" || n.opType == "Mul" || n.opType == "Cast" ||
                            n.opType == "Identity" || n.opType == "Reshape";
        if (passes && !n.outputs.empty() && n.input(0) == t && feedsActivationProduct(g, n.outputs[0], depth + 1)) return true;
        if ((n.opType == "Div" || n.opType == "Mul") && !n.outputs.empty() && feedsActivationProduct(g, n.outputs[0], depth + 1))
            return true;
    }
    return false;
}

} // namespace

std::optional<AttentionHeads> attentionHeads(const Graph& g)
{
    for (NodeId id = 0; id < NodeId(g.nodes.size()); ++id) {
        const Node& n = g.node(id);
        if (n.opType != "Reshape" || n.inputs.empty() || n.outputs.empty()) continue;
        const Shape& in = g.tensor(n.inputs[0]).shape;
        const Shape& out = g.tensor(n.outputs[0]).shape;
        if (!in.rankKnown || !out.rankKnown || in.rank() < 2 || out.rank() < 3) continue;
        const Dim& hidden = in.dims.back();
        const Dim& headDim = out.dims.back();
        if (!hidden.isKnown() || !headDim.isKnown() || headDim.value <= 0 || headDim.value >= hidden.value ||
            hidden.value % headDim.value != 0)
            continue;
        const int64_t heads = hidden.value / headDim.value;
        // [.., hidden] -> [.., heads, head_dim], or the heads merged into a lead dim of the same rank.
        const bool headsAxis = out.rank() == in.rank() + 1 && out.dims[size_t(out.rank() - 2)].isKnown() &&
                               out.dims[size_t(out.rank() - 2)].value == heads;
        const bool merged = out.rank() == in.rank();
        if (!headsAxis && !merged) continue;
        if (!feedsActivationProduct(g, n.outputs[0], 0)) continue;
        return AttentionHeads{heads, headDim.value, hidden.value, id};
    }
    return std::nullopt;
}

} // namespace tapas
