#include "core/fold/segment_signature.h"

#include <algorithm>
#include <utility>

namespace tapas {

namespace {

// The signature of `order`, whose nodes have their index in scratch.position: each node's local
// hash and, per input slot, where it comes from: a node of the list (by position and output slot)
// or the k-th distinct outside tensor.
uint64_t hashPlacedOrder(const CompactGraph& cg, const std::vector<NodeId>& order, const NodeHashes& hashes, CanonicalScratch& scratch)
{
    const std::vector<int>& position = scratch.position;
    std::vector<int>& external = scratch.external;
    std::vector<TensorId> numbered;
    int externals = 0;
    uint64_t h = hashMix(0x5e6d0001ULL, order.size());
    for (NodeId v : order) {
        h = hashMix(h, hashes.local[size_t(v)]);
        for (TensorId t : cg.inputs(v)) {
            if (t == kNoTensor) {
                h = hashMix(h, 1);
                continue;
            }
            const NodeId p = cg.producer[size_t(t)];
            if (p != kNoNode && position[size_t(p)] >= 0) {
                h = hashMix(hashMix(hashMix(h, 2), uint64_t(position[size_t(p)])), cg.producerSlot[size_t(t)]);
            } else {
                if (external[size_t(t)] < 0) {
                    external[size_t(t)] = externals++;
                    numbered.push_back(t);
                }
                h = hashMix(hashMix(h, 3), uint64_t(external[size_t(t)]));
            }
        }
    }
    for (TensorId t : numbered) external[size_t(t)] = -1;
    return h;
}

} // namespace

void canonicaliseSegment(const CompactGraph& cg, const std::vector<int>& nodeSegment, int segmentIndex,
                         const NodeHashes& hashes, FoldSegment& segment, CanonicalScratch& scratch)
{
    auto inSegment = [&](NodeId v) { return v != kNoNode && nodeSegment[size_t(v)] == segmentIndex; };
    std::vector<int>& position = scratch.position;
    auto placed = [&](NodeId v) { return position[size_t(v)] != -1; };
    std::vector<NodeId> order;
    order.reserve(segment.nodes.size());

    // Post-order walk backwards along input slots: producers before consumers, and the order is
    // a function of the wiring only.
    std::vector<std::pair<NodeId, size_t>> stack;
    auto walkFrom = [&](NodeId root) {
        if (placed(root)) return;
        position[size_t(root)] = -2; // on the stack
        stack.emplace_back(root, 0);
        while (!stack.empty()) {
            auto& [v, slot] = stack.back();
            const auto inputs = cg.inputs(v);
            if (slot < inputs.size()) {
                const TensorId t = inputs[slot++];
                const NodeId p = cg.producerOf(t);
                if (inSegment(p) && !placed(p)) {
                    position[size_t(p)] = -2;
                    stack.emplace_back(p, 0);
                }
                continue;
            }
            position[size_t(v)] = int(order.size());
            order.push_back(v);
            stack.pop_back();
        }
    };
    for (NodeId s : segment.sinks) walkFrom(s);

    // What the sinks do not reach (dead ends attached to this segment, or a segment without a
    // single sink such as the shared one): start from its nodes that nothing in the segment
    // still unvisited reads, in structural order.
    while (order.size() < segment.nodes.size()) {
        std::vector<NodeId> ends;
        for (NodeId v : segment.nodes) {
            if (placed(v)) continue;
            bool readByUnvisited = false;
            for (TensorId t : cg.outputs(v)) {
                if (t == kNoTensor) continue;
                for (NodeId c : cg.readers(t))
                    if (c != v && inSegment(c) && !placed(c)) readByUnvisited = true;
            }
            if (!readByUnvisited) ends.push_back(v);
        }
        if (ends.empty()) { // cannot happen in a DAG; keep every node anyway
            for (NodeId v : segment.nodes)
                if (!placed(v)) ends.push_back(v);
        }
        std::sort(ends.begin(), ends.end(), [&](NodeId a, NodeId b) {
            return std::make_pair(hashes.refined[size_t(a)], a) < std::make_pair(hashes.refined[size_t(b)], b);
        });
        for (NodeId v : ends) walkFrom(v);
    }

    segment.hash = hashPlacedOrder(cg, order, hashes, scratch);
    for (NodeId v : order) position[size_t(v)] = -1;
    segment.nodes = std::move(order);
}

uint64_t orderedSignature(const CompactGraph& cg, const std::vector<NodeId>& order, const NodeHashes& hashes, CanonicalScratch& scratch)
{
    for (size_t i = 0; i < order.size(); ++i) scratch.position[size_t(order[i])] = int(i);
    const uint64_t h = hashPlacedOrder(cg, order, hashes, scratch);
    for (NodeId v : order) scratch.position[size_t(v)] = -1;
    return h;
}

} // namespace tapas
