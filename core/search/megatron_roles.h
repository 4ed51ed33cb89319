#pragma once
// Megatron-LM's expert plan, recognised by structure rather than by names: a weight matrix
// product is row-parallel when its input descends (without passing another weight product or a
// normalisation's reduction) from a column-parallel one, and column-parallel otherwise; the
// word embedding (the table the input ids index) is vocabulary-parallel; position tables stay
// replicated. So QKV and MLP-up come out column-parallel,
// attention-out and MLP-down row-parallel, the LM head column-parallel. A tied head reads the
// word table again through a Transpose: that Transpose keeps the table split over its vocabulary
// rows (VocabHead), as Megatron-LM's parallel_lm_logits multiplies by each rank's own shard of
// word_embeddings.weight, and the product it feeds is a weight product (column-parallel).
#include "core/ir/graph.h"
#include "core/shard/op_sharding.h"

#include <vector>

namespace tapas {

enum class MegatronRole : uint8_t { None, Column, Row, VocabEmbedding, ReplicatedWeight, VocabHead };

// Indexed by NodeId.
std::vector<MegatronRole> megatronRoles(const Graph& g);
// Whether strategy s is the one Megatron-LM runs for a node of role r (any strategy for None).
bool takesMegatronRole(MegatronRole r, const OpStrategy& s);
// How Megatron-LM runs a node of role r, for messages ("column", "vocab", ...); empty for None.
const char* megatronRoleName(MegatronRole r);

// The word embedding's lookup: the largest 2-D table indexed by the model's input ids (the
// largest table of all when no lookup reads the ids); kNoNode without a table.
NodeId wordEmbedding(const Graph& g);
// The lookup's indices are the model's input ids (a graph input, or one cast or reshaped), not
// positions made from a constant or a Range.
bool looksUpInputIds(const Graph& g, const Node& lookup);

// Megatron-LM pads its vocabulary to a multiple of --make-vocab-size-divisible-by (128) times
// the tensor-parallel degree (vocab_size_with_padding, megatron/core/tokenizers/utils/
// build_tokenizer.py), so the word embedding and the output layer always split over tp.
constexpr int64_t kMegatronVocabDivisor = 128;
int64_t megatronPaddedVocab(int64_t vocab, int tp);

// `g` with the word embedding's table padded that way: its rows and every shape that follows
// from them (the tied or separate LM head's logits) are re-derived. `g` itself when the model
// has no word embedding or the vocabulary is already padded. `vocab` (when given) receives the
// unpadded size (0 without a word embedding).
Graph megatronPaddedGraph(const Graph& g, int tp, int64_t* vocab = nullptr);

} // namespace tapas
