// Unary, binary and variadic elementwise ops, Where and Cast on torch.
#include "runtime/exec/kernels/kernel_table.h"
#include "runtime/exec/kernels/torch_forms.h"

#include <optional>

namespace tapas::runtime {

namespace {
using namespace kernels;

std::vector<Tensor> where(const KernelCall& c)
{
    return one(torch::where(in(c, 0).to(torch::kBool), in(c, 1), in(c, 2)));
}

std::vector<Tensor> cast(const KernelCall& c)
{
    return one(in(c, 0).to(torchType(dtypeFromOnnx(int32_t(c.node.attrInt("to", 1))))));
}

std::vector<Tensor> binaryDiv(const KernelCall& c)
{
    const Tensor &a = in(c, 0), &b = in(c, 1);
    if (isIntegral(a) && isIntegral(b)) return one(torch::div(a, b, "trunc"));
    return one(a / b);
}

// A float tensor against a one-element constant (tf2onnx's ReLU is a Max with 0): the scalar, or
// nothing when the pair is anything else. The output keeps the tensor's shape.
std::optional<double> constantScalarBound(const KernelCall& c, Tensor& x)
{
    if (c.in.size() != 2 || !has(c, 0) || !has(c, 1)) return std::nullopt;
    for (size_t i = 0; i < 2; ++i) {
        const Tensor &s = c.in[i], &t = c.in[1 - i];
        if (s.numel() == 1 && !s.requires_grad() && t.is_floating_point() && t.dim() >= s.dim() && t.numel() > 1) {
            x = t;
            return s.item<double>();
        }
    }
    return std::nullopt;
}

std::vector<Tensor> variadic(const KernelCall& c, int kind)
{
    if (kind <= 1) {
        // A bound known as a number: one clampBetween (data-independent, see torch_forms) rather
        // than torch::maximum, whose backward compares, masks and reduces the constant's gradient.
        Tensor x;
        if (const std::optional<double> bound = constantScalarBound(c, x))
            return one(kind == 0 ? clampBetween(x, std::nullopt, bound) : clampBetween(x, bound, std::nullopt));
    }
    Tensor acc = in(c, 0);
    for (size_t i = 1; i < c.in.size(); ++i) {
        if (!has(c, i)) continue;
        acc = kind == 0 ? torch::minimum(acc, c.in[i]) : kind == 1 ? torch::maximum(acc, c.in[i]) : acc + c.in[i];
    }
    if (kind == 3) acc = acc / double(c.in.size());
    return one(acc);
}

std::vector<Tensor> clip(const KernelCall& c)
{
    // A bound known as a number (an attribute before opset 11, or a constant scalar input such as
    // ReLU6's 0 and 6) is one clampBetween: maximum/minimum against a tensor would add a
    // broadcast op each, with a backward that also reduces a gradient for the bound.
    auto numberBound = [&](size_t i, const char* attr) -> std::optional<double> {
        if (has(c, i)) {
            if (c.in[i].numel() != 1 || c.in[i].requires_grad()) return std::nullopt;
            return c.in[i].item<double>();
        }
        if (c.node.attr(attr)) return c.node.attrFloat(attr, 0);
        return std::nullopt;
    };
    const std::optional<double> lo = numberBound(1, "min"), hi = numberBound(2, "max");
    Tensor x = in(c, 0);
    if ((lo || hi) && x.is_floating_point()) x = clampBetween(x, lo, hi);
    else if (lo || hi)
        x = x.clamp(lo ? c10::optional<at::Scalar>(*lo) : c10::nullopt, hi ? c10::optional<at::Scalar>(*hi) : c10::nullopt);
    if (has(c, 1) && !lo) x = torch::maximum(x, c.in[1]);
    if (has(c, 2) && !hi) x = torch::minimum(x, c.in[2]);
    return one(x);
}

Tensor gelu(const Tensor& x) { return torch::gelu(x); }
Tensor relu(const Tensor& x) { return torch::relu(x); }
Tensor sigmoid(const Tensor& x) { return torch::sigmoid(x); }
Tensor identity(const Tensor& x) { return x; }
Tensor notOp(const Tensor& x) { return torch::logical_not(x); }
Tensor softplus(const Tensor& x) { return torch::softplus(x); }

} // namespace

void registerElementwiseKernels(KernelTable& t)
{
    auto bin = [&](const char* op, Tensor (*f)(const Tensor&, const Tensor&)) {
        t.add(op, [f](const KernelCall& c) { return one(f(in(c, 0), in(c, 1))); });
    };
    bin("Add", [](const Tensor& a, const Tensor& b) { return a + b; });
    bin("Sub", [](const Tensor& a, const Tensor& b) { return a - b; });
    bin("Mul", [](const Tensor& a, const Tensor& b) { return a * b; });
    bin("Pow", [](const Tensor& a, const Tensor& b) {
        // A constant scalar exponent (LayerNorm's square): torch's scalar form runs 2 as x * x
        // and its backward as 2 * x, where the tensor form calls powf both ways.
        if (a.is_floating_point() && b.numel() == 1 && !b.requires_grad()) return torch::pow(a, b.item());
        return torch::pow(a, b);
    });
    bin("Greater", [](const Tensor& a, const Tensor& b) { return torch::gt(a, b); });
    bin("Less", [](const Tensor& a, const Tensor& b) { return torch::lt(a, b); });
    bin("GreaterOrEqual", [](const Tensor& a, const Tensor& b) { return torch::ge(a, b); });
    bin("LessOrEqual", [](const Tensor& a, const Tensor& b) { return torch::le(a, b); });
    bin("Equal", [](const Tensor& a, const Tensor& b) { return torch::eq(a, b); });
    bin("And", [](const Tensor& a, const Tensor& b) { return torch::logical_and(a, b); });
    bin("Or", [](const Tensor& a, const Tensor& b) { return torch::logical_or(a, b); });
    bin("Xor", [](const Tensor& a, const Tensor& b) { return torch::logical_xor(a, b); });
    bin("PRelu", [](const Tensor& a, const Tensor& b) { return torch::where(a >= 0, a, a * b); });
    t.add("Div", binaryDiv);
    t.add("Min", [](const KernelCall& c) { return variadic(c, 0); });
    t.add("Max", [](const KernelCall& c) { return variadic(c, 1); });
    t.add("Sum", [](const KernelCall& c) { return variadic(c, 2); });
    t.add("Mean", [](const KernelCall& c) { return variadic(c, 3); });
    t.add("Sqrt", unary(torch::sqrt));
    t.add("Erf", unary(torch::erf));
    t.add("Tanh", unary(torch::tanh));
    t.add("Exp", unary(torch::exp));
    t.add("Log", unary(torch::log));
    t.add("Neg", unary(torch::neg));
    t.add("Abs", unary(torch::abs));
    t.add("Reciprocal", unary(torch::reciprocal));
    t.add("Floor", unary(torch::floor));
    t.add("Ceil", unary(torch::ceil));
    t.add("Sign", unary(torch::sign));
    t.add("Sin", unary(torch::sin));
    t.add("Cos", unary(torch::cos));
    t.add("Relu", unary(relu));
    t.add("Sigmoid", unary(sigmoid));
    t.add("Gelu", unary(gelu));
    t.add("Softplus", unary(softplus));
    t.add("Not", unary(notOp));
    t.add("Identity", unary(identity));
    t.add("Dropout", [](const KernelCall& c) {
        std::vector<Tensor> out{in(c, 0)};
        if (c.node.outputs.size() > 1) out.push_back(torch::ones_like(in(c, 0), torch::kBool));
        return out;
    });
    t.add("LeakyRelu", [](const KernelCall& c) {
        return one(torch::leaky_relu(in(c, 0), c.node.attrFloat("alpha", 0.01)));
    });
    t.add("Elu", [](const KernelCall& c) { return one(torch::elu(in(c, 0), c.node.attrFloat("alpha", 1))); });
    t.add("HardSigmoid", [](const KernelCall& c) {
        return one(clampBetween(in(c, 0) * c.node.attrFloat("alpha", 0.2) + c.node.attrFloat("beta", 0.5), 0.0, 1.0));
    });
    t.add("HardSwish", [](const KernelCall& c) { return one(torch::hardswish(in(c, 0))); });
    t.add("Clip", clip);
    t.add("Where", where);
    t.add("Cast", cast);
}

} // namespace tapas::runtime
