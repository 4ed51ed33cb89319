// If and Loop on torch: the condition and trip count are read on this rank, the chosen branch
// or each iteration runs through runSubgraph (replicated), and autograd records what ran.
// Scan is listed as not run (core/ops/worker_support).
#include "runtime/exec/kernels/kernel_table.h"
#include "runtime/exec/subgraph_runner.h"

#include "core/onnx/onnx_subgraph.h"

namespace tapas::runtime {

namespace {
using namespace kernels;

// Loops past this many iterations are taken for a condition that never turns false.
constexpr int64_t kMaxIterations = 1000000;

bool truth(const KernelCall& c, const Tensor& t, const char* what)
{
    if (t.numel() != 1) fail(c, std::string(what) + " has " + std::to_string(t.numel()) + " elements; it must have one");
    return t.reshape({}).to(torch::kBool).item<bool>();
}

std::shared_ptr<const Graph> body(const KernelCall& c, const char* attribute)
{
    std::shared_ptr<const Graph> g = subgraphOf(c.node, attribute);
    if (!g) fail(c, std::string("the '") + attribute + "' subgraph attribute is missing");
    return g;
}

std::vector<Tensor> ifKernel(const KernelCall& c)
{
    const bool taken = truth(c, in(c, 0), "the condition");
    const auto branch = body(c, taken ? "then_branch" : "else_branch");
    std::vector<Tensor> out = runSubgraph(*branch, {}, outerValues(c.graph, c.node, c.in), c.node.name);
    if (out.size() < c.node.outputs.size())
        fail(c, std::string(taken ? "then" : "else") + " branch gives " + std::to_string(out.size()) +
                    " outputs for the node's " + std::to_string(c.node.outputs.size()));
    return out;
}

// Inputs: M (trip count, optional), cond (optional), N carried values. The body takes
// (iteration, cond, carried...) and gives (cond, carried..., K scan outputs); the node gives the
// final carried values, then each scan output stacked over the iterations.
std::vector<Tensor> loopKernel(const KernelCall& c)
{
    const auto held = body(c, "body");
    const Graph& g = *held;
    const size_t formal = formalInputs(c.node);
    if (formal < 2) fail(c, "needs its trip-count and condition inputs (either may be empty)");
    const size_t carriedCount = formal - 2;
    if (g.inputs.size() != carriedCount + 2 || g.outputs.size() < carriedCount + 1)
        fail(c, "its body takes " + std::to_string(g.inputs.size()) + " inputs and gives " +
                    std::to_string(g.outputs.size()) + " outputs for " + std::to_string(carriedCount) + " carried values");
    if (!has(c, 0) && !has(c, 1)) fail(c, "has neither a trip count nor a condition: it would never end");
    const int64_t trips = has(c, 0) ? ints(c.in[0]).at(0) : kMaxIterations;
    bool cond = has(c, 1) ? truth(c, c.in[1], "the condition") : true;
    const auto outer = outerValues(c.graph, c.node, c.in);
    std::vector<Tensor> carried(c.in.begin() + 2, c.in.begin() + long(formal));
    for (size_t i = 0; i < carried.size(); ++i)
        if (!carried[i].defined()) fail(c, "carried value " + std::to_string(i) + " has no initial value");
    const size_t scans = g.outputs.size() - 1 - carriedCount;
    std::vector<std::vector<Tensor>> scanned(scans);
    int64_t i = 0;
    for (; i < trips && cond; ++i) {
        if (i >= kMaxIterations) fail(c, "ran " + std::to_string(i) + " iterations without its condition turning false");
        std::vector<Tensor> formalIn{torch::full({}, i, torch::kLong), torch::full({}, cond, torch::kBool)};
        formalIn.insert(formalIn.end(), carried.begin(), carried.end());
        std::vector<Tensor> out = runSubgraph(g, formalIn, outer, c.node.name);
        cond = truth(c, out[0], "the body's condition output");
        for (size_t k = 0; k < carriedCount; ++k) carried[k] = out[1 + k];
        for (size_t k = 0; k < scans; ++k) scanned[k].push_back(out[1 + carriedCount + k]);
    }
    std::vector<Tensor> result = carried;
    for (size_t k = 0; k < scans; ++k) {
        if (scanned[k].empty()) {
            const tapas::Tensor& t = g.tensor(g.outputs[1 + carriedCount + k]);
            std::vector<int64_t> shape{0};
            if (t.shape.isFullyKnown())
                for (int64_t d : t.shape.knownDims()) shape.push_back(d);
            result.push_back(torch::zeros(shape, torch::TensorOptions().dtype(torchType(t.dtype))));
        } else {
            result.push_back(torch::stack(scanned[k]));
        }
    }
    return result;
}

} // namespace

void registerControlKernels(KernelTable& t)
{
    t.add("If", ifKernel);
    t.add("Loop", loopKernel);
}

} // namespace tapas::runtime
