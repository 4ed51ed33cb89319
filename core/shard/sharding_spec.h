#pragma once
// How one tensor is laid out over the device mesh (DESIGN.md, "ShardingSpec"). The search
// decides the tensor-parallel axis; the data-parallel axis always splits the batch of every
// activation, so a tensor's tp layout is R (whole on every device), S(d) (dimension d split
// over the tp devices) or P (every device holds a partial sum pending a reduction).
#include "core/util/result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tapas {

struct TensorLayout {
    enum Kind : int8_t { R, S, P };
    Kind kind = R;
    int8_t dim = -1; // split dimension when kind == S

    static TensorLayout replicated() { return {}; }
    static TensorLayout split(int d) { return {S, int8_t(d)}; }
    static TensorLayout partial() { return {P, -1}; }
    bool operator==(const TensorLayout& o) const { return kind == o.kind && dim == o.dim; }
    bool operator!=(const TensorLayout& o) const { return !(*this == o); }
    bool operator<(const TensorLayout& o) const { return kind != o.kind ? kind < o.kind : dim < o.dim; }
    std::string toString() const; // "R", "S(2)", "P"
};

// The general per-dimension form used in plan files and views: "R" or "S(dp)"/"S(tp)" per
// dimension plus a partial flag, e.g. [S(dp), R, S(tp)].
struct ShardingSpec {
    std::vector<std::string> dims;
    bool partial = false;
    std::string toString() const; // "[S(dp),R,S(tp)]" or "[S(dp),R,R]+P(tp)"
};

// `batchSplitByDp`: activations and inputs have their first dimension split over dp.
ShardingSpec toShardingSpec(const TensorLayout& tp, int rank, bool batchSplitByDp);
// "R", "P" or "S(d)" as toString() writes them; an error names the text.
Result<TensorLayout> parseTensorLayout(const std::string& text);

} // namespace tapas
