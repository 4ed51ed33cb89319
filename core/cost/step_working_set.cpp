#include "core/cost/step_working_set.h"
#include "core/ir/trained_weights.h"
#include "core/ops/op_registry.h"

#include <algorithm>
#include <string_view>

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

} // namespace

StepWorkingSet stepWorkingSet(const Graph& g, const SavedActivations& saved, const std::vector<NodeChain>& chains,
                              const std::vector<char>& weight, const std::vector<double>& bytes)
{
    const size_t T = g.tensors.size(), N = g.nodes.size();
    StepWorkingSet w;
    auto isWeight = [&](TensorId t) { return size_t(t) < weight.size() && weight[size_t(t)]; };
    // Bytes of each storage the forward makes: a node's output that owns its storage, not a
    // weight, not the inside of a fused chain.
    std::vector<double> made(T, 0);
    for (size_t id = 0; id < N; ++id)
        for (TensorId o : g.nodes[id].outputs)
            if (o != kNoTensor && saved.storage[size_t(o)] == o && !isWeight(o)) made[size_t(o)] = bytes[size_t(o)];
    for (const NodeChain& c : chains)
        for (NodeId n : c.nodes)
            for (TensorId o : g.node(n).outputs)
                if (o != kNoTensor && o != c.output) made[size_t(o)] = 0;

    double batch = 0; // the inputs the trainer holds through the step
    for (TensorId t : g.inputs)
        if (g.tensor(t).producer == kNoNode && !isWeight(t) && !g.tensor(t).value) batch += bytes[size_t(t)];

    // Forward: a storage nobody keeps goes after the last reader of any tensor that views it.
    std::vector<NodeId> lastUse(T, kNoNode);
    for (size_t id = 0; id < N; ++id) {
        for (TensorId o : g.nodes[id].outputs)
            if (o != kNoTensor) lastUse[size_t(saved.storage[size_t(o)])] = std::max(lastUse[size_t(saved.storage[size_t(o)])], NodeId(id));
        for (TensorId t : g.nodes[id].inputs)
            if (t != kNoTensor) lastUse[size_t(saved.storage[size_t(t)])] = NodeId(id);
    }
    // Only sums are read: the bytes each node's forward frees and its backward lets go.
    std::vector<char> readByLoss(T, 0); // the loss reads the graph outputs after the forward
    for (TensorId t : g.outputs)
        if (t != kNoTensor) readByLoss[size_t(saved.storage[size_t(t)])] = 1;
    std::vector<double> freedAfter(N, 0), releasedAfter(N, 0);
    for (size_t s = 0; s < T; ++s) {
        if (made[s] <= 0) continue;
        if (saved.kept[s]) {
            w.kept += made[s];
            if (saved.releasedAfter[s] != kNoNode) releasedAfter[size_t(saved.releasedAfter[s])] += made[s];
        } else if (lastUse[s] != kNoNode && !readByLoss[s]) {
            freedAfter[size_t(lastUse[s])] += made[s];
        }
    }
    double live = batch;
    w.forwardPeak = live;
    for (size_t id = 0; id < N; ++id) {
        for (TensorId o : g.nodes[id].outputs)
            if (o != kNoTensor) live += made[size_t(o)];
        w.forwardPeak = std::max(w.forwardPeak, live);
        live -= freedAfter[id];
    }

    // Backward, from what the forward left: each node's backward makes its inputs' gradients
    // while its outputs' gradients are alive, then lets those go and the values only it read.
    std::vector<double> grad(T, 0);
    std::vector<char> hasGrad(T, 0);
    auto takesGradient = [&](TensorId t) {
        return t != kNoTensor && saved.needsGrad[size_t(t)] && !isWeight(t) && g.tensor(t).producer != kNoNode;
    };
    for (TensorId t : g.outputs)
        if (takesGradient(t) && !hasGrad[size_t(t)]) {
            hasGrad[size_t(t)] = 1;
            grad[size_t(t)] = bytes[size_t(t)];
            live += grad[size_t(t)];
        }
    w.backwardPeak = live;
    for (size_t i = N; i-- > 0;) {
        const Node& n = g.nodes[i];
        bool runs = false;
        for (TensorId o : n.outputs) runs = runs || (o != kNoTensor && hasGrad[size_t(o)]);
        if (runs) {
            const TensorId viewed = gradientIsView(n) && !n.outputs.empty() ? n.outputs[0] : kNoTensor;
            for (TensorId t : n.inputs) {
                if (!takesGradient(t) || hasGrad[size_t(t)]) continue; // a second gradient is summed into the first
                hasGrad[size_t(t)] = 1;
                if (viewed != kNoTensor && grad[size_t(viewed)] > 0) {
                    std::swap(grad[size_t(t)], grad[size_t(viewed)]); // the same storage, reshaped
                } else {
                    const bool inner = made[size_t(saved.storage[size_t(t)])] == 0 && saved.storage[size_t(t)] == t;
                    grad[size_t(t)] = inner ? 0 : bytes[size_t(t)];
                    live += grad[size_t(t)];
                }
            }
            // Its trained weights' gradients are made fresh and then added into the ones the step
            // holds (torch's AccumulateGrad), so each is alive twice for a moment.
            double fresh = 0;
            for (size_t k = 0; k < n.inputs.size(); ++k) {
                const TensorId t = n.inputs[k];
                if (t != kNoTensor && isWeight(t) && !isBufferInput(n, k) && isTrainedWeight(g, t)) fresh += bytes[size_t(t)];
            }
            w.backwardPeak = std::max(w.backwardPeak, live + fresh);
            for (TensorId o : n.outputs)
                if (o != kNoTensor) {
                    live -= grad[size_t(o)];
                    grad[size_t(o)] = 0;
                }
        }
        live -= releasedAfter[i];
    }
    // Both walks began from the input batch; what the backward saw also includes the kept values.
    w.forwardPeak = std::max(w.forwardPeak, batch + w.kept);
    return w;
}

} // namespace tapas
