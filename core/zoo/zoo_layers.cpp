#include "core/zoo/zoo_layers.h"

#include <cmath>

namespace tapas::zoo {

Val linear(OnnxBuilder& b, const Val& x, int64_t in, int64_t out, bool bias)
{
    const std::string p = b.paramPrefix();
    const Val w = b.weight(p + "weight", {in, out});
    const Val mm = b.op("MatMul", {x, w});
    if (!bias) return mm;
    // torch writes the bias first: Add(bias, MatMul_output_0).
    return b.op("Add", {b.weight(p + "bias", {out}), mm});
}

Val gemm(OnnxBuilder& b, const Val& x, int64_t in, int64_t out)
{
    const std::string p = b.paramPrefix();
    const Val w = b.weight(p + "weight", {out, in});
    const Val bias = b.weight(p + "bias", {out});
    return b.op("Gemm", {x, w, bias}, {Attr::of("alpha", 1.0), Attr::of("beta", 1.0), Attr::of("transB", 1)});
}

Val layerNorm(OnnxBuilder& b, const Val& x, int64_t dim, double eps)
{
    const std::string p = b.paramPrefix();
    const Val w = b.weight(p + "weight", {dim});
    const Val bias = b.weight(p + "bias", {dim});
    if (b.opset() >= 17)
        return b.op("LayerNormalization", {x, w, bias}, {Attr::of("axis", -1), Attr::of("epsilon", eps)});
    const Val mean = b.op("ReduceMean", {x}, {Attr::of("axes", Ints{-1}), Attr::of("keepdims", 1)});
    const Val centered = b.op("Sub", {x, mean});
    const Val sq = b.op("Pow", {centered, b.constFloat(2.0f)});
    const Val var = b.op("ReduceMean", {sq}, {Attr::of("axes", Ints{-1}), Attr::of("keepdims", 1)});
    const Val std = b.op("Sqrt", {b.op("Add", {var, b.constFloat(float(eps))})});
    const Val normed = b.op("Div", {centered, std});
    return b.op("Add", {b.op("Mul", {normed, w}), bias});
}

Val rmsNorm(OnnxBuilder& b, const Val& x, int64_t dim, double eps)
{
    const Val w = b.weight(b.paramPrefix() + "weight", {dim});
    const Val sq = b.op("Pow", {x, b.constFloat(2.0f)});
    const Val var = b.op("ReduceMean", {sq}, {Attr::of("axes", Ints{-1}), Attr::of("keepdims", 1)});
    const Val rs = b.op("Reciprocal", {b.op("Sqrt", {b.op("Add", {var, b.constFloat(float(eps))})})});
    return b.op("Mul", {w, b.op("Mul", {x, rs})});
}

Val gelu(OnnxBuilder& b, const Val& x)
{
    const Val scaled = b.op("Div", {x, b.constFloat(float(std::sqrt(2.0)))});
    const Val erf = b.op("Erf", {scaled});
    const Val onePlus = b.op("Add", {erf, b.constFloat(1.0f)});
    return b.op("Mul", {b.op("Mul", {x, onePlus}), b.constFloat(0.5f)});
}

Val unsqueeze(OnnxBuilder& b, const Val& x, const Ints& axes)
{
    return b.op("Unsqueeze", {x, b.constInts(axes)});
}

Val dimSize(OnnxBuilder& b, const Val& x, int64_t axis)
{
    const Val shape = b.op("Shape", {x});
    const Val g = b.op("Gather", {shape, b.constScalarInt(axis)}, {Attr::of("axis", 0)});
    return unsqueeze(b, g, {0});
}

Val reshapeLead(OnnxBuilder& b, const Val& x, const std::vector<Dim>& lead, const Ints& tail)
{
    bool dynamic = false;
    for (const Dim& d : lead) dynamic = dynamic || !d.isKnown();
    if (!dynamic) {
        // The lead dims are x's own leading dims: 0 copies them (ONNX Reshape), so a fixed-size
        // export still re-batches (the importer's batch probe doubles an input axis and needs
        // every output to follow; a baked 8 would stop it here, as in exports that bake the batch).
        Ints target(lead.size(), 0);
        target.insert(target.end(), tail.begin(), tail.end());
        return b.op("Reshape", {x, b.constInts(target)});
    }
    std::vector<Val> parts;
    for (size_t i = 0; i < lead.size(); ++i) parts.push_back(dimSize(b, x, int64_t(i)));
    for (int64_t t : tail) parts.push_back(b.constInts({t}));
    const Val target = b.op("Concat", parts, {Attr::of("axis", 0)});
    return b.op("Reshape", {x, target});
}

Val splitHeads(OnnxBuilder& b, const Val& x, const SeqDims& d, int64_t heads, int64_t headDim, bool keyLayout)
{
    const Val r = reshapeLead(b, x, {d.batch, d.seq}, {heads, headDim});
    return b.op("Transpose", {r}, {Attr::of("perm", keyLayout ? Ints{0, 2, 3, 1} : Ints{0, 2, 1, 3})});
}

Val mergeHeads(OnnxBuilder& b, const Val& x, const SeqDims& d, int64_t hidden)
{
    const Val t = b.op("Transpose", {x}, {Attr::of("perm", Ints{0, 2, 1, 3})});
    return reshapeLead(b, t, {d.batch, d.seq}, {hidden});
}

Val dropout(OnnxBuilder& b, const Val& x, double p)
{
    if (p <= 0) return x;
    return b.ops("Dropout", {x, b.constFloat(float(p)), b.constBool(true)}, {}, 2)[0];
}

Val attention(OnnxBuilder& b, const Val& q, const Val& k, const Val& v, const SeqDims& qd,
              const SeqDims& kd, const AttentionSpec& spec)
{
    const Val qh = splitHeads(b, q, qd, spec.heads, spec.headDim, false);
    const Val kh = splitHeads(b, k, kd, spec.heads, spec.headDim, true);
    const Val vh = splitHeads(b, v, kd, spec.heads, spec.headDim, false);
    Val scores = b.op("MatMul", {qh, kh});
    if (spec.scale) scores = b.op("Div", {scores, b.constFloat(float(std::sqrt(double(spec.headDim))))});
    if (spec.mask) scores = spec.mask(b, scores);
    const Val probs = dropout(b, b.op("Softmax", {scores}, {Attr::of("axis", -1)}), spec.dropout);
    const Val ctx = b.op("MatMul", {probs, vh});
    return mergeHeads(b, ctx, qd, spec.heads * spec.headDim);
}

Val extendedMask(OnnxBuilder& b, const Val& mask2d)
{
    const Val m = unsqueeze(b, unsqueeze(b, mask2d, {1}), {2});
    const Val f = b.op("Cast", {m}, {Attr::of("to", int64_t(onnx::TensorProto::FLOAT))});
    const Val inv = b.op("Sub", {b.constFloat(1.0f), f});
    return b.op("Mul", {inv, b.constFloat(kMaskMin)});
}

Val conv2d(OnnxBuilder& b, const Val& x, const std::string& name, int64_t in, int64_t out, int64_t k,
           int64_t stride, int64_t pad, bool bias)
{
    auto s = b.scope(name);
    const std::string p = b.paramPrefix();
    std::vector<Val> inputs = {x, b.weight(p + "weight", {out, in, k, k})};
    if (bias) inputs.push_back(b.weight(p + "bias", {out}));
    return b.op("Conv", inputs,
                {Attr::of("dilations", Ints{1, 1}), Attr::of("group", 1), Attr::of("kernel_shape", Ints{k, k}),
                 Attr::of("pads", Ints{pad, pad, pad, pad}), Attr::of("strides", Ints{stride, stride})});
}

Val batchNorm(OnnxBuilder& b, const Val& x, const std::string& name, int64_t c)
{
    auto s = b.scope(name);
    const std::string p = b.paramPrefix();
    return b.op("BatchNormalization",
                {x, b.weight(p + "weight", {c}), b.weight(p + "bias", {c}), b.weight(p + "running_mean", {c}),
                 b.weight(p + "running_var", {c})},
                {Attr::of("epsilon", 1e-5), Attr::of("momentum", 0.9)});
}

} // namespace tapas::zoo
