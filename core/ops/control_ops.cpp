// If, Loop and Scan: control flow whose bodies are graphs of their own (Attribute::graphs).
// The plan shards the main graph only; a control-flow node runs its body whole on every rank,
// so its one strategy is replicated and its cost is its body's:
//   If:   the branch it takes when the importer knows its condition (a constant, or shape
//         arithmetic the shape pass folded: the worker reads the same value), else the dearer
//         branch (either may run).
//   Loop: the body times the trip count when the count is a known constant, else once.
//   Scan: the body times the scan length (axis 0 of the first scan input, or its scan axis).
// The values a body reads from the enclosing scope are the node's implicit inputs (see
// core/onnx/onnx_subgraph.h), so the weights it uses are planned (replicated) like any other.
#include "core/ops/op_families.h"
#include "core/ops/control_bodies.h"
#include "core/onnx/onnx_subgraph.h"
#include "core/ops/op_helpers.h"
#include "core/ops/shape_fill.h"

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

namespace tapas {
namespace {
using namespace ops;

// A copy of `body` whose reads from the enclosing scope take the dtype, shape and known value
// of the enclosing graph's tensors, with our shape pass run over it: what the enclosing graph
// lets us know of the body's outputs (ONNX's inference often leaves a branch's outputs unknown
// when they come from nested control flow).
Graph bodyInContext(const Graph& outer, const Node& n, const Graph& body)
{
    Graph b = body;
    // Loop's body takes (iteration, condition, carried...): the carried values start as the
    // node's inputs 2...
    if (n.opType == "Loop")
        for (size_t i = 2; i < formalInputs(n) && i < b.inputs.size(); ++i) {
            if (n.inputs[i] == kNoTensor) continue;
            Tensor& dst = b.tensor(b.inputs[i]);
            if (!dst.shape.rankKnown) dst.shape = outer.tensor(n.inputs[i]).shape;
            if (dst.dtype == DType::Undefined) dst.dtype = outer.tensor(n.inputs[i]).dtype;
        }
    for (size_t i = formalInputs(n); i < n.inputs.size(); ++i) {
        if (n.inputs[i] == kNoTensor) continue;
        const Tensor& src = outer.tensor(n.inputs[i]);
        const TensorId t = b.findTensor(src.name);
        if (t == kNoTensor || b.tensor(t).producer != kNoNode) continue;
        Tensor& dst = b.tensor(t);
        dst.dtype = src.dtype;
        dst.shape = src.shape;
        dst.value = src.value;
    }
    fillMissingShapes(b);
    return b;
}

// `body` in the context of node n of `outer` (bodyInContext), remembered by body and enclosing
// shapes and values: the search asks for a node's cost at every evaluation.
std::shared_ptr<const Graph> cachedBodyInContext(const Graph& outer, const Node& n, const std::shared_ptr<const Graph>& body)
{
    if (!body) return nullptr;
    std::string key = std::to_string(reinterpret_cast<uintptr_t>(body.get()));
    for (TensorId t : n.inputs) {
        if (t == kNoTensor) continue;
        const Tensor& x = outer.tensor(t);
        key += '|' + x.shape.toString() + (x.value && x.value->isInteger() ? x.value->toString(64) : std::string());
    }
    static std::mutex mutex;
    // The entry holds the body, so its address cannot be reused for another while it is a key.
    static std::unordered_map<std::string, std::pair<std::shared_ptr<const Graph>, std::shared_ptr<const Graph>>> cache;
    {
        std::lock_guard<std::mutex> lock(mutex);
        if (auto it = cache.find(key); it != cache.end()) return it->second.second;
    }
    auto b = std::make_shared<const Graph>(bodyInContext(outer, n, *body));
    std::lock_guard<std::mutex> lock(mutex);
    if (cache.size() >= 4096) cache.clear();
    cache.emplace(std::move(key), std::make_pair(body, b));
    return b;
}

// The FLOPs of one run of `body` with the enclosing shapes (a body alone knows none of the
// shapes it reads from outside).
double bodyFlops(const Graph& outer, const Node& n, const std::shared_ptr<const Graph>& body)
{
    const std::shared_ptr<const Graph> b = cachedBodyInContext(outer, n, body);
    if (!b) return 0;
    double flops = 0;
    for (const Node& node : b->nodes) flops += nodeCost(*b, node).flops;
    return flops;
}

// A condition the shape pass folded (exporters branch on ranks and sizes) picks the branch
// whose outputs the node has; otherwise outputs the two branches agree on take their dtype and
// shape.
void ifRule(ShapeContext& c)
{
    const auto thenBody = subgraphOf(c.node(), "then_branch");
    const auto elseBody = subgraphOf(c.node(), "else_branch");
    if (!thenBody || !elseBody) return;
    if (const ConstValue* cond = c.inValue(0); cond && cond->size() == 1) {
        const Graph taken = bodyInContext(c.graph(), c.node(), cond->intAt(0) != 0 ? *thenBody : *elseBody);
        for (size_t o = 0; o < c.numOutputs() && o < taken.outputs.size(); ++o) {
            const Tensor& x = taken.tensor(taken.outputs[o]);
            if (x.dtype != DType::Undefined) c.setOutType(o, x.dtype);
            if (x.shape.rankKnown) c.setOutShape(o, x.shape);
        }
        return;
    }
    const Graph a = bodyInContext(c.graph(), c.node(), *thenBody);
    const Graph b = bodyInContext(c.graph(), c.node(), *elseBody);
    for (size_t o = 0; o < c.numOutputs() && o < a.outputs.size() && o < b.outputs.size(); ++o) {
        const Tensor& x = a.tensor(a.outputs[o]);
        const Tensor& y = b.tensor(b.outputs[o]);
        if (x.dtype != DType::Undefined && x.dtype == y.dtype) c.setOutType(o, x.dtype);
        if (x.shape.rankKnown && x.shape == y.shape) c.setOutShape(o, x.shape);
    }
}

// Loop-carried outputs keep the dtype of their initial value (inputs 2...).
void loopRule(ShapeContext& c)
{
    for (size_t o = 0; o < c.numOutputs() && o + 2 < formalInputs(c.node()); ++o)
        c.setOutType(o, c.inType(o + 2));
}

// Scan's state outputs keep their initial values' dtype and shape.
void scanRule(ShapeContext& c)
{
    const auto body = subgraphOf(c.node(), "body");
    if (!body) return;
    const size_t states = body->inputs.size() - size_t(std::max<int64_t>(c.node().attrInt("num_scan_inputs", 0), 0));
    for (size_t o = 0; o < states && o < c.numOutputs() && o < formalInputs(c.node()); ++o) {
        c.setOutType(o, c.inType(o));
        c.setOutShape(o, c.inShape(o));
    }
}

double loopTrips(const Graph& g, const Node& n)
{
    if (n.input(0) == kNoTensor) return 1;
    const Tensor& m = g.tensor(n.input(0));
    return m.value && m.value->size() == 1 ? double(std::max<int64_t>(m.value->intAt(0), 0)) : 1.0;
}

double scanSteps(const Graph& g, const Node& n)
{
    const auto body = subgraphOf(n, "body");
    const int64_t scans = n.attrInt("num_scan_inputs", 0);
    double steps = 1;
    if (body && scans > 0 && body->inputs.size() >= size_t(scans)) {
        const size_t first = body->inputs.size() - size_t(scans);
        const std::vector<int64_t> axes = n.attrInts("scan_input_axes");
        const Shape& s = shapeOf(g, n.input(first));
        const int axis = axes.empty() ? 0 : int(axes[0] < 0 ? axes[0] + s.rank() : axes[0]);
        if (axis >= 0 && axis < s.rank() && s.dims[size_t(axis)].isKnown()) steps = double(s.dims[size_t(axis)].value);
    }
    return steps;
}

OpCost ifCost(const Graph& g, const Node& n)
{
    if (const char* taken = ifPricedBranch(g, n)) return costWithFlops(g, n, bodyFlops(g, n, subgraphOf(n, taken)));
    return costWithFlops(g, n, std::max(bodyFlops(g, n, subgraphOf(n, "then_branch")), bodyFlops(g, n, subgraphOf(n, "else_branch"))));
}

OpCost loopCost(const Graph& g, const Node& n)
{
    return costWithFlops(g, n, loopTrips(g, n) * bodyFlops(g, n, subgraphOf(n, "body")));
}

OpCost scanCost(const Graph& g, const Node& n)
{
    return costWithFlops(g, n, scanSteps(g, n) * bodyFlops(g, n, subgraphOf(n, "body")));
}

const char* const kReplicated = "control flow: its body runs whole on every rank (the plan shards the main graph only)";

} // namespace

const char* ifTakenBranch(const Graph& g, const Node& n)
{
    if (n.opType != "If" || n.inputs.empty() || n.input(0) == kNoTensor) return nullptr;
    const Tensor& cond = g.tensor(n.input(0));
    if (!cond.value || cond.value->size() != 1) return nullptr;
    return cond.value->intAt(0) != 0 ? "then_branch" : "else_branch";
}

const char* ifPricedBranch(const Graph& g, const Node& n, bool* assumed)
{
    if (assumed) *assumed = false;
    if (const char* taken = ifTakenBranch(g, n)) return taken;
    if (n.opType != "If") return nullptr;
    const std::string branch = n.attrString(kAssumedBranchAttr, "");
    if (branch.empty()) return nullptr;
    if (assumed) *assumed = true;
    return branch == "then_branch" ? "then_branch" : "else_branch";
}

Status assumeIfBranches(Graph& g, const std::vector<std::string>& specs)
{
    for (const std::string& spec : specs) {
        const size_t eq = spec.find('=');
        const std::string name = spec.substr(0, eq), branch = eq == std::string::npos ? "" : spec.substr(eq + 1);
        const std::string quoted = "--assume-branch '" + spec + "'";
        if (branch != "then" && branch != "else")
            return Status::failure(quoted + ": expected NODE=then or NODE=else, e.g. --assume-branch If_32=else");
        const auto node = std::find_if(g.nodes.begin(), g.nodes.end(), [&](const Node& m) { return m.name == name; });
        if (node == g.nodes.end()) return Status::failure(quoted + ": the model has no node '" + name + "'");
        if (node->opType != "If") return Status::failure(quoted + ": node '" + name + "' is a " + node->opType + ", not an If");
        if (const char* known = ifTakenBranch(g, *node))
            return Status::failure(quoted + ": the condition of '" + name + "' is known before it runs (it takes its " +
                                   std::string(known).substr(0, 4) + " branch); there is nothing to assume");
        Attribute a;
        a.name = kAssumedBranchAttr;
        a.kind = Attribute::Kind::String;
        a.s = branch + "_branch";
        auto& attrs = node->attrs;
        attrs.erase(std::remove_if(attrs.begin(), attrs.end(), [](const Attribute& x) { return x.name == kAssumedBranchAttr; }),
                    attrs.end());
        attrs.push_back(a);
    }
    return Status::success();
}

ControlBodies controlBodies(const Graph& g, const Node& n)
{
    ControlBodies c;
    auto add = [&](const char* attr) {
        if (auto b = cachedBodyInContext(g, n, subgraphOf(n, attr))) c.alternatives.push_back(std::move(b));
    };
    if (n.opType == "If") {
        if (const char* taken = ifPricedBranch(g, n)) {
            add(taken);
            c.branchKnown = !c.alternatives.empty();
        } else {
            add("then_branch");
            add("else_branch");
        }
    } else if (n.opType == "Loop") {
        add("body");
        c.runs = loopTrips(g, n);
    } else if (n.opType == "Scan") {
        add("body");
        c.runs = scanSteps(g, n);
    }
    return c;
}

void registerControlOps(OpRegistry& r)
{
    r.add({"If", ifRule, ifCost, Sharding::replicated(kReplicated)});
    r.add({"Loop", loopRule, loopCost, Sharding::replicated(kReplicated)});
    r.add({"Scan", scanRule, scanCost, Sharding::replicated(kReplicated)});
}

} // namespace tapas
