// The ONNX ops of the zoo models and ../shared/models on torch, one small function each, found
// through one table (like core/ops). Semantics follow the ONNX operator docs for opset 13+.
#include "runtime/exec/op_kernels.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace tapas::runtime {

using torch::Tensor;
using Kernel = std::function<std::vector<Tensor>(const KernelCall&)>;

torch::ScalarType torchType(DType t)
{
    switch (t) {
    case DType::Bool: return torch::kBool;
    case DType::Int8: return torch::kInt8;
    case DType::UInt8: return torch::kUInt8;
    case DType::Int16: return torch::kInt16;
    case DType::Int32: return torch::kInt32;
    case DType::Int64:
    case DType::UInt16:
    case DType::UInt32:
    case DType::UInt64: return torch::kLong;
    default: return torch::kFloat32;
    }
}

Tensor constTensor(const ConstValue& v)
{
    const std::vector<int64_t> shape = v.shape.isFullyKnown() ? v.shape.knownDims() : std::vector<int64_t>{};
    Tensor t;
    if (v.isInteger()) t = torch::tensor(v.ints.empty() ? std::vector<int64_t>{} : v.ints, torch::kLong);
    else {
        std::vector<float> f(v.floats.begin(), v.floats.end());
        t = torch::tensor(f, torch::kFloat32);
    }
    return t.reshape(shape).to(torchType(v.dtype));
}

namespace {

[[noreturn]] void fail(const KernelCall& c, const std::string& why)
{
    throw std::runtime_error("node '" + c.node.name + "' (" + c.node.opType + "): " + why);
}

const Tensor& in(const KernelCall& c, size_t i)
{
    if (i >= c.in.size() || !c.in[i].defined()) fail(c, "input " + std::to_string(i) + " is missing");
    return c.in[i];
}
bool has(const KernelCall& c, size_t i) { return i < c.in.size() && c.in[i].defined(); }

std::vector<int64_t> ints(const Tensor& t)
{
    Tensor l = t.to(torch::kLong).contiguous().reshape({-1});
    return std::vector<int64_t>(l.data_ptr<int64_t>(), l.data_ptr<int64_t>() + l.numel());
}

int64_t normAxis(int64_t a, int64_t rank) { return a < 0 ? a + rank : a; }

// The local output shape the IR gives, or the fallback computed from the data.
std::vector<int64_t> outShape(const KernelCall& c, size_t o, const std::function<std::vector<int64_t>()>& fallback)
{
    if (o < c.outShapes.size() && c.outShapes[o]) return *c.outShapes[o];
    return fallback();
}

// Axes from an attribute (older opsets) or an input (newer ones).
std::vector<int64_t> axesOf(const KernelCall& c, size_t inputIndex)
{
    if (has(c, inputIndex)) return ints(c.in[inputIndex]);
    return c.node.attrInts("axes");
}

Tensor fromInt(const KernelCall& c, int64_t def, size_t inputIndex)
{
    return has(c, inputIndex) ? c.in[inputIndex] : torch::tensor(def);
}

std::vector<Tensor> one(Tensor t) { return {std::move(t)}; }

Kernel unary(Tensor (*f)(const Tensor&))
{
    return [f](const KernelCall& c) { return one(f(in(c, 0))); };
}

bool isIntegral(const Tensor& t) { return !t.is_floating_point(); }

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

std::vector<Tensor> softmax(const KernelCall& c, bool log)
{
    Tensor x = in(c, 0);
    const bool legacy = c.graph.opsetVersion() > 0 && c.graph.opsetVersion() < 13;
    int64_t axis = normAxis(c.node.attrInt("axis", legacy ? 1 : -1), x.dim());
    if (!legacy) return one(log ? torch::log_softmax(x, axis) : torch::softmax(x, axis));
    const auto shape = x.sizes().vec();
    Tensor flat = x.flatten(axis);
    Tensor y = log ? torch::log_softmax(flat, -1) : torch::softmax(flat, -1);
    return one(y.reshape(shape));
}

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

std::vector<int64_t> spatialAttr(const KernelCall& c, const char* name, size_t n, int64_t def)
{
    std::vector<int64_t> v = c.node.attrInts(name);
    if (v.empty()) v.assign(n, def);
    return v;
}

// ONNX pads [b1..bn, e1..en]: symmetric ones go to the op, the rest as explicit padding.
Tensor padAsym(const Tensor& x, const std::vector<int64_t>& pads, size_t n, std::vector<int64_t>& sym, double value)
{
    sym.assign(n, 0);
    if (pads.empty()) return x;
    std::vector<int64_t> extra; // torch order: last dim first, (begin, end)
    bool any = false;
    for (size_t i = 0; i < n; ++i) sym[i] = std::min(pads[i], pads[i + n]);
    for (size_t i = n; i-- > 0;) {
        extra.push_back(pads[i] - sym[i]);
        extra.push_back(pads[i + n] - sym[i]);
        any = any || extra[extra.size() - 1] || extra[extra.size() - 2];
    }
    return any ? torch::constant_pad_nd(x, extra, value) : x;
}

std::vector<Tensor> conv(const KernelCall& c, bool transposed)
{
    Tensor x = in(c, 0), w = in(c, 1);
    const size_t n = size_t(x.dim() - 2);
    if (c.node.attrString("auto_pad", "NOTSET") != "NOTSET" && c.node.attrString("auto_pad", "NOTSET") != "VALID")
        fail(c, "auto_pad SAME is not supported; export with explicit pads");
    std::vector<int64_t> sym;
    x = padAsym(x, c.node.attrInts("pads"), n, sym, 0);
    int64_t groups = c.node.attrInt("group", 1);
    // Grouped convolutions split over channels keep whole groups on every rank.
    if (groups > 1 && !c.strategy.inputs.empty() && c.strategy.inputs[0].kind == TensorLayout::S &&
        c.strategy.inputs[0].dim == 1)
        groups /= c.tp;
    std::vector<int64_t> outPad = spatialAttr(c, "output_padding", n, 0);
    Tensor b = has(c, 2) ? c.in[2] : Tensor();
    return one(at::convolution(x, w, b, spatialAttr(c, "strides", n, 1), sym, spatialAttr(c, "dilations", n, 1),
                               transposed, transposed ? outPad : std::vector<int64_t>(n, 0), groups));
}

std::vector<Tensor> pool(const KernelCall& c, bool max)
{
    Tensor x = in(c, 0);
    const size_t n = size_t(x.dim() - 2);
    const std::vector<int64_t> k = c.node.attrInts("kernel_shape");
    std::vector<int64_t> sym;
    x = padAsym(x, c.node.attrInts("pads"), n, sym, max ? -std::numeric_limits<double>::infinity() : 0);
    const auto s = spatialAttr(c, "strides", n, 1);
    const bool ceil = c.node.attrInt("ceil_mode", 0) != 0;
    if (n != 2) fail(c, "only 2-D pooling is supported");
    if (max) return one(torch::max_pool2d(x, k, s, sym, spatialAttr(c, "dilations", n, 1), ceil));
    return one(torch::avg_pool2d(x, k, s, sym, ceil, c.node.attrInt("count_include_pad", 0) != 0));
}

std::vector<Tensor> batchNorm(const KernelCall& c)
{
    // Inference form with the stored statistics: the same function on every batch split.
    Tensor x = in(c, 0);
    std::vector<int64_t> bshape(size_t(x.dim()), 1);
    bshape[1] = -1;
    const double eps = c.node.attrFloat("epsilon", 1e-5);
    Tensor y = (x - in(c, 3).reshape(bshape)) / (in(c, 4).reshape(bshape) + eps).sqrt() * in(c, 1).reshape(bshape) +
               in(c, 2).reshape(bshape);
    std::vector<Tensor> out{y};
    for (size_t o = 1; o < c.node.outputs.size(); ++o) out.push_back(c.in[std::min<size_t>(o + 2, 4)]);
    return out;
}

std::vector<Tensor> layerNorm(const KernelCall& c)
{
    Tensor x = in(c, 0);
    const int64_t axis = normAxis(c.node.attrInt("axis", -1), x.dim());
    const double eps = c.node.attrFloat("epsilon", 1e-5);
    std::vector<int64_t> dims;
    for (int64_t d = axis; d < x.dim(); ++d) dims.push_back(d);
    Tensor mean = x.mean(dims, true);
    Tensor inv = ((x - mean).pow(2).mean(dims, true) + eps).rsqrt();
    Tensor y = (x - mean) * inv;
    if (has(c, 1)) y = y * c.in[1];
    if (has(c, 2)) y = y + c.in[2];
    return {y, mean, inv};
}

std::vector<Tensor> reshapeTo(const KernelCall& c)
{
    Tensor x = in(c, 0);
    const auto shape = outShape(c, 0, [&] {
        std::vector<int64_t> s = ints(in(c, 1));
        for (size_t i = 0; i < s.size(); ++i)
            if (s[i] == 0 && !c.node.attrInt("allowzero", 0)) s[i] = x.size(int64_t(i));
        return s;
    });
    return one(x.reshape(shape));
}

std::vector<Tensor> unsqueeze(const KernelCall& c)
{
    Tensor x = in(c, 0);
    const auto shape = outShape(c, 0, [&] {
        std::vector<int64_t> axes = axesOf(c, 1);
        const int64_t r = x.dim() + int64_t(axes.size());
        for (int64_t& a : axes) a = normAxis(a, r);
        std::sort(axes.begin(), axes.end());
        Tensor y = x;
        for (int64_t a : axes) y = y.unsqueeze(a);
        return y.sizes().vec();
    });
    return one(x.reshape(shape));
}

std::vector<Tensor> squeeze(const KernelCall& c)
{
    Tensor x = in(c, 0);
    const auto shape = outShape(c, 0, [&] {
        std::vector<int64_t> axes = axesOf(c, 1);
        std::vector<int64_t> s;
        for (int64_t d = 0; d < x.dim(); ++d) {
            bool drop = axes.empty() ? x.size(d) == 1 : false;
            for (int64_t a : axes) drop = drop || normAxis(a, x.dim()) == d;
            if (!drop) s.push_back(x.size(d));
        }
        return s;
    });
    return one(x.reshape(shape));
}

std::vector<Tensor> flatten(const KernelCall& c)
{
    Tensor x = in(c, 0);
    const int64_t axis = normAxis(c.node.attrInt("axis", 1), x.dim());
    int64_t lead = 1;
    for (int64_t d = 0; d < axis; ++d) lead *= x.size(d);
    return one(x.reshape({lead, -1}));
}

std::vector<Tensor> split(const KernelCall& c)
{
    Tensor x = in(c, 0);
    const int64_t axis = normAxis(c.node.attrInt("axis", 0), x.dim());
    std::vector<int64_t> sizes;
    bool known = true;
    for (size_t o = 0; o < c.node.outputs.size(); ++o) {
        if (o < c.outShapes.size() && c.outShapes[o]) sizes.push_back((*c.outShapes[o])[size_t(axis)]);
        else known = false;
    }
    if (!known) {
        sizes = has(c, 1) ? ints(c.in[1]) : c.node.attrInts("split");
        if (sizes.empty()) sizes.assign(c.node.outputs.size(), x.size(axis) / int64_t(c.node.outputs.size()));
    }
    return x.split_with_sizes(sizes, axis);
}

std::vector<Tensor> slice(const KernelCall& c)
{
    Tensor x = in(c, 0);
    std::vector<int64_t> starts, ends, axes, steps;
    if (has(c, 1)) {
        starts = ints(c.in[1]);
        ends = ints(in(c, 2));
        if (has(c, 3)) axes = ints(c.in[3]);
        if (has(c, 4)) steps = ints(c.in[4]);
    } else {
        starts = c.node.attrInts("starts");
        ends = c.node.attrInts("ends");
        axes = c.node.attrInts("axes");
    }
    if (axes.empty())
        for (size_t i = 0; i < starts.size(); ++i) axes.push_back(int64_t(i));
    steps.resize(starts.size(), 1);
    for (size_t i = 0; i < starts.size(); ++i) {
        const int64_t a = normAxis(axes[i], x.dim()), n = x.size(a), st = steps[i];
        if (st == 0) fail(c, "slice step 0");
        auto clampTo = [](int64_t v, int64_t lo, int64_t hi) { return std::max(lo, std::min(hi, v)); };
        int64_t s = std::max<int64_t>(-n - 1, std::min<int64_t>(n + 1, starts[i]));
        int64_t e = std::max<int64_t>(-n - 1, std::min<int64_t>(n + 1, ends[i]));
        if (s < 0) s += n;
        if (e < 0) e += n;
        if (st > 0) {
            s = clampTo(s, 0, n);
            e = clampTo(e, 0, n);
            x = x.slice(a, s, std::max(s, e), st);
        } else {
            s = clampTo(s, 0, n - 1);
            e = clampTo(e, -1, n - 1);
            std::vector<int64_t> idx;
            for (int64_t j = s; j > e; j += st) idx.push_back(j);
            x = x.index_select(a, torch::tensor(idx, torch::kLong));
        }
    }
    return one(x);
}

std::vector<Tensor> gather(const KernelCall& c)
{
    Tensor data = in(c, 0), idx = in(c, 1).to(torch::kLong);
    const int64_t axis = normAxis(c.node.attrInt("axis", 0), data.dim());
    const int64_t rows = data.size(axis);
    // Vocabulary-parallel lookup: this rank holds rows [offset, offset + rows); others add zeros.
    const bool vocabSplit = c.tp > 1 && !c.strategy.inputs.empty() && c.strategy.inputs[0].kind == TensorLayout::S &&
                            c.strategy.inputs[0].dim == axis;
    const int64_t whole = vocabSplit ? rows * c.tp : rows;
    idx = torch::where(idx < 0, idx + whole, idx);
    Tensor mask;
    if (vocabSplit) {
        const int64_t offset = c.tpIndex * rows;
        mask = (idx >= offset) & (idx < offset + rows);
        idx = (idx - offset).clamp(0, rows - 1);
    }
    std::vector<int64_t> shape;
    for (int64_t d = 0; d < axis; ++d) shape.push_back(data.size(d));
    for (int64_t s : idx.sizes()) shape.push_back(s);
    for (int64_t d = axis + 1; d < data.dim(); ++d) shape.push_back(data.size(d));
    Tensor y = data.index_select(axis, idx.reshape({-1})).reshape(shape);
    if (vocabSplit) {
        std::vector<int64_t> ms(size_t(axis), 1);
        for (int64_t s : idx.sizes()) ms.push_back(s);
        for (int64_t d = axis + 1; d < data.dim(); ++d) ms.push_back(1);
        y = y * mask.reshape(ms).to(y.scalar_type());
    }
    return one(y);
}

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

std::vector<Tensor> expand(const KernelCall& c)
{
    Tensor x = in(c, 0);
    const auto shape = outShape(c, 0, [&] {
        std::vector<int64_t> t = ints(in(c, 1));
        return at::infer_size(x.sizes(), t);
    });
    return one(x.expand(shape));
}

std::vector<Tensor> where(const KernelCall& c)
{
    return one(torch::where(in(c, 0).to(torch::kBool), in(c, 1), in(c, 2)));
}

std::vector<Tensor> cast(const KernelCall& c)
{
    return one(in(c, 0).to(torchType(dtypeFromOnnx(int32_t(c.node.attrInt("to", 1))))));
}

std::vector<Tensor> topk(const KernelCall& c)
{
    Tensor x = in(c, 0);
    const int64_t k = ints(in(c, 1)).at(0);
    auto [v, i] = torch::topk(x, k, normAxis(c.node.attrInt("axis", -1), x.dim()), c.node.attrInt("largest", 1) != 0,
                              c.node.attrInt("sorted", 1) != 0);
    return {v, i};
}

std::vector<Tensor> scatterElements(const KernelCall& c)
{
    Tensor x = in(c, 0);
    const int64_t axis = normAxis(c.node.attrInt("axis", 0), x.dim());
    Tensor idx = in(c, 1).to(torch::kLong);
    idx = torch::where(idx < 0, idx + x.size(axis), idx);
    const std::string red = c.node.attrString("reduction", "none");
    if (red == "add") return one(x.scatter_add(axis, idx, in(c, 2)));
    return one(x.scatter(axis, idx, in(c, 2)));
}

std::vector<Tensor> binaryDiv(const KernelCall& c)
{
    const Tensor &a = in(c, 0), &b = in(c, 1);
    if (isIntegral(a) && isIntegral(b)) return one(torch::div(a, b, "trunc"));
    return one(a / b);
}

std::vector<Tensor> variadic(const KernelCall& c, int kind)
{
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
    Tensor x = in(c, 0);
    if (has(c, 1)) x = torch::maximum(x, c.in[1]);
    else if (c.node.attr("min")) x = x.clamp_min(c.node.attrFloat("min", 0));
    if (has(c, 2)) x = torch::minimum(x, c.in[2]);
    else if (c.node.attr("max")) x = x.clamp_max(c.node.attrFloat("max", 0));
    return one(x);
}

std::vector<Tensor> padOp(const KernelCall& c)
{
    Tensor x = in(c, 0);
    if (c.node.attrString("mode", "constant") != "constant") fail(c, "only constant padding is supported");
    const std::vector<int64_t> pads = has(c, 1) ? ints(c.in[1]) : c.node.attrInts("pads");
    const double value = has(c, 2) ? c.in[2].item<double>() : c.node.attrFloat("value", 0);
    const size_t n = pads.size() / 2;
    std::vector<int64_t> tp;
    for (size_t i = n; i-- > 0;) {
        tp.push_back(pads[i]);
        tp.push_back(pads[i + n]);
    }
    return one(torch::constant_pad_nd(x, tp, value));
}

Tensor gelu(const Tensor& x) { return torch::gelu(x); }
Tensor relu(const Tensor& x) { return torch::relu(x); }
Tensor sigmoid(const Tensor& x) { return torch::sigmoid(x); }
Tensor identity(const Tensor& x) { return x; }
Tensor notOp(const Tensor& x) { return torch::logical_not(x); }
Tensor softplus(const Tensor& x) { return torch::softplus(x); }

const std::unordered_map<std::string, Kernel>& kernels()
{
    static const std::unordered_map<std::string, Kernel> table = [] {
        std::unordered_map<std::string, Kernel> t;
        auto bin = [&](const char* op, Tensor (*f)(const Tensor&, const Tensor&)) {
            t[op] = [f](const KernelCall& c) { return one(f(in(c, 0), in(c, 1))); };
        };
        bin("Add", [](const Tensor& a, const Tensor& b) { return a + b; });
        bin("Sub", [](const Tensor& a, const Tensor& b) { return a - b; });
        bin("Mul", [](const Tensor& a, const Tensor& b) { return a * b; });
        bin("Pow", [](const Tensor& a, const Tensor& b) { return torch::pow(a, b); });
        bin("MatMul", [](const Tensor& a, const Tensor& b) { return torch::matmul(a, b); });
        bin("Greater", [](const Tensor& a, const Tensor& b) { return torch::gt(a, b); });
        bin("Less", [](const Tensor& a, const Tensor& b) { return torch::lt(a, b); });
        bin("GreaterOrEqual", [](const Tensor& a, const Tensor& b) { return torch::ge(a, b); });
        bin("LessOrEqual", [](const Tensor& a, const Tensor& b) { return torch::le(a, b); });
        bin("Equal", [](const Tensor& a, const Tensor& b) { return torch::eq(a, b); });
        bin("And", [](const Tensor& a, const Tensor& b) { return torch::logical_and(a, b); });
        bin("Or", [](const Tensor& a, const Tensor& b) { return torch::logical_or(a, b); });
        bin("Xor", [](const Tensor& a, const Tensor& b) { return torch::logical_xor(a, b); });
        bin("PRelu", [](const Tensor& a, const Tensor& b) { return torch::where(a >= 0, a, a * b); });
        t["Div"] = binaryDiv;
        t["Min"] = [](const KernelCall& c) { return variadic(c, 0); };
        t["Max"] = [](const KernelCall& c) { return variadic(c, 1); };
        t["Sum"] = [](const KernelCall& c) { return variadic(c, 2); };
        t["Mean"] = [](const KernelCall& c) { return variadic(c, 3); };
        t["Sqrt"] = unary(torch::sqrt);
        t["Erf"] = unary(torch::erf);
        t["Tanh"] = unary(torch::tanh);
        t["Exp"] = unary(torch::exp);
        t["Log"] = unary(torch::log);
        t["Neg"] = unary(torch::neg);
        t["Abs"] = unary(torch::abs);
        t["Reciprocal"] = unary(torch::reciprocal);
        t["Floor"] = unary(torch::floor);
        t["Ceil"] = unary(torch::ceil);
        t["Sign"] = unary(torch::sign);
        t["Sin"] = unary(torch::sin);
        t["Cos"] = unary(torch::cos);
        t["Relu"] = unary(relu);
        t["Sigmoid"] = unary(sigmoid);
        t["Gelu"] = unary(gelu);
        t["Softplus"] = unary(softplus);
        t["Not"] = unary(notOp);
        t["Identity"] = unary(identity);
        t["Dropout"] = [](const KernelCall& c) {
            std::vector<Tensor> out{in(c, 0)};
            if (c.node.outputs.size() > 1) out.push_back(torch::ones_like(in(c, 0), torch::kBool));
            return out;
        };
        t["LeakyRelu"] = [](const KernelCall& c) {
            return one(torch::leaky_relu(in(c, 0), c.node.attrFloat("alpha", 0.01)));
        };
        t["Elu"] = [](const KernelCall& c) { return one(torch::elu(in(c, 0), c.node.attrFloat("alpha", 1))); };
        t["HardSigmoid"] = [](const KernelCall& c) {
            return one((in(c, 0) * c.node.attrFloat("alpha", 0.2) + c.node.attrFloat("beta", 0.5)).clamp(0, 1));
        };
        t["HardSwish"] = [](const KernelCall& c) { return one(torch::hardswish(in(c, 0))); };
        t["Clip"] = clip;
        t["Where"] = where;
        t["Cast"] = cast;
        t["Softmax"] = [](const KernelCall& c) { return softmax(c, false); };
        t["LogSoftmax"] = [](const KernelCall& c) { return softmax(c, true); };
        for (auto [op, kind] : std::initializer_list<std::pair<const char*, const char*>>{
                 {"ReduceMean", "mean"}, {"ReduceSum", "sum"}, {"ReduceMax", "max"}, {"ReduceMin", "min"},
                 {"ReduceProd", "prod"}, {"ReduceSumSquare", "sumsq"}, {"ReduceL2", "l2"},
                 {"ReduceLogSumExp", "lse"}})
            t[op] = [k = std::string(kind)](const KernelCall& c) { return reduce(c, k); };
        t["Gemm"] = gemm;
        t["Conv"] = [](const KernelCall& c) { return conv(c, false); };
        t["ConvTranspose"] = [](const KernelCall& c) { return conv(c, true); };
        t["MaxPool"] = [](const KernelCall& c) { return pool(c, true); };
        t["AveragePool"] = [](const KernelCall& c) { return pool(c, false); };
        t["GlobalAveragePool"] = [](const KernelCall& c) {
            Tensor x = in(c, 0);
            std::vector<int64_t> dims;
            for (int64_t d = 2; d < x.dim(); ++d) dims.push_back(d);
            return one(x.mean(dims, true));
        };
        t["GlobalMaxPool"] = [](const KernelCall& c) {
            Tensor x = in(c, 0);
            std::vector<int64_t> dims;
            for (int64_t d = 2; d < x.dim(); ++d) dims.push_back(d);
            return one(x.amax(dims, true));
        };
        t["BatchNormalization"] = batchNorm;
        t["LayerNormalization"] = layerNorm;
        t["Reshape"] = reshapeTo;
        t["Unsqueeze"] = unsqueeze;
        t["Squeeze"] = squeeze;
        t["Flatten"] = flatten;
        t["Transpose"] = [](const KernelCall& c) {
            Tensor x = in(c, 0);
            std::vector<int64_t> perm = c.node.attrInts("perm");
            if (perm.empty())
                for (int64_t d = x.dim() - 1; d >= 0; --d) perm.push_back(d);
            return one(x.permute(perm));
        };
        t["Concat"] = [](const KernelCall& c) {
            std::vector<Tensor> xs;
            for (const Tensor& x : c.in)
                if (x.defined()) xs.push_back(x);
            return one(torch::cat(xs, normAxis(c.node.attrInt("axis", 0), in(c, 0).dim())));
        };
        t["Split"] = split;
        t["Slice"] = slice;
        t["Gather"] = gather;
        t["GatherElements"] = [](const KernelCall& c) {
            Tensor x = in(c, 0);
            const int64_t axis = normAxis(c.node.attrInt("axis", 0), x.dim());
            Tensor idx = in(c, 1).to(torch::kLong);
            return one(torch::gather(x, axis, torch::where(idx < 0, idx + x.size(axis), idx)));
        };
        t["ScatterElements"] = scatterElements;
        t["Shape"] = [](const KernelCall& c) {
            const std::vector<int64_t> s = in(c, 0).sizes().vec();
            const int64_t r = int64_t(s.size());
            int64_t start = std::clamp(normAxis(c.node.attrInt("start", 0), r), int64_t(0), r);
            int64_t end = std::clamp(c.node.attr("end") ? normAxis(c.node.attrInt("end", r), r) : r, start, r);
            return one(torch::tensor(std::vector<int64_t>(s.begin() + start, s.begin() + end), torch::kLong));
        };
        t["Size"] = [](const KernelCall& c) { return one(torch::tensor(in(c, 0).numel())); };
        t["Constant"] = constantNode;
        t["ConstantOfShape"] = constantOfShape;
        t["Range"] = range;
        t["Expand"] = expand;
        t["Tile"] = [](const KernelCall& c) { return one(in(c, 0).repeat(ints(in(c, 1)))); };
        t["TopK"] = topk;
        t["Pad"] = padOp;
        t["Einsum"] = [](const KernelCall& c) {
            std::vector<Tensor> xs(c.in.begin(), c.in.end());
            return one(torch::einsum(c.node.attrString("equation", ""), xs));
        };
        t["Trilu"] = [](const KernelCall& c) {
            const int64_t k = has(c, 1) ? ints(c.in[1]).at(0) : 0;
            return one(c.node.attrInt("upper", 1) ? torch::triu(in(c, 0), k) : torch::tril(in(c, 0), k));
        };
        return t;
    }();
    return table;
}

} // namespace

std::vector<Tensor> runKernel(const KernelCall& c)
{
    if (!c.node.domain.empty() && c.node.domain != "ai.onnx")
        fail(c, "ops of domain '" + c.node.domain + "' are not supported by the executor");
    const auto& table = kernels();
    auto it = table.find(c.node.opType);
    if (it == table.end()) fail(c, "op type not supported by the executor");
    std::vector<Tensor> out = it->second(c);
    (void)fromInt;
    return out;
}

} // namespace tapas::runtime
