#pragma once
// What Megatron-LM's pretrain_gpt.py needs to build the model a plan is for, read from the graph:
// a decoder-only language model (input ids -> word embedding -> N transformer layers ->
// vocabulary logits). A model of another kind (an encoder without a word embedding, a CNN, a
// classifier head) is refused with the piece it lacks, since the GPT script cannot train it.
#include "core/fold/folded_graph.h"
#include "core/util/result.h"

namespace tapas {

struct MegatronGpt {
    int64_t layers = 0;
    int64_t hidden = 0;
    int64_t heads = 0;
    int64_t ffn = 0;            // 0: not found (Megatron-LM's default, 4 x hidden)
    int64_t seq = 0;
    int64_t maxPositions = 0;   // rows of the learned position table; 0 without one
    int64_t vocab = 0;          // unpadded rows of the word embedding
    int64_t batch = 0;          // samples per step, all data-parallel replicas together
    bool tiedHead = true;       // the logits reuse the word embedding
};

Result<MegatronGpt> readMegatronGpt(const Graph& g, const FoldedGraph& folded);

} // namespace tapas
