#pragma once
// INTERNAL to runtime/exec (includes torch). Per-node timing for `tapas-worker train-plan
// --profile-nodes`: after the training steps, one more step's forward runs each node (or fused
// chain) again alone on copies of its inputs, forward and backward, as the cost model prices
// it, timed in CPU time (so other processes on the cores do not inflate it). The cost model's per-family rates are checked against these
// (`tapas bench run --profile`); the step time less their sum is what no node accounts for
// (the interpreter's own bookkeeping, collectives, Adam).
#include "core/ir/graph.h"
#include "core/util/cpu_clock.h"
#include "core/util/result.h"

#include <torch/torch.h>

#include <functional>
#include <string>
#include <vector>

namespace tapas::runtime {

struct NodeTiming {
    std::vector<NodeId> nodes; // the node, or a fused chain's nodes in graph order
    std::string fused;        // the chain's kind ("layer_norm"), "" for one node
    double isolated = 0;      // CPU s, median forward + backward run alone on copies of its inputs
};

// Median forward + backward CPU seconds (threadCpuSeconds: with one intra-op thread a node's
// work is all on the calling thread) of `fn` on copies of `in` (detached, requiring a gradient
// where the original did) over `reps` runs after one warm-up; the backward seeds ones on every
// output that requires a gradient.
double timeForwardBackward(const std::function<std::vector<torch::Tensor>(const std::vector<torch::Tensor>&)>& fn,
                           const std::vector<torch::Tensor>& in, int reps = 3);

// Writes the timings as JSON (nodes named, op types, rank) to `path`.
Status writeNodeProfile(const std::string& path, const Graph& g, int rank, const std::vector<NodeTiming>& timings);

} // namespace tapas::runtime
