#include "core/ops/node_chains.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace tapas {

const char* chainName(NodeChain::Kind k)
{
    switch (k) {
    case NodeChain::Kind::Gelu: return "gelu";
    case NodeChain::Kind::LayerNorm: return "layer_norm";
    case NodeChain::Kind::MatMulBias: return "addmm";
    }
    return "?";
}

namespace {

using Port = NodeChain::Port;

bool near(double a, double b) { return std::abs(a - b) <= 1e-6 * std::max(1.0, std::abs(b)); }

class Matcher {
public:
    Matcher(const Graph& g, const std::vector<char>& known, const ChainLayouts& L)
        : g_(g), L_(L), known_(known), output_(g.tensors.size(), 0), claimed_(g.nodes.size(), 0)
    {
        if (known_.empty()) {
            known_.assign(g.tensors.size(), 0);
            for (TensorId t = 0; t < TensorId(g.tensors.size()); ++t) known_[size_t(t)] = g.tensor(t).value ? 1 : 0;
        }
        for (TensorId t : g.outputs) output_[size_t(t)] = 1;
    }

    std::vector<NodeChain> find()
    {
        std::vector<NodeChain> groups;
        for (NodeId n = 0; n < NodeId(g_.nodes.size()); ++n) {
            if (claimed_[size_t(n)]) continue;
            const std::string& op = g_.node(n).opType;
            std::optional<NodeChain> f;
            if (op == "ReduceMean") f = layerNorm(n);
            else if (op == "Erf") f = gelu(n);
            else if (op == "MatMul") f = matMulBias(n);
            if (!f) continue;
            for (NodeId m : f->nodes) claimed_[size_t(m)] = 1;
            std::sort(f->nodes.begin(), f->nodes.end());
            groups.push_back(std::move(*f));
        }
        return groups;
    }

private:
    const Node& node(NodeId n) const { return g_.node(n); }
    bool isKnown(TensorId t) const { return t != kNoTensor && size_t(t) < known_.size() && known_[size_t(t)]; }

    // The one node that reads t, when nothing else does (no other node, not a graph output) and
    // the interpreter does not already hold t.
    NodeId soleReader(TensorId t) const
    {
        if (t == kNoTensor || output_[size_t(t)] || isKnown(t)) return kNoNode;
        const std::vector<NodeId>& c = g_.tensor(t).consumers;
        if (c.empty()) return kNoNode;
        for (NodeId n : c)
            if (n != c[0] || claimed_[size_t(n)]) return kNoNode;
        return c[0];
    }

    // A node with exactly inputs.size() == k inputs and one output, none claimed yet.
    bool shaped(NodeId n, const char* op, size_t inputs) const
    {
        if (n == kNoNode || claimed_[size_t(n)]) return false;
        const Node& x = node(n);
        return x.opType == op && x.domain.empty() && x.inputs.size() == inputs && x.outputs.size() == 1 &&
               x.outputs[0] != kNoTensor;
    }

    // The scalar constant t holds, when the interpreter knows it.
    std::optional<double> scalar(TensorId t) const
    {
        if (!isKnown(t)) return std::nullopt;
        const Tensor& x = g_.tensor(t);
        if (!x.value || x.value->size() != 1 || !dtypeIsFloating(x.dtype)) return std::nullopt;
        return x.value->floatAt(0);
    }

    // Input index of t in binary node n (the other one is 1 - i), -1 when t is not exactly one of them.
    int slotOf(NodeId n, TensorId t) const
    {
        const Node& x = node(n);
        if (x.inputs[0] == t && x.inputs[1] != t) return 0;
        if (x.inputs[1] == t && x.inputs[0] != t) return 1;
        return -1;
    }

    // Binary node n reads t and a scalar constant close to `value` (either order when commutative).
    bool withScalar(NodeId n, TensorId t, double value, bool commutative) const
    {
        const int i = slotOf(n, t);
        if (i < 0 || (i == 1 && !commutative)) return false;
        const std::optional<double> v = scalar(node(n).inputs[size_t(1 - i)]);
        return v && near(*v, value) && L_.replicated(n, size_t(1 - i), false);
    }

    // t leaves `from` and enters input `i` of `to` in the same layout and interleave: no
    // collective or permutation would run between them.
    bool handsOn(TensorId t, NodeId from, NodeId to, size_t i) const { return L_.handsOn(t, from, to, i); }

    // Two ports of the same tensor would be prepared alike (layout, interleave, Megatron's f).
    bool sameEntry(const Port& a, const Port& b) const { return L_.sameEntry(a, b); }

    // The data layout at every member is the layout x enters with, and the output leaves so.
    bool elementwiseLayouts(const NodeChain& f, const Port& x) const { return L_.keepsLayout(f.nodes, x); }

    // Last-axis reduction with keepdims: axes from the attribute or (opset 18) a known input.
    bool lastAxisMean(NodeId n, TensorId x) const
    {
        const Node& r = node(n);
        if (r.inputs.empty() || r.inputs[0] != x || r.outputs.size() != 1 || r.attrInt("keepdims", 1) != 1 ||
            r.attrInt("noop_with_empty_axes", 0) != 0)
            return false;
        std::vector<int64_t> axes = r.attrInts("axes");
        if (r.inputs.size() > 1 && r.inputs[1] != kNoTensor) {
            const Tensor& a = g_.tensor(r.inputs[1]);
            if (!a.value || !a.value->isInteger()) return false;
            axes = a.value->ints;
        }
        const int rank = g_.tensor(x).shape.rank();
        return rank >= 1 && axes.size() == 1 && (axes[0] == -1 || axes[0] == rank - 1);
    }

    // A per-feature vector of D elements (any leading dims of size 1), replicated where read.
    bool featureVector(TensorId t, int64_t d, NodeId reader, size_t i) const
    {
        const Shape& s = g_.tensor(t).shape;
        if (!s.isFullyKnown() || s.rank() < 1 || !dtypeIsFloating(g_.tensor(t).dtype)) return false;
        const std::vector<int64_t> dims = s.knownDims();
        for (size_t k = 0; k + 1 < dims.size(); ++k)
            if (dims[k] != 1) return false;
        return dims.back() == d && L_.replicated(reader, i, true);
    }

    std::optional<NodeChain> layerNorm(NodeId mean)
    {
        const TensorId x = node(mean).input(0);
        if (x == kNoTensor || !lastAxisMean(mean, x)) return std::nullopt;
        const Shape& xs = g_.tensor(x).shape;
        const int rank = xs.rank();
        if (rank < 1 || !xs.dims.back().isKnown()) return std::nullopt;
        const int64_t d = xs.dims.back().value;
        const TensorId m = node(mean).outputs[0];
        const NodeId sub = soleReader(m);
        if (!shaped(sub, "Sub", 2) || node(sub).inputs[0] != x || node(sub).inputs[1] != m || !handsOn(m, mean, sub, 1))
            return std::nullopt;
        // The centred value feeds the square and the final division, nothing else.
        const TensorId c = node(sub).outputs[0];
        const std::vector<NodeId>& cr = g_.tensor(c).consumers;
        if (output_[size_t(c)] || isKnown(c) || cr.size() != 2 || cr[0] == cr[1]) return std::nullopt;
        NodeId pow = cr[0], div = cr[1];
        if (node(pow).opType != "Pow") std::swap(pow, div);
        if (!shaped(pow, "Pow", 2) || !shaped(div, "Div", 2) || node(pow).inputs[0] != c || node(div).inputs[0] != c ||
            !withScalar(pow, c, 2.0, false) || !handsOn(c, sub, pow, 0) || !handsOn(c, sub, div, 0))
            return std::nullopt;
        const TensorId sq = node(pow).outputs[0];
        const NodeId mean2 = soleReader(sq);
        if (mean2 == kNoNode || node(mean2).opType != "ReduceMean" || !lastAxisMean(mean2, sq) || !handsOn(sq, pow, mean2, 0))
            return std::nullopt;
        const TensorId var = node(mean2).outputs[0];
        const NodeId addEps = soleReader(var);
        if (!shaped(addEps, "Add", 2) || slotOf(addEps, var) < 0 || !handsOn(var, mean2, addEps, size_t(slotOf(addEps, var))))
            return std::nullopt;
        const std::optional<double> eps = scalar(node(addEps).inputs[size_t(1 - slotOf(addEps, var))]);
        if (!eps || *eps < 0 || !L_.replicated(addEps, size_t(1 - slotOf(addEps, var)), false))
            return std::nullopt;
        const TensorId ve = node(addEps).outputs[0];
        const NodeId sqrt = soleReader(ve);
        if (!shaped(sqrt, "Sqrt", 1) || !handsOn(ve, addEps, sqrt, 0)) return std::nullopt;
        const TensorId sd = node(sqrt).outputs[0];
        if (soleReader(sd) != div || node(div).inputs[1] != sd || !handsOn(sd, sqrt, div, 1)) return std::nullopt;

        NodeChain f;
        f.kind = NodeChain::Kind::LayerNorm;
        f.epsilon = *eps;
        f.nodes = {mean, sub, pow, mean2, addEps, sqrt, div};
        const Port xIn{x, mean, 0}, xSub{x, sub, 0};
        if (!sameEntry(xIn, xSub)) return std::nullopt;
        f.inputs.push_back(xIn);
        f.output = node(div).outputs[0];
        // The affine part: Mul by a per-feature scale, then Add of a per-feature shift. Each
        // joins the chain when it alone reads the chain's output and its other input is a
        // per-feature vector.
        auto extend = [&](const char* op) {
            const NodeId n = soleReader(f.output);
            if (!shaped(n, op, 2) || slotOf(n, f.output) < 0) return false;
            const int i = slotOf(n, f.output);
            const TensorId v = node(n).inputs[size_t(1 - i)];
            if (!featureVector(v, d, n, size_t(1 - i)) || !handsOn(f.output, f.nodes.back(), n, size_t(i))) return false;
            f.nodes.push_back(n);
            f.inputs.push_back({v, n, size_t(1 - i)});
            f.output = node(n).outputs[0];
            return true;
        };
        if (extend("Mul")) extend("Add");
        // Every member keeps x's layout, and the normalised axis is whole on the rank.
        if (L_.splitAlong(mean, 0, rank - 1)) return std::nullopt;
        if (!elementwiseLayouts(f, xIn)) return std::nullopt;
        return f;
    }

    std::optional<NodeChain> gelu(NodeId erf)
    {
        if (!shaped(erf, "Erf", 1)) return std::nullopt;
        const TensorId s = node(erf).inputs[0];
        const NodeId scale = g_.tensor(s).producer;
        if (scale == kNoNode || soleReader(s) != erf) return std::nullopt;
        TensorId x = kNoTensor;
        if (shaped(scale, "Div", 2) && withScalar(scale, node(scale).inputs[0], std::sqrt(2.0), false))
            x = node(scale).inputs[0];
        else if (shaped(scale, "Mul", 2))
            for (int i = 0; i < 2 && x == kNoTensor; ++i)
                if (withScalar(scale, node(scale).inputs[size_t(i)], std::sqrt(0.5), true)) x = node(scale).inputs[size_t(i)];
        if (x == kNoTensor || !handsOn(s, scale, erf, 0)) return std::nullopt;
        const TensorId e = node(erf).outputs[0];
        const NodeId add = soleReader(e);
        if (!shaped(add, "Add", 2) || !withScalar(add, e, 1.0, true) || !handsOn(e, erf, add, size_t(slotOf(add, e))))
            return std::nullopt;
        const TensorId a = node(add).outputs[0];
        const NodeId m1 = soleReader(a);
        if (!shaped(m1, "Mul", 2) || slotOf(m1, a) < 0 || !handsOn(a, add, m1, size_t(slotOf(m1, a)))) return std::nullopt;
        const size_t other = size_t(1 - slotOf(m1, a));
        const TensorId o = node(m1).inputs[other];
        NodeChain f;
        f.kind = NodeChain::Kind::Gelu;
        Port second;
        if (o == x) {
            // x * (1 + erf) * 0.5 (torch's export)
            const TensorId p = node(m1).outputs[0];
            const NodeId half = soleReader(p);
            if (!shaped(half, "Mul", 2) || !withScalar(half, p, 0.5, true) || !handsOn(p, m1, half, size_t(slotOf(half, p))))
                return std::nullopt;
            f.nodes = {scale, erf, add, m1, half};
            second = {x, m1, other};
            f.output = node(half).outputs[0];
        } else {
            // (x * 0.5) * (1 + erf)
            const NodeId half = g_.tensor(o).producer;
            if (half == kNoNode || soleReader(o) != m1 || !shaped(half, "Mul", 2) || slotOf(half, x) < 0 ||
                !withScalar(half, x, 0.5, true) || !handsOn(o, half, m1, other))
                return std::nullopt;
            f.nodes = {scale, half, erf, add, m1};
            second = {x, half, size_t(slotOf(half, x))};
            f.output = node(m1).outputs[0];
        }
        const Port first{x, scale, size_t(slotOf(scale, x))};
        if (!sameEntry(first, second)) return std::nullopt;
        f.inputs.push_back(first);
        if (!elementwiseLayouts(f, first)) return std::nullopt;
        return f;
    }

    std::optional<NodeChain> matMulBias(NodeId mm)
    {
        if (!shaped(mm, "MatMul", 2)) return std::nullopt;
        const TensorId x = node(mm).inputs[0], w = node(mm).inputs[1], y = node(mm).outputs[0];
        const Shape &xs = g_.tensor(x).shape, &ws = g_.tensor(w).shape;
        if (x == w || xs.rank() < 2 || ws.rank() != 2 || !ws.dims[1].isKnown()) return std::nullopt;
        const NodeId add = soleReader(y);
        if (!shaped(add, "Add", 2) || slotOf(add, y) < 0) return std::nullopt;
        const size_t yi = size_t(slotOf(add, y)), bi = 1 - yi;
        const TensorId b = node(add).inputs[bi];
        const Shape& bs = g_.tensor(b).shape;
        if (!dtypeIsFloating(g_.tensor(b).dtype) || bs.rank() != 1 || !bs.dims[0].isKnown() ||
            bs.dims[0].value != ws.dims[1].value || !handsOn(y, mm, add, yi) || !L_.sameOutputLayout(add, mm))
            return std::nullopt;
        NodeChain f;
        f.kind = NodeChain::Kind::MatMulBias;
        f.nodes = {mm, add};
        f.inputs = {{x, mm, 0}, {w, mm, 1}, {b, add, bi}};
        f.output = node(add).outputs[0];
        return f;
    }

    const Graph& g_;
    const ChainLayouts& L_;
    std::vector<char> known_;
    std::vector<char> output_, claimed_;
};

} // namespace

std::vector<NodeChain> findNodeChains(const Graph& g, const std::vector<char>& known, const ChainLayouts& layouts)
{
    return Matcher(g, known, layouts).find();
}

} // namespace tapas
