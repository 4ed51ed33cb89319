#pragma once
// INTERNAL to runtime/exec (includes torch): only the exec .cpp files include this header.
//
// Layout changes over the tensor-parallel group as autograd functions, so the backward pass
// gets the matching collective (P->R all-reduce / identity, S->R all-gather / local slice,
// R->S slice / all-gather, P->S reduce-scatter / all-gather, S(a)->S(b) all-to-all both ways,
// R->P keep-on-rank-0 / identity) plus Megatron's "f" (identity / all-reduce). Wall time spent
// inside the communicator is accumulated in TpGroup::commSeconds.
#include "core/shard/sharding_spec.h"
#include "runtime/comm/communicator.h"

#include <torch/torch.h>

namespace tapas::runtime {

struct TpGroup {
    Communicator* comm = nullptr; // null when tp == 1
    int tp = 1;
    int index = 0;
    double commSeconds = 0;
    bool skipFAllReduce = false; // test hook TAPAS_TEST_CORRUPT_COLLECTIVE=1
};

// The group the autograd functions use (one executor per process at a time).
void setActiveTpGroup(TpGroup* g);
TpGroup* activeTpGroup();

// `x` laid out as `from` (interleave fromK) on this rank becomes `to` (interleave toK).
torch::Tensor reshard(const torch::Tensor& x, const TensorLayout& from, int fromK, const TensorLayout& to, int toK);
// Megatron's f: identity forward, all-reduce of the gradient over tp backward.
torch::Tensor copyToTpRegion(const torch::Tensor& x);

// Plain (non-autograd) helpers for weights, targets and reference gradients.
// The permutation of dim `dim` that makes the interleaved shard of rank r contiguous block r.
torch::Tensor interleavePermute(const torch::Tensor& x, int dim, int k, int tp, bool inverse);
// This rank's shard of a whole tensor for `layout` (R: the tensor itself; P: whole on rank 0).
torch::Tensor shardOf(const torch::Tensor& whole, const TensorLayout& layout, int k, int tp, int index);

// Sum of a flat float tensor over a communicator (gradients over dp), timed into `seconds`.
void allReduceInPlace(Communicator& comm, torch::Tensor& flat, double& seconds);

} // namespace tapas::runtime
