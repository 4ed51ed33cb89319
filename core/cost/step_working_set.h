#pragma once
// The activation memory a device holds at the fullest moment of one training step, walked in
// the order the worker runs it (runtime/exec's GraphInterpreter: graph order forward, the
// reverse backward). What autograd saves (SavedActivations) is only part of it: in the forward
// a value nobody saves still lives until its last reader, and in the backward the gradient of
// each activation lives from the backward of its last reader to that of its producer, next to
// the saved values not yet let go. A small model's step peaks there: a mel spectrogram's
// gradients are as large as its kept values.
//
// Counted per device in the caller's bytes (the plan's layouts): the input batch (held by the
// trainer for the whole step), every value a node makes that is not the inside of a fused chain
// (core/ops/node_chains: layer_norm, gelu, addmm make no inner values), and the gradients of
// floating activations that depend on a trained weight. A view (Reshape, Transpose, ...) makes
// no storage, and neither does its gradient. Weights, their gradients and the optimizer's state
// are the cost model's weight memory, not counted here, except the moment a node's backward has
// made its weights' gradients and not yet added them into the held ones (torch's AccumulateGrad
// makes a fresh tensor and adds it in place). Scratch space inside one kernel (a convolution's
// im2col buffer), which the allocator hands out and takes back within the op, is not counted.
//
// How libtorch 1.13's autograd engine sums gradients, measured with the worker's counting
// allocator: a tensor's second gradient is added to the first out of place, so at that moment
// the old one, the new one and the sum are alive (three times the tensor); a weight read by
// several nodes (slices of it, a tied embedding) collects its readers' gradients in one buffer
// that lives from the first reader's backward to the last one's before AccumulateGrad adds it
// in; Concat's input gradients are slices of its output's gradient, no new storage.
#include "core/cost/saved_activations.h"
#include "core/ir/graph.h"

#include <cstdint>
#include <vector>

namespace tapas {

struct StepWorkingSet {
    double kept = 0;          // storages the forward keeps for the backward, made by nodes
    double forwardPeak = 0;   // the most alive at once while the forward runs (input batch included)
    double backwardPeak = 0;  // ... while the backward runs: saved values not yet let go + gradients
    double peak() const { return forwardPeak > backwardPeak ? forwardPeak : backwardPeak; }
    // What the peak holds beyond the kept storages (never negative).
    double aboveKept() const { return peak() > kept ? peak() - kept : 0; }
};

// The walk with everything a plan does not change found once (a cost model builds it once and
// runs it for every report): which storages each node makes, which of them the forward frees
// after which node and the backward lets go after which, which gradients each backward makes
// and drops (a view's gradient moves into its input's), which trained weights' fresh gradients
// it adds. What is left per plan is the bytes of the tensors it reads (terms()), summed in one
// pass over a list of steps in the order the walk above adds and subtracts them, so the figures
// are those of the walk, to the bit.
class StepWorkingSetWalk {
public:
    StepWorkingSetWalk() = default;
    // `holds`: per tensor, whether a device holds bytes of it under the plans to come (the bytes
    // of a floating activation, input or trained weight; none of an integer or known value).
    // `weight`: per tensor, a trained weight or buffer. `chains`: the chains the worker fuses.
    StepWorkingSetWalk(const Graph& g, const SavedActivations& saved, const std::vector<NodeChain>& chains,
                       const std::vector<char>& weight, const std::vector<char>& holds);
    // The tensors whose bytes the walk reads, each once; run() takes their bytes in this order
    // (a weight's: its gradient's on one device, as its last reader holds it).
    const std::vector<TensorId>& terms() const { return terms_; }
    // `termBytes[k]`: bytes of terms()[k] on one device under the plan. `nodeExtra`, when given
    // (one per node, zeroed): per node, the most its forward or backward holds beyond the kept
    // storages alive then (values nobody keeps, gradients, fresh weight gradients, the batch).
    StepWorkingSet run(const double* termBytes, double* nodeExtra = nullptr) const;

private:
    enum class Op : uint8_t {
        Add,          // live += each of `count` terms; kept ones also join the kept alive
        SubSum,       // live -= the sum of `count` terms (values a forward node was the last to read)
        SubKeptSum,   // live and the kept alive -= the sum of `count` kept terms (let go after a backward)
        SubEach,      // live -= each of `count` terms (gradients a backward drops)
        ForwardMax,   // the forward's moment at node `node`
        BackwardStart,
        BackwardMax,  // the backward's moment at node `node`, with `count` fresh weight gradients beside it
    };
    struct Step {
        Op op;
        uint32_t count = 0;
        NodeId node = kNoNode;
    };
    std::vector<TensorId> terms_;
    std::vector<uint32_t> args_;  // term indices, read in order by the steps
    std::vector<char> argKept_;   // per args_ entry of an Add: a kept storage
    uint32_t batchCount_ = 0;     // args_ begins with the batch's terms, then the kept ones
    uint32_t keptCount_ = 0;
    std::vector<Step> steps_;
};

} // namespace tapas
