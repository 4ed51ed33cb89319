#pragma once
// The graph as the fold's passes read it: flat per-node and per-tensor arrays, built once in one
// sequential pass over the IR. The IR keeps strings and vectors in every node and tensor; a
// 190k-node model no longer fits the cache that way, and the passes, which walk producers and
// consumers over and over, paid for it with a time per node that grew with the model. Here a
// node's inputs and outputs and a tensor's readers are ranges of int arrays (CSR), op types are
// interned ids, and what the passes ask of a tensor (its kind, whether it is a weight or a graph
// output) is one byte or int. The IR is still there for what only it knows (attributes, shapes).
#include "core/ir/graph.h"
#include "core/util/result.h"

#include <cstdint>
#include <span>
#include <vector>

namespace tapas {

struct CompactGraph {
    const Graph& ir;
    size_t nodeCount = 0, tensorCount = 0;

    // Per node: what it computes (operationHash: op type, domain, attributes), its opaque
    // subgraphs, its interned op (op type and domain), and its input and output tensors (kNoTensor
    // for an omitted one), as ranges [begin[v], begin[v + 1])).
    std::vector<uint64_t> operation;
    std::vector<int> subgraphs;
    std::vector<int64_t> subgraphNodes;
    std::vector<uint32_t> op;
    std::vector<uint32_t> inBegin, outBegin;
    std::vector<TensorId> in, out;

    // Per tensor: its producer (kNoNode for initializers and graph inputs) and the producer's
    // output slot holding it, its kind, and its readers with the input slot each reads it at (a
    // node reading it at two slots is listed twice, as Tensor::consumers lists it).
    std::vector<NodeId> producer;
    std::vector<uint16_t> producerSlot;
    std::vector<TensorKind> kind;
    std::vector<DType> dtype;
    std::vector<uint64_t> shapeHash; // hashShape of its shape
    std::vector<char> hasValue;      // a known small value (Tensor::value): read from the IR
    std::vector<uint32_t> useBegin;
    std::vector<NodeId> useNode;
    std::vector<uint32_t> useSlot;
    std::vector<int> outputIndex; // the first graph output it is, else -1
    // A module's weight: a parameter of more than one element, or Identity(parameter) (how exporters
    // alias one weight read by several layers).
    std::vector<char> weight;

    // Per interned op: the hash of its op type and domain, and what the passes ask of it (by op
    // type, whatever the domain, as they asked the IR).
    std::vector<uint64_t> opHash;
    std::vector<uint8_t> opFlags;
    static constexpr uint8_t kShapeOrSize = 1; // Shape, Size: shape arithmetic from any tensor
    static constexpr uint8_t kIdentity = 2;
    bool is(NodeId v, uint8_t flag) const { return (opFlags[op[size_t(v)]] & flag) != 0; }

    explicit CompactGraph(const Graph& g);

    std::span<const TensorId> inputs(NodeId v) const { return {in.data() + inBegin[size_t(v)], in.data() + inBegin[size_t(v) + 1]}; }
    std::span<const TensorId> outputs(NodeId v) const { return {out.data() + outBegin[size_t(v)], out.data() + outBegin[size_t(v) + 1]}; }
    TensorId input(NodeId v, size_t slot) const
    {
        return inBegin[size_t(v)] + slot < inBegin[size_t(v) + 1] ? in[inBegin[size_t(v)] + slot] : kNoTensor;
    }
    std::span<const NodeId> readers(TensorId t) const
    {
        return {useNode.data() + useBegin[size_t(t)], useNode.data() + useBegin[size_t(t) + 1]};
    }
    std::span<const uint32_t> readSlots(TensorId t) const
    {
        return {useSlot.data() + useBegin[size_t(t)], useSlot.data() + useBegin[size_t(t) + 1]};
    }
    NodeId producerOf(TensorId t) const { return t == kNoTensor ? kNoNode : producer[size_t(t)]; }
    // A constant as the fold sees it before meta nodes are known: stored data, not a graph input.
    bool stored(TensorId t) const { return producer[size_t(t)] == kNoNode && kind[size_t(t)] != TensorKind::Input; }
};

// Every node, producers before consumers (Kahn's algorithm from the file's order). Fails for a
// graph with a cycle, naming a node on it.
Result<std::vector<NodeId>> topologicalOrder(const CompactGraph& cg);

} // namespace tapas
