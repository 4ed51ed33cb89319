#pragma once
// Megatron-LM's expert plan, recognised by structure rather than by names: a weight matrix
// product is row-parallel when its input descends (without passing another weight product or a
// normalisation's reduction) from a column-parallel one, and column-parallel otherwise; the
// largest embedding table is vocabulary-parallel. So QKV and MLP-up come out column-parallel,
// attention-out and MLP-down row-parallel, the LM head column-parallel.
#include "core/ir/graph.h"

#include <vector>

namespace tapas {

enum class MegatronRole : uint8_t { None, Column, Row, VocabEmbedding, ReplicatedWeight };

// Indexed by NodeId.
std::vector<MegatronRole> megatronRoles(const Graph& g);

} // namespace tapas
