#pragma once
// The attention heads of a transformer, read from the graph's structure: the Reshape that cuts a
// [.., hidden] activation into heads of head_dim ([.., heads, head_dim] as HF transformers write
// it, [seq, batch*heads, head_dim] as torch's nn.MultiheadAttention does), recognised by what
// its output feeds: a product of two activations (the attention scores or the context). Megatron-LM
// splits attention by heads, so its tensor-parallel degree must divide them.
#include "core/ir/graph.h"

#include <optional>

namespace tapas {

struct AttentionHeads {
    int64_t heads = 0;
    int64_t headDim = 0;
    int64_t hidden = 0;     // heads * headDim
    NodeId reshape = kNoNode; // the first Reshape that splits them
};

// The heads of the first attention in node order; nullopt for a model without one.
std::optional<AttentionHeads> attentionHeads(const Graph& g);

} // namespace tapas
