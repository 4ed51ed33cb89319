#include "core/shard/collective.h"

namespace tapas {

std::string_view collectiveName(CollectiveKind k)
{
    switch (k) {
    case CollectiveKind::None: return "none";
    case CollectiveKind::AllReduce: return "all-reduce";
    case CollectiveKind::AllGather: return "all-gather";
    case CollectiveKind::ReduceScatter: return "reduce-scatter";
    case CollectiveKind::AllToAll: return "all-to-all";
    case CollectiveKind::Slice: return "slice";
    }
    return "?";
}

CollectiveKind reshardCollective(const TensorLayout& from, const TensorLayout& to)
{
    using K = TensorLayout::Kind;
    if (from == to) return CollectiveKind::None;
    if (from.kind == K::P) return to.kind == K::R ? CollectiveKind::AllReduce : CollectiveKind::ReduceScatter;
    if (from.kind == K::R) return to.kind == K::S ? CollectiveKind::Slice : CollectiveKind::None; // R -> P: keep on one device
    // from S
    if (to.kind == K::R) return CollectiveKind::AllGather;
    if (to.kind == K::S) return CollectiveKind::AllToAll;
    return CollectiveKind::AllGather; // S -> P: gather, then treat as a partial held once
}

CollectiveKind backwardCollective(CollectiveKind forward)
{
    switch (forward) {
    case CollectiveKind::Slice: return CollectiveKind::AllGather;     // slice grads reassembled
    case CollectiveKind::ReduceScatter: return CollectiveKind::AllGather;
    case CollectiveKind::AllToAll: return CollectiveKind::AllToAll;
    case CollectiveKind::AllGather: return CollectiveKind::Slice;      // replicated grad: keep own part
    case CollectiveKind::AllReduce: return CollectiveKind::None;       // grad of a sum is replicated
    case CollectiveKind::None: return CollectiveKind::None;
    }
    return CollectiveKind::None;
}

double collectiveWireBytes(CollectiveKind k, double fullBytes, int n)
{
    if (n <= 1) return 0;
    const double f = double(n - 1) / n;
    switch (k) {
    case CollectiveKind::AllReduce: return 2 * f * fullBytes;
    case CollectiveKind::AllGather:
    case CollectiveKind::ReduceScatter: return f * fullBytes;
    case CollectiveKind::AllToAll: return f * fullBytes / n;
    default: return 0;
    }
}

} // namespace tapas
