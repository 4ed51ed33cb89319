#include "runtime/exec/layout_analysis.h"

#include "core/ops/shard_helpers.h"

#include <string>

namespace tapas::runtime {

namespace {

int normAxis(int64_t axis, int rank) { return int(axis < 0 ? axis + rank : axis); }

int64_t dimOf(const Graph& g, TensorId t, int d)
{
    const Shape& s = g.tensor(t).shape;
    if (d < 0 || d >= s.rank() || !s.dims[size_t(d)].isKnown()) return -1;
    return s.dims[size_t(d)].value;
}

} // namespace

bool splitsWork(const OpStrategy& s)
{
    for (const TensorLayout& o : s.outputs)
        if (o.kind != TensorLayout::R) return true;
    return false;
}

Result<ExecLayouts> analyseLayouts(const Graph& g, const ShardingPlan* plan, int tp)
{
    ExecLayouts L;
    L.tp = plan ? tp : 1;
    const size_t nt = g.tensors.size();
    L.storage.assign(nt, TensorLayout::replicated());
    L.producedK.assign(nt, 1);
    L.needK.resize(g.nodes.size());
    if (plan) {
        if (plan->nodes.size() != g.nodes.size())
            return Result<ExecLayouts>::failure("plan has " + std::to_string(plan->nodes.size()) +
                                                " node strategies for a graph of " + std::to_string(g.nodes.size()));
        L.nodes = plan->nodes;
    } else {
        for (const Node& n : g.nodes) L.nodes.push_back(replicateStrategy(n));
    }
    for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n) {
        const Node& node = g.node(n);
        OpStrategy& s = L.nodes[size_t(n)];
        if (s.inputs.size() != node.inputs.size() || s.outputs.size() != node.outputs.size())
            return Result<ExecLayouts>::failure(nodeLabel(g, n) + ": strategy '" + s.name +
                                                "' has the wrong number of layouts");
        L.needK[size_t(n)].assign(node.inputs.size(), 1);
    }
    // A source weight is stored the way its first consumer needs it (P never: held whole).
    std::vector<bool> storageSet(nt, false);
    for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n) {
        const Node& node = g.node(n);
        for (size_t i = 0; i < node.inputs.size(); ++i) {
            const TensorId t = node.inputs[i];
            if (t == kNoTensor || storageSet[size_t(t)] || !isTrainable(g, t) || !isSourceWeight(g, t)) continue;
            storageSet[size_t(t)] = true;
            const TensorLayout need = L.nodes[size_t(n)].inputs[i];
            if (need.kind == TensorLayout::S) L.storage[size_t(t)] = need;
        }
    }
    if (L.tp <= 1) return L;

    // Interleave needs, from the consumers back to the producers (reverse topological order).
    for (NodeId n = NodeId(g.nodes.size()) - 1; n >= 0; --n) {
        const Node& node = g.node(n);
        const OpStrategy& s = L.nodes[size_t(n)];
        std::vector<int>& need = L.needK[size_t(n)];
        if (node.opType == "Split" && !s.inputs.empty() && s.inputs[0].kind == TensorLayout::S) {
            const int r = g.tensor(node.inputs[0]).shape.rank();
            const int axis = normAxis(node.attrInt("axis", 0), r);
            if (s.inputs[0].dim == axis) {
                const int64_t whole = dimOf(g, node.inputs[0], axis);
                int parts = 0;
                for (TensorId o : node.outputs) {
                    if (o == kNoTensor) continue;
                    ++parts;
                    if (whole < 0 || dimOf(g, o, axis) * int64_t(node.outputs.size()) != whole)
                        return Result<ExecLayouts>::failure(nodeLabel(g, n) +
                                                            ": a split dimension can only be cut into equal parts");
                }
                need[0] = parts;
            }
        }
        // A packed part sliced on the split axis (q, k or v of a fused projection) likewise.
        if (node.opType == "Slice" && !s.inputs.empty() && s.inputs[0].kind == TensorLayout::S && !node.outputs.empty()) {
            const int64_t whole = dimOf(g, node.inputs[0], s.inputs[0].dim);
            const int64_t part = dimOf(g, node.outputs[0], s.inputs[0].dim);
            if (whole > 0 && part > 0 && part != whole) {
                if (whole % part != 0)
                    return Result<ExecLayouts>::failure(nodeLabel(g, n) + ": a split dimension can only be sliced into equal parts");
                need[0] = int(whole / part);
            }
        }
        // An interleaved output asks the same of every input split along the same extent.
        for (size_t o = 0; o < node.outputs.size(); ++o) {
            const TensorId t = node.outputs[o];
            if (t == kNoTensor || L.producedK[size_t(t)] <= 1) continue;
            const int k = L.producedK[size_t(t)];
            if (node.opType == "Split" || s.outputs[o].kind != TensorLayout::S)
                return Result<ExecLayouts>::failure(nodeLabel(g, n) + ": cannot produce '" + g.tensor(t).name +
                                                    "' interleaved for a packed split");
            const int64_t extent = dimOf(g, t, s.outputs[o].dim);
            for (size_t i = 0; i < node.inputs.size(); ++i) {
                if (node.inputs[i] == kNoTensor || s.inputs[i].kind != TensorLayout::S) continue;
                if (dimOf(g, node.inputs[i], s.inputs[i].dim) != extent)
                    return Result<ExecLayouts>::failure(nodeLabel(g, n) + ": input '" + g.tensor(node.inputs[i]).name +
                                                        "' cannot follow the interleaved split of its output");
                need[i] = k;
            }
        }
        // Hand the needs to producers (or weights) that deliver the layout without a reshard.
        for (size_t i = 0; i < node.inputs.size(); ++i) {
            const TensorId t = node.inputs[i];
            if (t == kNoTensor || need[i] <= 1) continue;
            const Tensor& x = g.tensor(t);
            TensorLayout have = TensorLayout::replicated();
            if (x.producer != kNoNode) {
                have = producedLayout(g, *plan, t);
            } else if (isTrainable(g, t) && isSourceWeight(g, t)) {
                have = L.storage[size_t(t)];
            }
            if (have != s.inputs[i]) continue; // the reshard permutes
            int& k = L.producedK[size_t(t)];
            if (k > 1 && k != need[i])
                return Result<ExecLayouts>::failure("tensor '" + x.name + "' is needed interleaved " +
                                                    std::to_string(k) + " and " + std::to_string(need[i]) + " ways");
            k = need[i];
        }
    }
    return L;
}

} // namespace tapas::runtime
