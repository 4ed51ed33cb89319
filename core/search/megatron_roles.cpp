#include "core/search/megatron_roles.h"

#include <unordered_set>

namespace tapas {

namespace {

bool isParam(const Graph& g, TensorId t) { return t != kNoTensor && g.tensor(t).isParameter(); }

bool isWeightMatMul(const Graph& g, const Node& n)
{
    return (n.opType == "MatMul" || n.opType == "Gemm") && isParam(g, n.input(1)) && g.tensor(n.input(1)).shape.rank() == 2;
}

bool stopsWalk(const Node& n)
{
    return n.opType == "ReduceMean" || n.opType == "LayerNormalization" || n.opType == "SimplifiedLayerNormalization";
}

} // namespace

std::vector<MegatronRole> megatronRoles(const Graph& g)
{
    std::vector<MegatronRole> roles(g.nodes.size(), MegatronRole::None);
    int64_t biggestTable = 0;
    for (const Node& n : g.nodes)
        if (n.opType == "Gather" && isParam(g, n.input(0)) && g.tensor(n.input(0)).shape.rank() == 2)
            biggestTable = std::max(biggestTable, g.tensor(n.input(0)).shape.numElementsOr(0));
    for (NodeId id = 0; id < NodeId(g.nodes.size()); ++id) {
        const Node& n = g.node(id);
        if (n.opType == "Gather" && isParam(g, n.input(0)) && g.tensor(n.input(0)).shape.rank() == 2) {
            roles[size_t(id)] = g.tensor(n.input(0)).shape.numElementsOr(0) == biggestTable ? MegatronRole::VocabEmbedding
                                                                                             : MegatronRole::ReplicatedWeight;
            continue;
        }
        if (!isWeightMatMul(g, n)) {
            bool hasWeight = false;
            for (TensorId t : n.inputs) hasWeight |= isParam(g, t) && g.tensor(t).shape.rank() >= 2;
            if (hasWeight) roles[size_t(id)] = MegatronRole::ReplicatedWeight; // no Megatron recipe (convs, ...)
            continue;
        }
        // Walk back from the activation input; nodes are topologically ordered, so every
        // weight product met has its role already.
        bool fromColumn = false;
        std::vector<TensorId> stack{n.input(0)};
        std::unordered_set<TensorId> seen;
        while (!stack.empty() && !fromColumn) {
            const TensorId t = stack.back();
            stack.pop_back();
            if (t == kNoTensor || !seen.insert(t).second) continue;
            const NodeId p = g.tensor(t).producer;
            if (p == kNoNode) continue;
            const Node& pn = g.node(p);
            if (isWeightMatMul(g, pn)) {
                fromColumn = roles[size_t(p)] == MegatronRole::Column;
                continue;
            }
            if (stopsWalk(pn)) continue;
            for (TensorId in : pn.inputs)
                if (in != kNoTensor && !isParam(g, in) && dtypeIsFloating(g.tensor(in).dtype)) stack.push_back(in);
        }
        roles[size_t(id)] = fromColumn ? MegatronRole::Row : MegatronRole::Column;
    }
    return roles;
}

} // namespace tapas
