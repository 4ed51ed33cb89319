#pragma once
// The collectives a layout change needs and the bytes each device moves for them (ring
// algorithms: all-reduce 2(n-1)/n of the tensor, all-gather and reduce-scatter (n-1)/n).
#include "core/shard/sharding_spec.h"

#include <string_view>

namespace tapas {

enum class CollectiveKind : uint8_t { None, AllReduce, AllGather, ReduceScatter, AllToAll, Slice };

std::string_view collectiveName(CollectiveKind k); // "all-reduce", ...

// Forward collective turning layout `from` into `to` over one mesh axis. R -> S is a local
// slice (no communication). Returns None when the layouts are equal.
CollectiveKind reshardCollective(const TensorLayout& from, const TensorLayout& to);
// What the gradient needs in the backward pass for that forward collective.
CollectiveKind backwardCollective(CollectiveKind forward);

// Bytes one device sends for the collective over a tensor of `fullBytes` (its unsplit size)
// in a group of n devices.
double collectiveWireBytes(CollectiveKind k, double fullBytes, int n);

} // namespace tapas
