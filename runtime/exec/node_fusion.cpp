#include "runtime/exec/node_fusion.h"

#include <torch/torch.h>

namespace tapas::runtime {

const char* fusionName(FusedGroup::Kind k) { return chainName(k); }

namespace {

// What the plan does to a chain's tensors on this rank (see ChainLayouts).
class ExecChainLayouts : public ChainLayouts {
public:
    explicit ExecChainLayouts(const ExecLayouts& L) : L_(L) {}

    bool replicated(NodeId n, size_t input, bool whole) const override
    {
        return L_.nodes[size_t(n)].inputs[input].kind == TensorLayout::R && (!whole || L_.needK[size_t(n)][input] == 1);
    }
    bool handsOn(TensorId t, NodeId from, NodeId to, size_t input) const override
    {
        const TensorLayout& out = L_.nodes[size_t(from)].outputs[0];
        return out.kind != TensorLayout::P && out == L_.nodes[size_t(to)].inputs[input] &&
               L_.producedK[size_t(t)] == L_.needK[size_t(to)][input];
    }
    bool sameEntry(const FusedGroup::Port& a, const FusedGroup::Port& b) const override
    {
        const OpStrategy &sa = L_.nodes[size_t(a.node)], &sb = L_.nodes[size_t(b.node)];
        return sa.inputs[a.input] == sb.inputs[b.input] && L_.needK[size_t(a.node)][a.input] == L_.needK[size_t(b.node)][b.input] &&
               splitsWork(sa) == splitsWork(sb);
    }
    bool keepsLayout(const std::vector<NodeId>& members, const FusedGroup::Port& entry) const override
    {
        const TensorLayout& l = L_.nodes[size_t(entry.node)].inputs[entry.input];
        if (l.kind == TensorLayout::P) return false;
        for (NodeId n : members)
            if (L_.nodes[size_t(n)].outputs[0] != l) return false;
        return true;
    }
    bool splitAlong(NodeId n, size_t input, int dim) const override
    {
        const TensorLayout& l = L_.nodes[size_t(n)].inputs[input];
        return l.kind == TensorLayout::S && (l.dim == dim || l.dim == -1);
    }
    bool sameOutputLayout(NodeId a, NodeId b) const override { return L_.nodes[size_t(a)].outputs[0] == L_.nodes[size_t(b)].outputs[0]; }

private:
    const ExecLayouts& L_;
};

} // namespace

std::vector<FusedGroup> findFusions(const Graph& g, const ExecLayouts& layouts, const std::vector<char>& known)
{
    if (layouts.nodes.size() != g.nodes.size()) return {};
    return findNodeChains(g, known, ExecChainLayouts(layouts));
}

torch::Tensor runFusedGroup(const FusedGroup& f, const std::vector<torch::Tensor>& in)
{
    switch (f.kind) {
    case FusedGroup::Kind::Gelu: return torch::gelu(in[0]);
    case FusedGroup::Kind::LayerNorm: {
        const torch::Tensor& x = in[0];
        const int64_t d = x.size(-1);
        const torch::Tensor w = in.size() > 1 ? in[1].reshape({d}) : torch::Tensor();
        const torch::Tensor b = in.size() > 2 ? in[2].reshape({d}) : torch::Tensor();
        return torch::layer_norm(x, {d}, w, b, f.epsilon);
    }
    case FusedGroup::Kind::MatMulBias: {
        const torch::Tensor &x = in[0], &w = in[1], &b = in[2];
        // The shards as the plan cut them: a bias that does not match the weight's columns on
        // this rank takes the unfused route (broadcasting as Add would).
        if (w.dim() != 2 || b.dim() != 1 || b.size(0) != w.size(1) || x.dim() < 2) return torch::matmul(x, w) + b;
        std::vector<int64_t> shape = x.sizes().vec();
        shape.back() = w.size(1);
        return torch::addmm(b, x.reshape({-1, x.size(-1)}), w).view(shape);
    }
    }
    return {};
}

} // namespace tapas::runtime
