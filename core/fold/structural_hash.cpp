#include "core/fold/structural_hash.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

namespace tapas {

namespace {

uint64_t splitmix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

uint64_t hashDouble(double d)
{
    if (d == 0) d = 0; // -0.0 and 0.0 are the same attribute value
    uint64_t bits = 0;
    std::memcpy(&bits, &d, sizeof bits);
    return bits;
}

// Integer values are shape arithmetic (Reshape targets, axes, indices): they are structure.
// Float values are not hashed, scalars included: a learned scalar (PP-LCNetV3's affine scale and
// bias, which paddle2onnx writes as one-element Constant nodes) differs per layer like any
// weight, and nothing tells it from an eps or a fixed scale. Shape and dtype still count.
uint64_t hashConstValue(uint64_t h, const ConstValue& v)
{
    h = hashMix(h, uint64_t(v.dtype));
    h = hashMix(h, hashShape(v.shape));
    if (v.isInteger()) {
        h = hashMix(h, v.ints.size());
        for (int64_t x : v.ints) h = hashMix(h, uint64_t(x));
    }
    return h;
}

uint64_t hashAttribute(const Attribute& a)
{
    uint64_t h = hashString(a.name);
    h = hashMix(h, uint64_t(a.kind));
    switch (a.kind) {
    case Attribute::Kind::Int: h = hashMix(h, uint64_t(a.i)); break;
    case Attribute::Kind::Float: h = hashMix(h, hashDouble(a.f)); break;
    case Attribute::Kind::String: h = hashMix(h, hashString(a.s)); break;
    case Attribute::Kind::Ints:
        for (int64_t x : a.ints) h = hashMix(h, uint64_t(x));
        break;
    case Attribute::Kind::Floats:
        for (double x : a.floats) h = hashMix(h, hashDouble(x));
        break;
    case Attribute::Kind::Strings:
        for (const std::string& s : a.strings) h = hashMix(h, hashString(s));
        break;
    case Attribute::Kind::Tensor:
        h = hashConstValue(h, a.tensor);
        h = hashMix(h, uint64_t(a.tensorElements));
        break;
    case Attribute::Kind::Graph: h = hashMix(h, uint64_t(a.graphNodes)); break;
    case Attribute::Kind::Other: break;
    }
    return h;
}

uint64_t hashTensorSlot(const CompactGraph& cg, const std::vector<char>& meta, TensorId id)
{
    if (id == kNoTensor) return 0x5a5a5a5aULL;
    // An initializer, a Constant output and Identity(initializer) (how exporters alias equal
    // weights) are all the same thing to the node reading them: a constant.
    const NodeId p = cg.producer[size_t(id)];
    const bool constant = p == kNoNode ? cg.kind[size_t(id)] != TensorKind::Input : meta[size_t(p)] != 0;
    // A graph input is data like any activation: the first layer of a stack reads the model's
    // input where its twins read the layer before, and must hash the same.
    uint64_t h = hashMix(constant ? 0xc0ULL : 0xdaULL, uint64_t(cg.dtype[size_t(id)]));
    h = hashMix(h, cg.shapeHash[size_t(id)]);
    if (cg.hasValue[size_t(id)]) h = hashConstValue(h, *cg.ir.tensor(id).value);
    return h;
}

} // namespace

std::vector<char> metaNodes(const CompactGraph& cg, const std::vector<NodeId>& topo)
{
    std::vector<char> meta(cg.nodeCount, 0);
    for (NodeId v : topo) {
        bool isMeta = cg.is(v, CompactGraph::kShapeOrSize);
        if (!isMeta) {
            isMeta = true;
            for (TensorId t : cg.inputs(v)) {
                if (t == kNoTensor) continue;
                const NodeId p = cg.producer[size_t(t)];
                if (p == kNoNode ? cg.kind[size_t(t)] == TensorKind::Input : !meta[size_t(p)]) {
                    isMeta = false;
                    break;
                }
            }
        }
        meta[size_t(v)] = char(isMeta);
    }
    // A graph of constants only (a generator fed by a random node) has no data flow to cut:
    // treat every node as data then.
    if (std::all_of(meta.begin(), meta.end(), [](char m) { return m != 0; })) std::fill(meta.begin(), meta.end(), 0);
    return meta;
}

uint64_t hashMix(uint64_t seed, uint64_t value)
{
    return splitmix(seed ^ (splitmix(value) + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2)));
}

uint64_t hashString(std::string_view s)
{
    uint64_t h = 0xcbf29ce484222325ULL; // FNV-1a, then mixed
    for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
    return splitmix(h);
}

uint64_t hashShape(const Shape& s)
{
    if (!s.rankKnown) return 0x77ULL;
    uint64_t h = hashMix(0x1234ULL, s.dims.size());
    for (const Dim& d : s.dims)
        h = hashMix(h, d.isKnown() ? uint64_t(d.value) : hashString(d.symbol) ^ 0x8000000000000000ULL);
    return h;
}

uint64_t operationHash(const Node& n)
{
    uint64_t h = hashMix(hashString(n.opType), hashString(n.domain));
    if (n.attrs.empty()) return h;
    // Attribute order is the exporter's choice; sort by name so it never matters.
    using Keyed = std::pair<std::string_view, uint64_t>;
    std::array<Keyed, 16> small;
    std::vector<Keyed> large;
    Keyed* attrs = small.data();
    if (n.attrs.size() > small.size()) {
        large.resize(n.attrs.size());
        attrs = large.data();
    }
    for (size_t i = 0; i < n.attrs.size(); ++i) attrs[i] = Keyed(n.attrs[i].name, hashAttribute(n.attrs[i]));
    std::sort(attrs, attrs + n.attrs.size());
    for (size_t i = 0; i < n.attrs.size(); ++i) h = hashMix(h, attrs[i].second);
    return h;
}

std::vector<uint64_t> localNodeHashes(const CompactGraph& cg, const std::vector<char>& meta)
{
    std::vector<uint64_t> out(cg.nodeCount);
    // Each tensor is hashed once, not once per node touching it.
    std::vector<uint64_t> slot(cg.tensorCount);
    for (size_t t = 0; t < cg.tensorCount; ++t) slot[t] = hashTensorSlot(cg, meta, TensorId(t));
    const uint64_t omittedInput = hashTensorSlot(cg, meta, kNoTensor);
    for (size_t i = 0; i < cg.nodeCount; ++i) {
        uint64_t h = cg.operation[i];
        const auto inputs = cg.inputs(NodeId(i));
        h = hashMix(h, inputs.size());
        for (TensorId t : inputs) h = hashMix(h, t == kNoTensor ? omittedInput : slot[size_t(t)]);
        const auto outputs = cg.outputs(NodeId(i));
        h = hashMix(h, outputs.size());
        for (TensorId t : outputs) h = hashMix(h, t == kNoTensor ? 0x33ULL : slot[size_t(t)]);
        h = hashMix(h, uint64_t(cg.subgraphs[i]));
        h = hashMix(h, uint64_t(cg.subgraphNodes[i]));
        out[i] = h;
    }
    return out;
}

uint64_t shapeFreeNodeHash(const Graph& g, const std::vector<char>& meta, NodeId v)
{
    const Node& n = g.node(v);
    uint64_t h = operationHash(n);
    h = hashMix(h, n.inputs.size());
    for (TensorId id : n.inputs) {
        if (id == kNoTensor) {
            h = hashMix(h, 0x5a5a5a5aULL);
            continue;
        }
        const Tensor& t = g.tensor(id);
        const bool constant = t.producer == kNoNode ? t.kind != TensorKind::Input : meta[size_t(t.producer)] != 0;
        h = hashMix(hashMix(h, constant ? 0xc0ULL : 0xdaULL), uint64_t(t.dtype));
        if (constant) h = hashMix(h, hashShape(t.shape));
    }
    h = hashMix(h, n.outputs.size());
    for (TensorId id : n.outputs) h = hashMix(h, id == kNoTensor ? 0x33ULL : uint64_t(g.tensor(id).dtype));
    return hashMix(h, uint64_t(n.subgraphs));
}

std::vector<uint64_t> refineHashes(const CompactGraph& cg, std::vector<uint64_t> labels, int rounds)
{
    // The neighbourhood is walked `rounds` times, so it is flattened once: per node, its
    // producers by input slot, then its (consumer, consumer slot, output index) uses.
    const size_t n = cg.nodeCount;
    std::vector<uint32_t> useBegin(n + 1);
    struct Use {
        NodeId consumer;
        uint32_t slot, output;
    };
    std::vector<Use> uses;
    uses.reserve(cg.useNode.size());
    for (size_t i = 0; i < n; ++i) {
        useBegin[i] = uint32_t(uses.size());
        const auto outputs = cg.outputs(NodeId(i));
        for (size_t o = 0; o < outputs.size(); ++o) {
            const TensorId t = outputs[o];
            if (t == kNoTensor) continue;
            // A node reading t at several slots is listed once per slot, and each listing names
            // every slot: as walking Tensor::consumers and the consumer's inputs does.
            for (NodeId c : cg.readers(t)) {
                const auto cin = cg.inputs(c);
                for (size_t s = 0; s < cin.size(); ++s)
                    if (cin[s] == t) uses.push_back({c, uint32_t(s), uint32_t(o)});
            }
        }
    }
    useBegin[n] = uint32_t(uses.size());

    std::vector<uint64_t> next(labels.size());
    std::vector<uint64_t> succ;
    for (int r = 0; r < rounds; ++r) {
        for (size_t i = 0; i < n; ++i) {
            uint64_t h = hashMix(labels[i], uint64_t(r));
            // Producers in slot order: MatMul(A, B) is not MatMul(B, A).
            for (TensorId t : cg.inputs(NodeId(i))) {
                const NodeId p = cg.producerOf(t);
                h = hashMix(h, p == kNoNode ? 0x11ULL : labels[size_t(p)]);
            }
            // Consumers as a sorted multiset: their order in the file is not structure.
            succ.clear();
            for (uint32_t k = useBegin[i]; k < useBegin[i + 1]; ++k) {
                const Use& u = uses[k];
                succ.push_back(hashMix(hashMix(labels[size_t(u.consumer)], u.slot), u.output));
            }
            std::sort(succ.begin(), succ.end());
            for (uint64_t s : succ) h = hashMix(h, s);
            next[i] = h;
        }
        labels.swap(next);
    }
    return labels;
}

NodeHashes computeNodeHashes(const CompactGraph& cg, const std::vector<NodeId>& topo, int rounds)
{
    NodeHashes h;
    h.meta = metaNodes(cg, topo);
    h.local = localNodeHashes(cg, h.meta);
    h.refined = refineHashes(cg, h.local, rounds);
    return h;
}

} // namespace tapas
