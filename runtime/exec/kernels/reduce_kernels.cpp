// Reductions and TopK on torch.
#include "runtime/exec/kernels/kernel_table.h"

#include <algorithm>

namespace tapas::runtime {

namespace {
using namespace kernels;

std::vector<Tensor> reduce(const KernelCall& c, const std::string& kind)
{
    Tensor x = in(c, 0);
    std::vector<int64_t> axes = c.node.attr("axes") ? c.node.attrInts("axes") : axesOf(c, 1);
    const bool keep = c.node.attrInt("keepdims", 1) != 0;
    if (axes.empty()) {
        if (c.node.attrInt("noop_with_empty_axes", 0)) return one(x);
        for (int64_t d = 0; d < x.dim(); ++d) axes.push_back(d);
    }
    for (int64_t& a : axes) a = normAxis(a, x.dim());
    if (kind == "mean") return one(x.mean(axes, keep));
    if (kind == "sum") return one(x.sum(axes, keep));
    if (kind == "sumsq") return one((x * x).sum(axes, keep));
    if (kind == "l2") return one((x * x).sum(axes, keep).sqrt());
    if (kind == "max") return one(x.amax(axes, keep));
    if (kind == "min") return one(x.amin(axes, keep));
    if (kind == "lse") return one(torch::logsumexp(x, axes, keep));
    Tensor r = x;
    std::sort(axes.rbegin(), axes.rend());
    for (int64_t a : axes) r = r.prod(a, keep);
    return one(r);
}

std::vector<Tensor> topk(const KernelCall& c)
{
    Tensor x = in(c, 0);
    const int64_t k = ints(in(c, 1)).at(0);
    auto [v, i] = torch::topk(x, k, normAxis(c.node.attrInt("axis", -1), x.dim()), c.node.attrInt("largest", 1) != 0,
                              c.node.attrInt("sorted", 1) != 0);
    return {v, i};
}

} // namespace

void registerReduceKernels(KernelTable& t)
{
    for (auto [op, kind] : std::initializer_list<std::pair<const char*, const char*>>{
             {"ReduceMean", "mean"}, {"ReduceSum", "sum"}, {"ReduceMax", "max"}, {"ReduceMin", "min"},
             {"ReduceProd", "prod"}, {"ReduceSumSquare", "sumsq"}, {"ReduceL2", "l2"},
             {"ReduceLogSumExp", "lse"}})
        t.add(op, [k = std::string(kind)](const KernelCall& c) { return reduce(c, k); });
    t.add("TopK", topk);
}

} // namespace tapas::runtime
