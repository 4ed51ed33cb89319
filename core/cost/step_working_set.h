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
#include "core/cost/saved_activations.h"
#include "core/ir/graph.h"

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

// `bytes`: per tensor, its bytes on one device under the plan (0 where it holds none: integer
// and known-value tensors; a weight's, its gradient's). `weight`: per tensor, a trained weight or buffer. `chains`: the
// chains the worker fuses.
StepWorkingSet stepWorkingSet(const Graph& g, const SavedActivations& saved, const std::vector<NodeChain>& chains,
                              const std::vector<char>& weight, const std::vector<double>& bytes);

} // namespace tapas
