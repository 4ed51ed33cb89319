#pragma once
// Which forward values a training step holds until its backward: what autograd saves when the
// worker runs the graph op by op on libtorch (runtime/exec), which lets every other value go
// after its last reader. A MatMul saves its activation operand when the other one takes a
// gradient, a Softmax its output, a scale by a constant or an Add nothing; of an attention
// core's four batch x heads x seq^2 values (scores, scaled, masked, probabilities) only the
// probabilities stay. Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large
// Transformer Models", sec. 4.1) count a layer's memory the same way.
//
// Values are counted by storage: a Reshape, Squeeze, Transpose, Split or Slice of a value is a
// view of it, so keeping the view keeps the value it looks at (once), except a Reshape of a
// value laid out other than contiguously, which torch copies. The chains the worker runs as one
// torch function (core/ops/node_chains) save what that function saves: layer_norm and gelu their
// input, addmm its activation operand; their inner values are never made.
#include "core/ir/graph.h"
#include "core/ops/node_chains.h"

#include <vector>

namespace tapas {

struct SavedActivations {
    // Per tensor: its storage is held for the backward (a graph output counts: the loss reads
    // it). Set on the tensor that owns the storage, never on a view of another tensor.
    std::vector<char> kept;
    // Per tensor: the tensor whose storage it is (itself unless it is a view).
    std::vector<TensorId> storage;
    // Per node: a Dropout in training mode with a positive ratio. Its backward keeps the mask it
    // drew, one byte an element of its output (Korthikanti's "s b h" and "a s^2 b" mask terms);
    // a Dropout that is not training is a view of its input.
    std::vector<char> dropoutMask;
    // Per tensor: a floating activation that takes a gradient (it depends on a trained weight),
    // so the backward makes a gradient of it.
    std::vector<char> needsGrad;
    // Per tensor that owns a kept storage: the earliest node (in graph order) whose backward
    // reads it, after which the backward lets it go; kNoNode for a graph output (the loss reads
    // it) or a storage nothing saves.
    std::vector<NodeId> releasedAfter;
    // Per node: a MaxPool that takes a gradient. torch's max_pool2d keeps the index of each
    // output element's maximum for the backward, an int64 an element of its output.
    std::vector<char> poolIndices;
    // Per node: a BatchNormalization that takes a gradient. The worker's inference form divides by
    // sqrt(var + eps), which the division's backward keeps: one value per channel.
    std::vector<char> batchNormScale;
    // Per node: elements its kernel makes and autograd keeps that are no tensor of the graph. A
    // recurrent cell (LSTM, GRU, RNN) is composed of torch ops per time step
    // (runtime/exec/kernels/recurrent_kernels); the activations' outputs of every step stay for
    // the backward: an LSTM step keeps sigmoid(i), sigmoid(f), tanh(g), sigmoid(o), tanh(c') and,
    // for the next step's product and recurrent matmul, c' and h', 7 x batch x hidden.
    std::vector<double> innerKept;
};

// `chains`: the node chains the worker fuses (findNodeChains on the graph alone).
SavedActivations savedActivations(const Graph& g, const std::vector<NodeChain>& chains);

} // namespace tapas
