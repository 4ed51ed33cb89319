// T5 encoder-decoder (T5ForConditionalGeneration as torch 1.13 exports it): RMS norm, relative
// position buckets computed in the first block and reused, ReLU feed-forward, a shared tied
// embedding, and cross attention reading the encoder output in every decoder block.
#include "core/zoo/zoo_models.h"

#include <cmath>

namespace tapas::zoo {

namespace {

constexpr int32_t kF32 = onnx::TensorProto::FLOAT;
constexpr int32_t kI64 = onnx::TensorProto::INT64;
constexpr int64_t kBuckets = 32, kMaxDistance = 128;

struct T5Config {
    int64_t layers, decoderLayers, hidden, heads, ffn, vocab;
    SeqDims enc, dec;
};

Val lengthOf(OnnxBuilder& b, const Val& x, int64_t axis)
{
    return b.op("Gather", {b.op("Shape", {x}), b.constScalarInt(axis)}, {Attr::of("axis", 0)});
}

Val rangeTo(OnnxBuilder& b, const Val& len)
{
    return b.op("Range", {b.constScalarInt(0), len, b.constScalarInt(1)});
}

Val toType(OnnxBuilder& b, const Val& x, int32_t type)
{
    return b.op("Cast", {x}, {Attr::of("to", int64_t(type))});
}

// T5Attention.compute_bias: relative positions -> log-spaced buckets -> embedding [1,H,q,k].
Val positionBias(OnnxBuilder& b, const Val& queries, const Val& keys, bool bidirectional, int64_t heads)
{
    const Val ctx = unsqueeze(b, rangeTo(b, lengthOf(b, queries, 1)), {1});
    const Val mem = unsqueeze(b, rangeTo(b, lengthOf(b, keys, 1)), {0});
    Val rel = b.op("Sub", {mem, ctx});
    int64_t buckets = kBuckets;
    Val offset;
    if (bidirectional) {
        buckets /= 2;
        const Val positive = toType(b, b.op("Greater", {rel, b.constScalarInt(0)}), kI64);
        offset = b.op("Mul", {positive, b.constScalarInt(buckets)});
        rel = b.op("Abs", {rel});
    } else {
        rel = b.op("Neg", {b.op("Min", {rel, b.constScalarInt(0)})});
    }
    const int64_t exact = buckets / 2;
    const Val small = b.op("Less", {rel, b.constScalarInt(exact)});
    const Val ratio = b.op("Div", {toType(b, rel, kF32), b.constFloat(float(exact))});
    const Val logRatio = b.op("Div", {b.op("Log", {ratio}), b.constFloat(float(std::log(double(kMaxDistance) / double(exact))))});
    const Val scaled = toType(b, b.op("Mul", {logRatio, b.constFloat(float(buckets - exact))}), kI64);
    Val large = b.op("Add", {b.constScalarInt(exact), scaled});
    large = b.op("Min", {large, b.constScalarInt(buckets - 1)});
    Val bucket = b.op("Where", {small, rel, large});
    if (bidirectional) bucket = b.op("Add", {offset, bucket});
    Val values;
    {
        auto s = b.scope("relative_attention_bias");
        values = b.op("Gather", {b.weight(b.paramPrefix() + "weight", {kBuckets, heads}), bucket});
    }
    const Val perm = b.op("Transpose", {values}, {Attr::of("perm", Ints{2, 0, 1})});
    return unsqueeze(b, perm, {0});
}

Val projection(OnnxBuilder& b, const char* name, const Val& x, int64_t in, int64_t out)
{
    auto s = b.scope(name);
    return linear(b, x, in, out, false);
}

// T5Attention without scaling; `bias` ([1,H,q,k] or [B,1,1,k]) is added to the scores.
Val t5Attention(OnnxBuilder& b, const char* name, const Val& x, const Val& kv, const SeqDims& qd,
                const SeqDims& kd, const T5Config& c, const Val& bias)
{
    auto s = b.scope(name);
    const int64_t h = c.hidden;
    const Val q = projection(b, "q", x, h, h);
    const Val k = projection(b, "k", kv, h, h);
    const Val v = projection(b, "v", kv, h, h);
    const Val ctx = attention(b, q, k, v, qd, kd, AttentionSpec{c.heads, h / c.heads, false,
                                  [&](OnnxBuilder& bb, const Val& sc) { return bb.op("Add", {sc, bias}); }});
    return projection(b, "o", ctx, h, h);
}

Val normed(OnnxBuilder& b, const Val& x, int64_t h)
{
    auto s = b.scope("layer_norm");
    return rmsNorm(b, x, h, 1e-6);
}

Val feedForward(OnnxBuilder& b, const Val& x, const T5Config& c)
{
    const Val n = normed(b, x, c.hidden);
    Val y;
    {
        auto s = b.scope("DenseReluDense");
        y = b.op("Relu", {projection(b, "wi", n, c.hidden, c.ffn)});
        y = projection(b, "wo", y, c.ffn, c.hidden);
    }
    return b.op("Add", {x, y});
}

// layer.0 of a block: the first block computes the position bias (plus `mask`) that every
// later block of the stack reuses, as HF's T5Stack passes position_bias along.
Val selfAttentionLayer(OnnxBuilder& b, const Val& x, int64_t block, bool bidirectional, const Val& mask,
                       const SeqDims& d, const T5Config& c, Val& bias)
{
    auto s = b.scope("layer.0");
    const Val n = normed(b, x, c.hidden);
    if (block == 0) {
        auto s2 = b.scope("SelfAttention");
        bias = b.op("Add", {positionBias(b, n, n, bidirectional, c.heads), mask});
    }
    return b.op("Add", {x, t5Attention(b, "SelfAttention", n, n, d, d, c, bias)});
}

Val encoder(OnnxBuilder& b, const Val& shared, const Val& ids, const Val& mask, const T5Config& c)
{
    auto s = b.scope("encoder");
    Val x;
    {
        auto s2 = b.scope("embed_tokens");
        x = b.op("Gather", {shared, ids});
    }
    const Val ext = extendedMask(b, mask);
    Val bias;
    for (int64_t i = 0; i < c.layers; ++i) {
        auto s2 = b.scope("block." + std::to_string(i));
        x = selfAttentionLayer(b, x, i, true, ext, c.enc, c, bias);
        auto s3 = b.scope("layer.1");
        x = feedForward(b, x, c);
    }
    auto s2 = b.scope("final_layer_norm");
    return rmsNorm(b, x, c.hidden, 1e-6);
}

Val decoder(OnnxBuilder& b, const Val& shared, const Val& ids, const Val& mask, const Val& memory,
            const T5Config& c)
{
    auto s = b.scope("decoder");
    Val x;
    {
        auto s2 = b.scope("embed_tokens");
        x = b.op("Gather", {shared, ids});
    }
    // Causal mask: key position <= query position, as get_extended_attention_mask builds it.
    const Val seqIds = rangeTo(b, lengthOf(b, ids, 1));
    const Val allowed = b.op("LessOrEqual", {unsqueeze(b, seqIds, {0}), unsqueeze(b, seqIds, {1})});
    const Val blocked = b.op("Sub", {b.constFloat(1.0f), toType(b, allowed, kF32)});
    const Val causal = unsqueeze(b, b.op("Mul", {blocked, b.constFloat(kMaskMin)}), {0, 1});
    const Val crossMask = extendedMask(b, mask);
    Val bias;
    for (int64_t i = 0; i < c.decoderLayers; ++i) {
        auto s2 = b.scope("block." + std::to_string(i));
        x = selfAttentionLayer(b, x, i, false, causal, c.dec, c, bias);
        {
            auto s3 = b.scope("layer.1");
            const Val n = normed(b, x, c.hidden);
            x = b.op("Add", {x, t5Attention(b, "EncDecAttention", n, memory, c.dec, c.enc, c, crossMask)});
        }
        auto s3 = b.scope("layer.2");
        x = feedForward(b, x, c);
    }
    auto s2 = b.scope("final_layer_norm");
    return rmsNorm(b, x, c.hidden, 1e-6);
}

} // namespace

Result<std::string> buildT5(const ZooOptions& o)
{
    T5Config c;
    c.layers = pick(o.layers, 6);
    c.decoderLayers = pick(o.decoderLayers, c.layers);
    c.hidden = pick(o.hidden, 512);
    c.heads = pick(o.heads, 8);
    c.ffn = pick(o.ffn, 4 * c.hidden);
    c.vocab = pick(o.vocab, 32128);
    if (Status s = checkTransformer(c.layers, c.hidden, c.heads, c.ffn, c.vocab); !s)
        return Result<std::string>::failure(s.error);
    if (Status s = requirePositive({{"decoder-layers", c.decoderLayers}}); !s) return Result<std::string>::failure(s.error);
    c.enc = {dimOf(o.batch, "batch"), dimOf(o.seq, "seq")};
    c.dec = {dimOf(o.batch, "batch"), dimOf(o.seq, "dec_seq")};
    OnnxBuilder b("t5", o.opset, o.scrubNames, "t5.weights");
    const Val ids = b.input("input_ids", kI64, {c.enc.batch, c.enc.seq});
    const Val mask = b.input("attention_mask", kI64, {c.enc.batch, c.enc.seq});
    const Val decIds = b.input("decoder_input_ids", kI64, {c.dec.batch, c.dec.seq});
    const Val shared = b.weight("shared.weight", {c.vocab, c.hidden});
    const Val memory = encoder(b, shared, ids, mask, c);
    Val x = decoder(b, shared, decIds, mask, memory, c);
    // Tied head: T5 rescales by d_model^-0.5 before reusing the shared embedding.
    x = b.op("Mul", {x, b.constFloat(float(1.0 / std::sqrt(double(c.hidden))))});
    Val logits;
    {
        auto s = b.scope("lm_head");
        logits = b.op("MatMul", {x, b.op("Transpose", {shared}, {Attr::of("perm", Ints{1, 0})})});
    }
    b.output(logits, "logits", kF32, {c.dec.batch, c.dec.seq, Dim::known(c.vocab)});
    return b.serialize();
}

} // namespace tapas::zoo
