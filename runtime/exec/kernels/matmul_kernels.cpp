// MatMul, Gemm and Einsum on torch.
#include "runtime/exec/kernels/kernel_table.h"

namespace tapas::runtime {

namespace {
using namespace kernels;

std::vector<Tensor> gemm(const KernelCall& c)
{
    Tensor a = in(c, 0), b = in(c, 1);
    if (c.node.attrInt("transA", 0)) a = a.t();
    if (c.node.attrInt("transB", 0)) b = b.t();
    Tensor y = torch::matmul(a, b);
    const double alpha = c.node.attrFloat("alpha", 1), beta = c.node.attrFloat("beta", 1);
    if (alpha != 1) y = y * alpha;
    if (has(c, 2)) y = y + (beta == 1 ? c.in[2] : c.in[2] * beta);
    return one(y);
}

} // namespace

void registerMatMulKernels(KernelTable& t)
{
    t.add("MatMul", [](const KernelCall& c) { return one(torch::matmul(in(c, 0), in(c, 1))); });
    t.add("Gemm", gemm);
    t.add("Einsum", [](const KernelCall& c) {
        const std::string eq = c.node.attrString("equation", "");
        if (eq.empty()) fail(c, "needs its equation attribute");
        std::vector<Tensor> xs;
        for (size_t i = 0; i < c.in.size(); ++i) xs.push_back(in(c, i));
        try {
            return one(torch::einsum(eq, xs));
        } catch (const c10::Error& e) {
            fail(c, "equation '" + eq + "': " + e.what_without_backtrace());
        }
    });
}

} // namespace tapas::runtime
