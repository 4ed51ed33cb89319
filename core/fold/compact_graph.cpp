#include "core/fold/compact_graph.h"

#include "core/fold/structural_hash.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

namespace tapas {

CompactGraph::CompactGraph(const Graph& g) : ir(g), nodeCount(g.nodes.size()), tensorCount(g.tensors.size())
{
    // Interned by op type, then domain; the keys point into the IR, which outlives this.
    std::unordered_map<std::string_view, std::vector<std::pair<std::string_view, uint32_t>>> ids;
    op.resize(nodeCount);
    operation.resize(nodeCount);
    subgraphs.resize(nodeCount);
    subgraphNodes.resize(nodeCount);
    inBegin.resize(nodeCount + 1);
    outBegin.resize(nodeCount + 1);
    producer.assign(tensorCount, kNoNode);
    producerSlot.assign(tensorCount, 0);
    std::vector<uint32_t> uses(tensorCount + 1, 0);
    for (size_t v = 0; v < nodeCount; ++v) {
        const Node& n = g.nodes[v];
        auto& domains = ids[std::string_view(n.opType)];
        auto known = std::find_if(domains.begin(), domains.end(), [&](const auto& d) { return d.first == n.domain; });
        if (known == domains.end()) {
            known = domains.emplace(domains.end(), std::string_view(n.domain), uint32_t(opHash.size()));
            opHash.push_back(hashMix(hashString(n.opType), hashString(n.domain)));
            opFlags.push_back(uint8_t((n.opType == "Shape" || n.opType == "Size" ? kShapeOrSize : 0) |
                                      (n.opType == "Identity" ? kIdentity : 0)));
        }
        op[v] = known->second;
        operation[v] = operationHash(n);
        subgraphs[v] = n.subgraphs;
        subgraphNodes[v] = n.subgraphNodes;
        inBegin[v] = uint32_t(in.size());
        for (TensorId t : n.inputs) {
            in.push_back(t);
            if (t != kNoTensor) ++uses[size_t(t)];
        }
        outBegin[v] = uint32_t(out.size());
        for (size_t o = 0; o < n.outputs.size(); ++o) {
            const TensorId t = n.outputs[o];
            out.push_back(t);
            if (t != kNoTensor && g.tensors[size_t(t)].producer == NodeId(v) && producer[size_t(t)] == kNoNode) {
                producer[size_t(t)] = NodeId(v);
                producerSlot[size_t(t)] = uint16_t(o);
            }
        }
    }
    inBegin[nodeCount] = uint32_t(in.size());
    outBegin[nodeCount] = uint32_t(out.size());

    // Readers in node order, as Tensor::consumers lists them.
    useBegin.assign(tensorCount + 1, 0);
    for (size_t t = 0; t < tensorCount; ++t) useBegin[t + 1] = useBegin[t] + uses[t];
    useNode.resize(useBegin[tensorCount]);
    useSlot.resize(useBegin[tensorCount]);
    std::vector<uint32_t> fill(useBegin.begin(), useBegin.end() - 1);
    for (size_t v = 0; v < nodeCount; ++v)
        for (uint32_t k = inBegin[v]; k < inBegin[v + 1]; ++k) {
            const TensorId t = in[k];
            if (t == kNoTensor) continue;
            const uint32_t at = fill[size_t(t)]++;
            useNode[at] = NodeId(v);
            useSlot[at] = k - inBegin[v];
        }

    kind.resize(tensorCount);
    dtype.resize(tensorCount);
    shapeHash.resize(tensorCount);
    hasValue.resize(tensorCount);
    weight.assign(tensorCount, 0);
    std::vector<char> parameter(tensorCount, 0);
    for (size_t t = 0; t < tensorCount; ++t) {
        const Tensor& tensor = g.tensors[t];
        kind[t] = tensor.kind;
        dtype[t] = tensor.dtype;
        shapeHash[t] = hashShape(tensor.shape);
        hasValue[t] = char(tensor.value.has_value());
        parameter[t] = char(tensor.isParameter());
        weight[t] = char(tensor.isParameter() && tensor.storedElements() > 1);
    }
    for (size_t t = 0; t < tensorCount; ++t) {
        const NodeId p = producer[t];
        if (parameter[t] || p == kNoNode || !is(p, kIdentity)) continue;
        const TensorId src = input(p, 0);
        weight[t] = char(src != kNoTensor && weight[size_t(src)] && parameter[size_t(src)]);
    }
    outputIndex.assign(tensorCount, -1);
    for (size_t i = 0; i < g.outputs.size(); ++i)
        if (g.outputs[i] != kNoTensor && outputIndex[size_t(g.outputs[i])] < 0) outputIndex[size_t(g.outputs[i])] = int(i);
}

Result<std::vector<NodeId>> topologicalOrder(const CompactGraph& cg)
{
    const size_t n = cg.nodeCount;
    std::vector<int> indegree(n, 0);
    for (size_t i = 0; i < n; ++i)
        for (TensorId t : cg.inputs(NodeId(i)))
            if (t != kNoTensor && cg.producer[size_t(t)] != kNoNode) ++indegree[i];
    std::vector<NodeId> order;
    order.reserve(n);
    for (size_t i = 0; i < n; ++i)
        if (indegree[i] == 0) order.push_back(NodeId(i));
    for (size_t head = 0; head < order.size(); ++head)
        for (TensorId t : cg.outputs(order[head]))
            if (t != kNoTensor)
                for (NodeId c : cg.readers(t))
                    if (--indegree[size_t(c)] == 0) order.push_back(c);
    if (order.size() != n) {
        for (size_t i = 0; i < n; ++i) {
            if (indegree[i] > 0) {
                const Node& bad = cg.ir.nodes[i];
                return Result<std::vector<NodeId>>::failure(
                    "fold: graph '" + cg.ir.name + "' has a cycle through node '" +
                    (bad.name.empty() ? "#" + std::to_string(i) : bad.name) + "' (" + bad.opType + ")");
            }
        }
    }
    return order;
}

} // namespace tapas
