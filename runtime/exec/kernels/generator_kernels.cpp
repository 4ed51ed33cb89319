// Constant, ConstantOfShape and Range on torch.
#include "runtime/exec/kernels/kernel_table.h"

namespace tapas::runtime {

namespace {
using namespace kernels;

std::vector<Tensor> constantNode(const KernelCall& c)
{
    if (const Attribute* a = c.node.attr("value")) {
        if (a->tensor.size() == a->tensorElements && a->tensor.shape.isFullyKnown())
            return one(constTensor(a->tensor));
        const auto shape = a->tensor.shape.isFullyKnown() ? a->tensor.shape.knownDims() : std::vector<int64_t>{};
        return one(torch::zeros(shape, torch::TensorOptions().dtype(torchType(a->tensor.dtype))));
    }
    if (const Attribute* a = c.node.attr("value_float")) return one(torch::tensor(float(a->f)));
    if (const Attribute* a = c.node.attr("value_int")) return one(torch::tensor(a->i));
    if (const Attribute* a = c.node.attr("value_floats"))
        return one(torch::tensor(std::vector<float>(a->floats.begin(), a->floats.end())));
    if (const Attribute* a = c.node.attr("value_ints")) return one(torch::tensor(a->ints));
    fail(c, "Constant without a supported value attribute");
}

std::vector<Tensor> constantOfShape(const KernelCall& c)
{
    const auto shape = outShape(c, 0, [&] { return ints(in(c, 0)); });
    Tensor v = torch::zeros({}, torch::kFloat32);
    if (const Attribute* a = c.node.attr("value"); a && a->tensor.size() > 0) v = constTensor(a->tensor).reshape({});
    return one(v.expand(shape).clone());
}

std::vector<Tensor> range(const KernelCall& c)
{
    Tensor s = in(c, 0), l = in(c, 1), d = in(c, 2);
    if (isIntegral(s))
        return one(torch::arange(s.item<int64_t>(), l.item<int64_t>(), d.item<int64_t>(), torch::kLong));
    return one(torch::arange(s.item<double>(), l.item<double>(), d.item<double>(), s.scalar_type()));
}

} // namespace

void registerGeneratorKernels(KernelTable& t)
{
    t.add("Constant", constantNode);
    t.add("ConstantOfShape", constantOfShape);
    t.add("Range", range);
}

} // namespace tapas::runtime
