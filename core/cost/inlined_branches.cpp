#include "core/cost/inlined_branches.h"
#include "core/onnx/onnx_subgraph.h"
#include "core/ops/control_bodies.h"
#include "core/ops/op_registry.h"

#include <memory>

namespace tapas {

namespace {

double bodyFlops(const Graph& body)
{
    double flops = 0;
    for (const Node& n : body.nodes) flops += nodeCost(body, n).flops;
    return flops;
}

// The branch whose nodes replace If node n of `g` (its body in the context of g), or null to
// keep the node: the one pricing takes (control_bodies), of two the one with more FLOPs, as
// the If's own cost does.
std::shared_ptr<const Graph> inlinedBranch(const Graph& g, const Node& n)
{
    if (n.opType != "If") return nullptr;
    const ControlBodies bodies = controlBodies(g, n);
    if (bodies.alternatives.empty()) return nullptr;
    if (bodies.alternatives.size() == 1) return bodies.alternatives.front();
    return bodyFlops(*bodies.alternatives[1]) > bodyFlops(*bodies.alternatives[0]) ? bodies.alternatives[1]
                                                                                     : bodies.alternatives[0];
}

struct Splicer {
    InlinedBranches& out;

    TensorId copyTensor(const Tensor& t)
    {
        Tensor c = t;
        c.producer = kNoNode;
        c.consumers.clear();
        out.graph.tensors.push_back(std::move(c));
        return TensorId(out.graph.tensors.size() - 1);
    }

    void addNode(Node n, NodeId owner, bool inBranch)
    {
        out.graph.nodes.push_back(std::move(n));
        out.owner.push_back(owner);
        out.inBranch.push_back(inBranch);
    }

    // The nodes of `src` into the graph, `map` giving the graph's tensor for each of src's.
    void splice(const Graph& src, const std::vector<TensorId>& map, NodeId owner, bool inBranch)
    {
        for (NodeId id = 0; id < NodeId(src.nodes.size()); ++id) {
            const Node& n = src.node(id);
            const NodeId who = inBranch ? owner : id;
            if (const std::shared_ptr<const Graph> body = inlinedBranch(src, n)) {
                spliceBranch(src, n, *body, map, who);
                continue;
            }
            Node c = n;
            for (TensorId& t : c.inputs)
                if (t != kNoTensor) t = map[size_t(t)];
            for (TensorId& t : c.outputs)
                if (t != kNoTensor) t = map[size_t(t)];
            addNode(std::move(c), who, inBranch);
        }
    }

    void spliceBranch(const Graph& src, const Node& n, const Graph& body, const std::vector<TensorId>& map, NodeId owner)
    {
        out.any = true;
        // What the branch reads from the enclosing scope: the node's implicit inputs, by name.
        std::vector<TensorId> bodyMap(body.tensors.size(), kNoTensor);
        for (size_t i = formalInputs(n); i < n.inputs.size(); ++i) {
            if (n.inputs[i] == kNoTensor) continue;
            const TensorId t = body.findTensor(src.tensor(n.inputs[i]).name);
            if (t != kNoTensor && body.tensor(t).producer == kNoNode) bodyMap[size_t(t)] = map[size_t(n.inputs[i])];
        }
        // Each output the branch makes is written straight into the If's output.
        std::vector<char> handedOn(n.outputs.size(), 0);
        for (size_t o = 0; o < n.outputs.size() && o < body.outputs.size(); ++o) {
            const TensorId b = body.outputs[o];
            if (n.outputs[o] == kNoTensor || b == kNoTensor) continue;
            if (body.tensor(b).producer == kNoNode || bodyMap[size_t(b)] != kNoTensor) continue;
            bodyMap[size_t(b)] = map[size_t(n.outputs[o])];
            handedOn[o] = 1;
        }
        for (size_t t = 0; t < body.tensors.size(); ++t)
            if (bodyMap[t] == kNoTensor) bodyMap[t] = copyTensor(body.tensors[t]);
        splice(body, bodyMap, owner, true);
        // An output the branch hands on from elsewhere (a value read from outside, a known value,
        // one it already gave as another output): the worker returns that tensor itself.
        for (size_t o = 0; o < n.outputs.size() && o < body.outputs.size(); ++o) {
            if (handedOn[o] || n.outputs[o] == kNoTensor || body.outputs[o] == kNoTensor) continue;
            Node id;
            id.name = n.name + "/hands_on_" + std::to_string(o);
            id.opType = "Identity";
            id.inputs = {bodyMap[size_t(body.outputs[o])]};
            id.outputs = {map[size_t(n.outputs[o])]};
            addNode(std::move(id), owner, true);
        }
    }
};

} // namespace

InlinedBranches inlineIfBranches(const Graph& g)
{
    InlinedBranches r;
    r.graph = g;
    r.graph.nodes.clear();
    std::vector<TensorId> identity(g.tensors.size());
    for (size_t t = 0; t < identity.size(); ++t) identity[t] = TensorId(t);
    Splicer{r}.splice(g, identity, kNoNode, false);
    r.graph.rebuildLinks();
    return r;
}

} // namespace tapas
