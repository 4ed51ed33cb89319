#include "core/plan/megatron_gpt.h"

#include "core/plan/export_common.h"
#include "core/search/attention_heads.h"
#include "core/search/megatron_roles.h"

#include <algorithm>

namespace tapas {

namespace {

Result<MegatronGpt> refuse(const Graph& g, const std::string& lacks)
{
    return Result<MegatronGpt>::failure("Megatron-LM's pretrain_gpt.py trains a decoder-only language model (input ids -> word "
                                        "embedding -> transformer layers -> vocabulary logits), and model '" + g.name + "' " +
                                        lacks);
}

std::string inputsText(const Graph& g)
{
    std::string s;
    for (TensorId t : g.inputs)
        s += std::string(s.empty() ? "" : ", ") + "'" + g.tensor(t).name + "' " + std::string(dtypeName(g.tensor(t).dtype)) + " " +
             g.tensor(t).shape.toString();
    return s.empty() ? "none" : s;
}

int64_t lastDim(const Graph& g, TensorId t)
{
    const Shape& s = g.tensor(t).shape;
    return s.rankKnown && s.rank() > 0 && s.dims.back().isKnown() ? s.dims.back().value : -1;
}

} // namespace

Result<MegatronGpt> readMegatronGpt(const Graph& g, const FoldedGraph& folded)
{
    const NodeId word = wordEmbedding(g);
    if (word == kNoNode || !looksUpInputIds(g, g.node(word)))
        return refuse(g, "has no word embedding looked up by its inputs (inputs: " + inputsText(g) + ")");
    const std::optional<AttentionHeads> heads = attentionHeads(g);
    if (!heads) return refuse(g, "has no attention whose heads could be read");
    MegatronGpt m;
    const TensorId table = g.node(word).input(0);
    const Shape& ts = g.tensor(table).shape;
    m.vocab = ts.dims[0].value;
    m.hidden = ts.dims[1].value;
    m.heads = heads->heads;
    if (heads->hidden != m.hidden)
        return refuse(g, "splits " + std::to_string(heads->hidden) + " features into heads but embeds tokens in " +
                             std::to_string(m.hidden));
    // The logits: a graph output of one score per vocabulary entry, made by a weight product.
    NodeId head = kNoNode;
    for (TensorId out : g.outputs) {
        const NodeId p = g.tensor(out).producer;
        if (p != kNoNode && lastDim(g, out) == m.vocab && linearWeight(g, p) != kNoTensor) head = p;
    }
    if (head == kNoNode)
        return refuse(g, "has no output of " + std::to_string(m.vocab) + " vocabulary logits (an encoder or a classifier)");
    m.tiedHead = linearWeight(g, head) == table;
    // Layers: the instances of the block class that holds the attention.
    const NodeBlockRef& ref = folded.nodeRef.at(size_t(heads->reshape));
    m.layers = ref.classId >= 0 ? int64_t(folded.classes[size_t(ref.classId)].instances.size()) : 1;
    // FFN: the widest column-parallel product of a layer that is not the packed QKV.
    const std::vector<MegatronRole> roles = megatronRoles(g);
    if (ref.classId >= 0)
        for (NodeId n : folded.classes[size_t(ref.classId)].instances.front().nodes) {
            if (roles[size_t(n)] != MegatronRole::Column || g.node(n).outputs.empty()) continue;
            const int64_t f = lastDim(g, g.node(n).outputs[0]);
            if (f != 3 * m.hidden && f != m.hidden) m.ffn = std::max(m.ffn, f);
        }
    // Positions: another table of hidden-wide rows (learned absolute positions).
    for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n)
        if (roles[size_t(n)] == MegatronRole::ReplicatedWeight && g.node(n).opType == "Gather") {
            const Shape& s = g.tensor(g.node(n).input(0)).shape;
            if (s.rank() == 2 && s.dims[1].isKnown() && s.dims[1].value == m.hidden && s.dims[0].isKnown())
                m.maxPositions = std::max(m.maxPositions, s.dims[0].value);
        }
    // Sequence and batch: the input ids [batch, seq].
    const Shape& ids = g.tensor(g.node(word).input(1)).shape;
    TensorId idsTensor = g.node(word).input(1);
    while (g.tensor(idsTensor).producer != kNoNode) idsTensor = g.node(g.tensor(idsTensor).producer).input(0);
    const Shape& in = g.tensor(idsTensor).shape;
    const Shape& use = in.rank() == 2 ? in : ids;
    if (use.rank() != 2 || !use.dims[0].isKnown() || !use.dims[1].isKnown())
        return Result<MegatronGpt>::failure("Megatron-LM needs a fixed batch and sequence length, and the input ids of model '" +
                                            g.name + "' are " + use.toString() + ": bind them (--dim, --batch)");
    m.batch = use.dims[0].value;
    m.seq = use.dims[1].value;
    return m;
}

} // namespace tapas
