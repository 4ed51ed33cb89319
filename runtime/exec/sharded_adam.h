#pragma once
// INTERNAL to runtime/exec (includes torch): Adam with its state sharded over the data-parallel
// group, as ZeRO stage 1 and Megatron-LM's distributed optimizer run it. The flat gradient
// buffer is reduce-scattered (each dp rank receives the sum of its own block), each rank keeps
// the two moments of its block only and updates that block of the weights, and the updated
// blocks are all-gathered back into every rank's weights. The same bytes cross the wire as one
// all-reduce; the moments take 1/dp of the memory; the update is element-wise, so every weight
// ends the step bit for bit as the unsharded Adam leaves it.
#include "runtime/comm/communicator.h"
#include "runtime/exec/adam_update.h"

#include <torch/types.h>

#include <cstdint>

namespace tapas::runtime {

class ShardedAdam {
public:
    // The flat buffers must hold paddedLength(n, dp) floats, so the blocks are equal.
    static int64_t paddedLength(int64_t n, int dp);

    // `dp` is the group the state is sharded over; `length` the padded flat length.
    ShardedAdam(Communicator& dp, int64_t length);

    // Sums the flat gradients over the group into this rank's block (the other blocks are left
    // undefined); timed into `seconds`.
    void reduceGradients(torch::Tensor& flatGrads, double& seconds);
    // Adam on this rank's block of `flatParams` from its block of `flatGrads`, then every
    // rank's updated block gathered into `flatParams`; the gather is timed into `seconds`.
    void update(torch::Tensor& flatParams, const torch::Tensor& flatGrads, int64_t step, const AdamSettings& a,
                double& seconds);

    // This rank's block: where it starts in the flat buffers, and its moments.
    int64_t blockBegin() const { return begin_; }
    int64_t blockLength() const { return length_; }
    torch::Tensor& firstMoment() { return m_; }
    torch::Tensor& secondMoment() { return v_; }
    const torch::Tensor& firstMoment() const { return m_; }
    const torch::Tensor& secondMoment() const { return v_; }

private:
    Communicator& comm_;
    int64_t begin_ = 0, length_ = 0;
    torch::Tensor m_, v_;
};

} // namespace tapas::runtime
