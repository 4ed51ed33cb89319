#include "core/cost/step_working_set.h"
#include "core/ir/trained_weights.h"
#include "core/ops/op_registry.h"

#include <algorithm>
#include <string_view>
#include <type_traits>

namespace tapas {

namespace {

// Ops whose input gradient torch returns as a view of the output gradient (a reshape or a
// permutation of it): no new storage. Slice, Split and Expand share their input's storage in
// the forward but make a new gradient (zeros with a slice written, a concatenation, a sum).
bool gradientIsView(const Node& n)
{
    for (std::string_view op : {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Transpose", "Dropout"})
        if (n.opType == op) return true;
    return false;
}

// Lists of terms per node, in the order they were added (a node's sums are added up in it).
struct PerNodeLists {
    std::vector<std::pair<NodeId, uint32_t>> entries;
    std::vector<uint32_t> begin; // per node + 1: where its terms start in `sorted`
    std::vector<uint32_t> sorted;
    void finish(size_t nodes)
    {
        begin.assign(nodes + 1, 0);
        for (const auto& [n, k] : entries) ++begin[size_t(n) + 1];
        for (size_t i = 0; i < nodes; ++i) begin[i + 1] += begin[i];
        sorted.resize(entries.size());
        std::vector<uint32_t> at(begin.begin(), begin.end() - 1);
        for (const auto& [n, k] : entries) sorted[at[size_t(n)]++] = k;
    }
};

} // namespace

StepWorkingSetWalk::StepWorkingSetWalk(const Graph& g, const SavedActivations& saved, const std::vector<NodeChain>& chains,
                                       const std::vector<char>& weight, const std::vector<char>& holds)
{
    const size_t T = g.tensors.size(), N = g.nodes.size();
    auto isWeight = [&](TensorId t) { return size_t(t) < weight.size() && weight[size_t(t)]; };
    auto has = [&](TensorId t) { return size_t(t) < holds.size() && holds[size_t(t)]; };
    std::vector<int32_t> termOf(T, -1);
    auto term = [&](TensorId t) {
        if (termOf[size_t(t)] < 0) {
            termOf[size_t(t)] = int32_t(terms_.size());
            terms_.push_back(t);
        }
        return uint32_t(termOf[size_t(t)]);
    };
    // The storages the forward makes: a node's output that owns its storage, not a weight, not
    // the inside of a fused chain, holding bytes.
    std::vector<char> made(T, 0);
    for (size_t id = 0; id < N; ++id)
        for (TensorId o : g.nodes[id].outputs)
            if (o != kNoTensor && saved.storage[size_t(o)] == o && !isWeight(o) && has(o)) made[size_t(o)] = 1;
    for (const NodeChain& c : chains)
        for (NodeId n : c.nodes)
            for (TensorId o : g.node(n).outputs)
                if (o != kNoTensor && o != c.output) made[size_t(o)] = 0;

    // The inputs the trainer holds through the step.
    for (TensorId t : g.inputs)
        if (g.tensor(t).producer == kNoNode && !isWeight(t) && !g.tensor(t).value && has(t)) args_.push_back(term(t));
    batchCount_ = uint32_t(args_.size());

    // Forward: a storage nobody keeps goes after the last reader of any tensor that views it.
    std::vector<NodeId> lastUse(T, kNoNode);
    for (size_t id = 0; id < N; ++id) {
        for (TensorId o : g.nodes[id].outputs)
            if (o != kNoTensor) lastUse[size_t(saved.storage[size_t(o)])] = std::max(lastUse[size_t(saved.storage[size_t(o)])], NodeId(id));
        for (TensorId t : g.nodes[id].inputs)
            if (t != kNoTensor) lastUse[size_t(saved.storage[size_t(t)])] = NodeId(id);
    }
    std::vector<char> readByLoss(T, 0); // the loss reads the graph outputs after the forward
    for (TensorId t : g.outputs)
        if (t != kNoTensor) readByLoss[size_t(saved.storage[size_t(t)])] = 1;
    PerNodeLists freed, released;
    for (size_t s = 0; s < T; ++s) {
        if (!made[s]) continue;
        if (saved.kept[s]) {
            args_.push_back(term(TensorId(s)));
            ++keptCount_;
            if (saved.releasedAfter[s] != kNoNode) released.entries.emplace_back(saved.releasedAfter[s], term(TensorId(s)));
        } else if (lastUse[s] != kNoNode && !readByLoss[s]) {
            freed.entries.emplace_back(lastUse[s], term(TensorId(s)));
        }
    }
    freed.finish(N);
    released.finish(N);
    argKept_.assign(args_.size(), 0);
    auto push = [&](Op op, uint32_t count, NodeId node = kNoNode) {
        steps_.push_back({op, count, node});
        argKept_.resize(args_.size(), 0);
    };
    auto pushList = [&](Op op, const PerNodeLists& l, size_t id) {
        const uint32_t count = l.begin[id + 1] - l.begin[id];
        if (count == 0) return; // nothing to subtract: live is unchanged
        args_.insert(args_.end(), l.sorted.begin() + l.begin[id], l.sorted.begin() + l.begin[id + 1]);
        push(op, count);
    };
    for (size_t id = 0; id < N; ++id) {
        uint32_t adds = 0;
        for (TensorId o : g.nodes[id].outputs)
            if (o != kNoTensor && made[size_t(o)]) {
                args_.push_back(term(o));
                argKept_.push_back(saved.kept[size_t(o)]);
                ++adds;
            }
        // Without anything made live has only gone down since the last moment: no new peak.
        if (adds) {
            push(Op::Add, adds);
            push(Op::ForwardMax, 0, NodeId(id));
        }
        pushList(Op::SubSum, freed, id);
    }

    // Backward, from what the forward left: each node's backward makes its inputs' gradients
    // while its outputs' gradients are alive, then lets those go and the values only it read.
    // gradTerm: the term whose bytes the gradient of a tensor holds (-1: none, or none yet).
    std::vector<int32_t> gradTerm(T, -1);
    std::vector<char> hasGrad(T, 0);
    auto takesGradient = [&](TensorId t) {
        return t != kNoTensor && saved.needsGrad[size_t(t)] && !isWeight(t) && g.tensor(t).producer != kNoNode;
    };
    std::vector<int8_t> trainedCache(T, -1); // isTrainedWeight reads the weight's every reader: asked once per weight
    auto trained = [&](TensorId t) {
        int8_t& c = trainedCache[size_t(t)];
        if (c < 0) c = isTrainedWeight(g, t) ? 1 : 0;
        return c == 1;
    };
    // Which nodes' backward runs (one of their outputs has a gradient), found first: a weight
    // several of them read collects its gradient over all of them (below).
    std::vector<char> runs(N, 0);
    {
        std::vector<char> reached(T, 0);
        for (TensorId t : g.outputs)
            if (takesGradient(t)) reached[size_t(t)] = 1;
        for (size_t i = N; i-- > 0;) {
            for (TensorId o : g.nodes[i].outputs) runs[i] = runs[i] || (o != kNoTensor && reached[size_t(o)]);
            if (runs[i])
                for (TensorId t : g.nodes[i].inputs)
                    if (takesGradient(t)) reached[size_t(t)] = 1;
        }
    }
    // A trained weight's gradient as its readers' backward make it. One reader: made fresh and
    // added into the held gradient at once (torch's AccumulateGrad), alive twice for a moment.
    // Several: autograd sums them in a buffer before AccumulateGrad runs, from the first reader's
    // backward to the last one's.
    auto trainedInput = [&](const Node& n, size_t k) {
        const TensorId t = n.inputs[k];
        return t != kNoTensor && isWeight(t) && has(t) && !isBufferInput(n, k) && trained(t);
    };
    std::vector<uint32_t> readers(T, 0), seen(T, 0);
    for (size_t i = 0; i < N; ++i) {
        if (!runs[i]) continue;
        const Node& n = g.nodes[i];
        for (size_t k = 0; k < n.inputs.size(); ++k)
            if (trainedInput(n, k) && std::find(n.inputs.begin(), n.inputs.begin() + long(k), n.inputs[k]) == n.inputs.begin() + long(k))
                ++readers[size_t(n.inputs[k])];
    }
    uint32_t seeds = 0;
    for (TensorId t : g.outputs)
        if (takesGradient(t) && !hasGrad[size_t(t)]) {
            hasGrad[size_t(t)] = 1;
            if (!has(t)) continue;
            gradTerm[size_t(t)] = int32_t(term(t));
            args_.push_back(uint32_t(gradTerm[size_t(t)]));
            ++seeds;
        }
    if (seeds) push(Op::Add, seeds);
    push(Op::BackwardStart, 0);
    for (size_t i = N; i-- > 0;) {
        const Node& n = g.nodes[i];
        if (runs[i]) {
            const TensorId viewed = gradientIsView(n) && !n.outputs.empty() ? n.outputs[0] : kNoTensor;
            // Concat's input gradients are slices of its output's gradient (torch narrows it):
            // that storage lives on with the input whose producer's backward runs last.
            TensorId carrier = kNoTensor;
            if (n.opType == "Concat" && !n.outputs.empty() && n.outputs[0] != kNoTensor && gradTerm[size_t(n.outputs[0])] >= 0)
                for (TensorId t : n.inputs)
                    if (takesGradient(t) && !hasGrad[size_t(t)] &&
                        (carrier == kNoTensor || g.tensor(t).producer < g.tensor(carrier).producer))
                        carrier = t;
            const bool slicesOfOutput = carrier != kNoTensor;
            uint32_t adds = 0;
            std::vector<uint32_t> sums; // gradients summed into one the tensor already has
            for (TensorId t : n.inputs) {
                if (!takesGradient(t)) continue;
                const bool inner = !made[size_t(saved.storage[size_t(t)])] && saved.storage[size_t(t)] == t;
                if (hasGrad[size_t(t)]) {
                    // A second gradient: autograd adds the two into a new tensor, so the old, the
                    // new (unless it is a view of the output's) and the sum are alive at once.
                    if (inner || !has(t)) continue;
                    sums.push_back(term(t));
                    if (viewed == kNoTensor && !slicesOfOutput) sums.push_back(term(t));
                    continue;
                }
                hasGrad[size_t(t)] = 1;
                if (viewed != kNoTensor && gradTerm[size_t(viewed)] >= 0) {
                    std::swap(gradTerm[size_t(t)], gradTerm[size_t(viewed)]); // the same storage, reshaped
                } else if (slicesOfOutput) {
                    if (t == carrier) std::swap(gradTerm[size_t(t)], gradTerm[size_t(n.outputs[0])]);
                } else {
                    if (inner || !has(t)) continue;
                    gradTerm[size_t(t)] = int32_t(term(t));
                    args_.push_back(uint32_t(gradTerm[size_t(t)]));
                    ++adds;
                }
            }
            if (adds) push(Op::Add, adds);
            uint32_t fresh = 0, buffers = 0;
            std::vector<uint32_t> collected; // buffers whose last reader this is
            for (size_t k = 0; k < n.inputs.size(); ++k) {
                if (!trainedInput(n, k) || std::find(n.inputs.begin(), n.inputs.begin() + long(k), n.inputs[k]) != n.inputs.begin() + long(k))
                    continue;
                const TensorId t = n.inputs[k];
                const uint32_t nth = ++seen[size_t(t)];
                if (readers[size_t(t)] <= 1) {
                    sums.push_back(term(t)); // fresh, added in at once
                } else if (nth == 1) {
                    args_.push_back(term(t)); // the buffer
                    ++buffers;
                } else {
                    sums.push_back(term(t)); // the new one and the sum beside the buffer
                    sums.push_back(term(t));
                    if (nth == readers[size_t(t)]) collected.push_back(term(t));
                }
            }
            if (buffers) push(Op::Add, buffers);
            fresh = uint32_t(sums.size());
            args_.insert(args_.end(), sums.begin(), sums.end());
            // Nothing new alive and nothing transient: live has only gone down since the last moment.
            if (adds || buffers || fresh) push(Op::BackwardMax, fresh, NodeId(i));
            if (!collected.empty()) {
                args_.insert(args_.end(), collected.begin(), collected.end());
                push(Op::SubEach, uint32_t(collected.size()));
            }
            uint32_t drops = 0;
            for (TensorId o : n.outputs)
                if (o != kNoTensor && gradTerm[size_t(o)] >= 0) {
                    args_.push_back(uint32_t(gradTerm[size_t(o)]));
                    gradTerm[size_t(o)] = -1;
                    ++drops;
                }
            if (drops) push(Op::SubEach, drops);
        }
        pushList(Op::SubKeptSum, released, i);
    }
    argKept_.resize(args_.size(), 0);
}

namespace {

// The walk over the steps; `PerNode` also follows the kept storages alive, for each node's extra.
template <bool PerNode>
StepWorkingSet runSteps(const auto& steps, const uint32_t* a, const char* kept, uint32_t batchCount, uint32_t keptCount,
                        const double* b, double* nodeExtra)
{
    StepWorkingSet w;
    double batch = 0;
    for (uint32_t k = 0; k < batchCount; ++k) batch += b[*a++];
    kept += batchCount;
    double keptSum = 0;
    for (uint32_t k = 0; k < keptCount; ++k) keptSum += b[*a++];
    kept += keptCount;
    w.kept = keptSum;
    double live = batch, keptAlive = 0;
    w.forwardPeak = live;
    using Op = std::remove_cvref_t<decltype(steps.front().op)>;
    for (const auto& s : steps) {
        switch (s.op) {
        case Op::Add:
            for (uint32_t k = 0; k < s.count; ++k, ++a, ++kept) {
                live += b[*a];
                if constexpr (PerNode)
                    if (*kept) keptAlive += b[*a];
            }
            break;
        case Op::SubSum:
        case Op::SubKeptSum: {
            double sum = 0;
            for (uint32_t k = 0; k < s.count; ++k, ++a, ++kept) sum += b[*a];
            live -= sum;
            if constexpr (PerNode)
                if (s.op == Op::SubKeptSum) keptAlive -= sum;
            break;
        }
        case Op::SubEach:
            for (uint32_t k = 0; k < s.count; ++k, ++a, ++kept) live -= b[*a];
            break;
        case Op::ForwardMax:
            w.forwardPeak = std::max(w.forwardPeak, live);
            if constexpr (PerNode) nodeExtra[size_t(s.node)] = std::max(nodeExtra[size_t(s.node)], live - keptAlive);
            break;
        case Op::BackwardStart:
            w.backwardPeak = live;
            break;
        case Op::BackwardMax: {
            double fresh = 0;
            for (uint32_t k = 0; k < s.count; ++k, ++a, ++kept) fresh += b[*a];
            w.backwardPeak = std::max(w.backwardPeak, live + fresh);
            if constexpr (PerNode) nodeExtra[size_t(s.node)] = std::max(nodeExtra[size_t(s.node)], live + fresh - keptAlive);
            break;
        }
        }
    }
    // Both walks began from the input batch; what the backward saw also includes the kept values.
    w.forwardPeak = std::max(w.forwardPeak, batch + w.kept);
    return w;
}

} // namespace

StepWorkingSet StepWorkingSetWalk::run(const double* termBytes, double* nodeExtra) const
{
    return nodeExtra ? runSteps<true>(steps_, args_.data(), argKept_.data(), batchCount_, keptCount_, termBytes, nodeExtra)
                     : runSteps<false>(steps_, args_.data(), argKept_.data(), batchCount_, keptCount_, termBytes, nullptr);
}

} // namespace tapas
