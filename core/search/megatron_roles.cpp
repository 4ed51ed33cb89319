#include "core/search/megatron_roles.h"

#include "core/shard/table_padding.h"

#include <algorithm>
#include <unordered_set>

namespace tapas {

namespace {

bool isParam(const Graph& g, TensorId t) { return t != kNoTensor && g.tensor(t).isParameter(); }

// The word table transposed for a tied LM head (the zoo GPT's and HF GPT-2's export:
// MatMul(x, Transpose(wte))).
bool transposesTable(const Graph& g, const Node& n, TensorId table)
{
    return table != kNoTensor && n.opType == "Transpose" && n.input(0) == table;
}

// A product by a weight matrix, or by the word table transposed (the tied head).
bool isWeightMatMul(const Graph& g, const Node& n, TensorId wordTable)
{
    if (n.opType != "MatMul" && n.opType != "Gemm") return false;
    const TensorId w = n.input(1);
    if (isParam(g, w)) return g.tensor(w).shape.rank() == 2;
    const NodeId p = w == kNoTensor ? kNoNode : g.tensor(w).producer;
    return p != kNoNode && transposesTable(g, g.node(p), wordTable);
}

bool stopsWalk(const Node& n)
{
    return n.opType == "ReduceMean" || n.opType == "LayerNormalization" || n.opType == "SimplifiedLayerNormalization";
}

bool isTableLookup(const Graph& g, const Node& n)
{
    return n.opType == "Gather" && isParam(g, n.input(0)) && g.tensor(n.input(0)).shape.rank() == 2;
}

} // namespace

bool looksUpInputIds(const Graph& g, const Node& n)
{
    TensorId t = n.input(1);
    for (int depth = 0; t != kNoTensor && depth < 8; ++depth) {
        const NodeId p = g.tensor(t).producer;
        if (p == kNoNode) return g.tensor(t).kind == TensorKind::Input;
        const std::string& op = g.node(p).opType;
        if (op != "Cast" && op != "Identity" && op != "Reshape" && op != "Unsqueeze" && op != "Squeeze" && op != "Flatten")
            return false;
        t = g.node(p).input(0);
    }
    return false;
}

NodeId wordEmbedding(const Graph& g)
{
    // Megatron-LM's VocabParallelEmbedding is the word embedding only; positions stay replicated.
    // The largest table indexed by the input ids, else (no ids found) the largest table.
    NodeId best = kNoNode, bestAny = kNoNode;
    int64_t size = -1, sizeAny = -1;
    for (NodeId id = 0; id < NodeId(g.nodes.size()); ++id) {
        const Node& n = g.node(id);
        if (!isTableLookup(g, n)) continue;
        const int64_t e = g.tensor(n.input(0)).shape.numElementsOr(0);
        if (e > sizeAny) {
            sizeAny = e;
            bestAny = id;
        }
        if (looksUpInputIds(g, n) && e > size) {
            size = e;
            best = id;
        }
    }
    return best != kNoNode ? best : bestAny;
}

std::vector<MegatronRole> megatronRoles(const Graph& g)
{
    std::vector<MegatronRole> roles(g.nodes.size(), MegatronRole::None);
    const NodeId word = wordEmbedding(g);
    const TensorId wordTable = word == kNoNode ? kNoTensor : g.node(word).input(0);
    for (NodeId id = 0; id < NodeId(g.nodes.size()); ++id) {
        const Node& n = g.node(id);
        if (isTableLookup(g, n)) {
            roles[size_t(id)] = n.input(0) == wordTable ? MegatronRole::VocabEmbedding : MegatronRole::ReplicatedWeight;
            continue;
        }
        if (transposesTable(g, n, wordTable)) {
            roles[size_t(id)] = MegatronRole::VocabHead;
            continue;
        }
        if (!isWeightMatMul(g, n, wordTable)) {
            bool hasWeight = false;
            for (TensorId t : n.inputs) hasWeight |= isParam(g, t) && g.tensor(t).shape.rank() >= 2;
            if (hasWeight) roles[size_t(id)] = MegatronRole::ReplicatedWeight; // no Megatron recipe (convs, ...)
            continue;
        }
        // Walk back from the activation input; nodes are topologically ordered, so every
        // weight product met has its role already.
        bool fromColumn = false;
        std::vector<TensorId> stack{n.input(0)};
        std::unordered_set<TensorId> seen;
        while (!stack.empty() && !fromColumn) {
            const TensorId t = stack.back();
            stack.pop_back();
            if (t == kNoTensor || !seen.insert(t).second) continue;
            const NodeId p = g.tensor(t).producer;
            if (p == kNoNode) continue;
            const Node& pn = g.node(p);
            if (isWeightMatMul(g, pn, wordTable)) {
                fromColumn = roles[size_t(p)] == MegatronRole::Column;
                continue;
            }
            if (stopsWalk(pn)) continue;
            for (TensorId in : pn.inputs)
                if (in != kNoTensor && !isParam(g, in) && dtypeIsFloating(g.tensor(in).dtype)) stack.push_back(in);
        }
        roles[size_t(id)] = fromColumn ? MegatronRole::Row : MegatronRole::Column;
    }
    return roles;
}

bool takesMegatronRole(MegatronRole r, const OpStrategy& s)
{
    switch (r) {
    case MegatronRole::Column: return s.name == "column";
    case MegatronRole::Row: return s.name == "row";
    case MegatronRole::VocabEmbedding: return s.name == "vocab";
    case MegatronRole::ReplicatedWeight: return s.name == "replicate";
    case MegatronRole::VocabHead: // the table read as the lookup keeps it: split over its rows
        return !s.inputs.empty() && s.inputs[0].kind == TensorLayout::S &&
               (s.inputs[0].dim == 0 || s.inputs[0].dim == -2);
    case MegatronRole::None: return true;
    }
    return true;
}

const char* megatronRoleName(MegatronRole r)
{
    switch (r) {
    case MegatronRole::Column: return "column";
    case MegatronRole::Row: return "row";
    case MegatronRole::VocabEmbedding: return "vocab";
    case MegatronRole::ReplicatedWeight: return "replicate";
    case MegatronRole::VocabHead: return "the word table split over its vocabulary rows";
    case MegatronRole::None: break;
    }
    return "";
}

} // namespace tapas

namespace tapas {

int64_t megatronPaddedVocab(int64_t vocab, int tp)
{
    const int64_t multiple = kMegatronVocabDivisor * std::max(1, tp);
    return (vocab + multiple - 1) / multiple * multiple;
}

Graph megatronPaddedGraph(const Graph& g, int tp, int64_t* vocab)
{
    if (vocab) *vocab = 0;
    const NodeId word = wordEmbedding(g);
    if (word == kNoNode) return g;
    const TensorId table = g.node(word).input(0);
    const Shape& s = g.tensor(table).shape;
    if (!s.dims[0].isKnown()) return g;
    if (vocab) *vocab = s.dims[0].value;
    const int64_t padded = megatronPaddedVocab(s.dims[0].value, tp);
    if (padded == s.dims[0].value) return g;
    return paddedGraph(g, {{table, s.dims[0].value, padded}});
}

} // namespace tapas
