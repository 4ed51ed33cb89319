// GPT-2 (decoder-only), BERT (encoder) and ViT as HF transformers' modules export with torch
// 1.13: same scopes, parameter names and node patterns, any size.
#include "core/zoo/zoo_models.h"

namespace tapas::zoo {

namespace {

constexpr int32_t kF32 = onnx::TensorProto::FLOAT;
constexpr int32_t kI64 = onnx::TensorProto::INT64;

Ints iota(int64_t n)
{
    Ints v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) v[size_t(i)] = i;
    return v;
}

// GPT-2's causal mask: the layer's bool buffer `bias` [1,1,P,P] sliced to
// [key_len - query_len : key_len, :key_len], then Where(mask, scores, finfo.min).
Val causalMask(OnnxBuilder& b, const Val& scores, const SeqDims& d, int64_t positions)
{
    const Val bias = b.weight(b.paramPrefix() + "bias", {1, 1, positions, positions}, onnx::TensorProto::BOOL);
    Val start, end;
    if (d.seq.isKnown()) {
        start = b.constInts({0});
        end = b.constInts({d.seq.value});
    } else {
        const Val ql = dimSize(b, scores, 2);
        end = dimSize(b, scores, 3);
        start = b.op("Sub", {end, ql});
    }
    const Val rows = b.op("Slice", {bias, start, end, b.constInts({2}), b.constInts({1})});
    const Val mask = b.op("Slice", {rows, b.constInts({0}), end, b.constInts({3}), b.constInts({1})});
    return b.op("Where", {mask, scores, b.constFloat(kMaskMin)});
}

Val gptBlock(OnnxBuilder& b, const Val& x, const DecoderLmConfig& c, int64_t layer, const MlpBuilder& mlp)
{
    const int64_t h = c.hidden;
    Val normed;
    {
        auto s = b.scope("ln_1");
        normed = layerNorm(b, x, h, 1e-5);
    }
    Val attn;
    {
        auto s = b.scope("attn");
        Val qkv;
        {
            auto s2 = b.scope("c_attn");
            qkv = linear(b, normed, h, 3 * h);
        }
        // The packed projection split three ways: ONNX shape inference cannot size the parts.
        const auto parts = b.ops("Split", {qkv, b.constInts({h, h, h})}, {Attr::of("axis", 2)}, 3);
        AttentionSpec spec{c.heads, h / c.heads, true, [&](OnnxBuilder& bb, const Val& scores) {
                               return causalMask(bb, scores, c.dims, c.positions);
                           }, c.dropout};
        attn = attention(b, parts[0], parts[1], parts[2], c.dims, c.dims, spec);
        auto s3 = b.scope("c_proj");
        attn = linear(b, attn, h, h);
    }
    // Megatron-LM's bias-dropout-add: dropout on the projection's output, then the residual.
    const Val mid = b.op("Add", {dropout(b, attn, c.dropout), x});
    Val normed2;
    {
        auto s = b.scope("ln_2");
        normed2 = layerNorm(b, mid, h, 1e-5);
    }
    Val ff;
    {
        auto s = b.scope("mlp");
        ff = mlp(b, normed2, layer);
    }
    return b.op("Add", {mid, dropout(b, ff, c.dropout)});
}

} // namespace

Val denseMlp(OnnxBuilder& b, const Val& x, int64_t hidden, int64_t ffn, const char* upName, const char* downName)
{
    Val up;
    {
        auto s = b.scope(upName);
        up = linear(b, x, hidden, ffn);
    }
    {
        auto s = b.scope("act");
        up = gelu(b, up);
    }
    auto s = b.scope(downName);
    return linear(b, up, ffn, hidden);
}

void buildDecoderLm(OnnxBuilder& b, const DecoderLmConfig& c, const MlpBuilder& mlp)
{
    const SeqDims& d = c.dims;
    const Val ids = b.input("input_ids", kI64, {d.batch, d.seq});
    Val x, wte;
    {
        auto t = b.scope("transformer");
        wte = b.weight("transformer.wte.weight", {c.vocab, c.hidden});
        const Val wpe = b.weight("transformer.wpe.weight", {c.positions, c.hidden});
        Val pos;
        if (d.seq.isKnown()) {
            pos = b.constInts(iota(d.seq.value), {1, d.seq.value});
        } else {
            const Val len = b.op("Gather", {b.op("Shape", {ids}), b.constScalarInt(-1)}, {Attr::of("axis", 0)});
            const Val range = b.op("Range", {b.constScalarInt(0), len, b.constScalarInt(1)});
            pos = unsqueeze(b, range, {0});
        }
        Val tok, pe;
        {
            auto s = b.scope("wte");
            tok = b.op("Gather", {wte, ids});
        }
        {
            auto s = b.scope("wpe");
            pe = b.op("Gather", {wpe, pos});
        }
        x = dropout(b, b.op("Add", {tok, pe}), c.dropout); // Megatron-LM's embedding dropout
        for (int64_t i = 0; i < c.layers; ++i) {
            auto s = b.scope("h." + std::to_string(i));
            x = gptBlock(b, x, c, i, mlp);
        }
        auto s = b.scope("ln_f");
        x = layerNorm(b, x, c.hidden, 1e-5);
    }
    Val logits;
    {
        // Tied head: the token embedding is read a second time, through a Transpose.
        auto s = b.scope("lm_head");
        const Val wT = b.op("Transpose", {wte}, {Attr::of("perm", Ints{1, 0})});
        logits = b.op("MatMul", {x, wT});
    }
    b.output(logits, "logits", kF32, {d.batch, d.seq, Dim::known(c.vocab)});
}

Result<DecoderLmConfig> decoderLmConfig(const ZooOptions& o)
{
    DecoderLmConfig c;
    c.layers = pick(o.layers, 12);
    c.hidden = pick(o.hidden, 768);
    c.heads = pick(o.heads, 12);
    c.ffn = pick(o.ffn, 4 * c.hidden);
    c.vocab = pick(o.vocab, 50257);
    c.positions = o.seq > 1024 ? o.seq : 1024;
    c.dims = {dimOf(o.batch, "batch"), dimOf(o.seq, "seq")};
    c.dropout = o.dropout;
    if (o.dropout < 0 || o.dropout >= 1)
        return Result<DecoderLmConfig>::failure("zoo: --dropout must be in [0, 1), got " + std::to_string(o.dropout));
    if (Status s = checkTransformer(c.layers, c.hidden, c.heads, c.ffn, c.vocab); !s)
        return Result<DecoderLmConfig>::failure(s.error);
    return c;
}

Result<std::string> buildGpt(const ZooOptions& o)
{
    const Result<DecoderLmConfig> config = decoderLmConfig(o);
    if (!config.ok()) return Result<std::string>::failure(config.error());
    const DecoderLmConfig& c = *config;
    OnnxBuilder b("gpt", o.opset, o.scrubNames, "gpt.weights");
    buildDecoderLm(b, c, [&](OnnxBuilder& bb, const Val& x, int64_t) { return denseMlp(bb, x, c.hidden, c.ffn); });
    return b.serialize();
}

namespace {

// One BERT/ViT encoder layer's self-attention (query/key/value/output.dense).
Val selfAttention(OnnxBuilder& b, const Val& x, const SeqDims& d, int64_t h, int64_t heads,
                  const std::function<Val(OnnxBuilder&, const Val&)>& mask, const char* inner)
{
    auto s = b.scope(inner);
    Val q, k, v;
    {
        auto s2 = b.scope("query");
        q = linear(b, x, h, h);
    }
    {
        auto s2 = b.scope("key");
        k = linear(b, x, h, h);
    }
    {
        auto s2 = b.scope("value");
        v = linear(b, x, h, h);
    }
    return attention(b, q, k, v, d, d, AttentionSpec{heads, h / heads, true, mask});
}

Val dense(OnnxBuilder& b, const Val& x, int64_t in, int64_t out)
{
    auto s = b.scope("dense");
    return linear(b, x, in, out);
}

Val bertLayer(OnnxBuilder& b, Val x, const SeqDims& d, int64_t h, int64_t heads, int64_t ffn, const Val& ext)
{
    {
        auto s = b.scope("attention");
        const Val ctx = selfAttention(b, x, d, h, heads, [&](OnnxBuilder& bb, const Val& sc) {
            return bb.op("Add", {sc, ext});
        }, "self");
        auto s2 = b.scope("output");
        const Val sum = b.op("Add", {dense(b, ctx, h, h), x});
        auto s3 = b.scope("LayerNorm");
        x = layerNorm(b, sum, h, 1e-12);
    }
    Val up;
    {
        auto s = b.scope("intermediate");
        up = dense(b, x, h, ffn);
        auto s2 = b.scope("intermediate_act_fn");
        up = gelu(b, up);
    }
    auto s = b.scope("output");
    const Val sum = b.op("Add", {dense(b, up, ffn, h), x});
    auto s2 = b.scope("LayerNorm");
    return layerNorm(b, sum, h, 1e-12);
}

} // namespace

Result<std::string> buildBert(const ZooOptions& o)
{
    const int64_t layers = pick(o.layers, 12), h = pick(o.hidden, 768), heads = pick(o.heads, 12);
    const int64_t ffn = pick(o.ffn, 4 * h), vocab = pick(o.vocab, 30522);
    const int64_t positions = o.seq > 512 ? o.seq : 512;
    if (Status s = checkTransformer(layers, h, heads, ffn, vocab); !s) return Result<std::string>::failure(s.error);
    const SeqDims d{dimOf(o.batch, "batch"), dimOf(o.seq, "seq")};
    OnnxBuilder b("bert", o.opset, o.scrubNames, "bert.weights");
    const Val ids = b.input("input_ids", kI64, {d.batch, d.seq});
    const Val mask = b.input("attention_mask", kI64, {d.batch, d.seq});
    const Val types = b.input("token_type_ids", kI64, {d.batch, d.seq});
    Val x;
    {
        auto s = b.scope("embeddings");
        const Val posIds = b.intInitializer("embeddings.position_ids", {1, positions}, iota(positions));
        const Val len = d.seq.isKnown() ? b.constInts({d.seq.value}) : dimSize(b, ids, 1);
        const Val pos = b.op("Slice", {posIds, b.constInts({0}), len, b.constInts({1}), b.constInts({1})});
        auto embed = [&](const char* scope, int64_t rows, const Val& index) {
            auto s2 = b.scope(scope);
            return b.op("Gather", {b.weight(b.paramPrefix() + "weight", {rows, h}), index});
        };
        const Val words = embed("word_embeddings", vocab, ids);
        const Val tt = embed("token_type_embeddings", 2, types);
        const Val sum = b.op("Add", {words, tt});
        const Val pe = embed("position_embeddings", positions, pos);
        const Val all = b.op("Add", {sum, pe});
        auto s3 = b.scope("LayerNorm");
        x = layerNorm(b, all, h, 1e-12);
    }
    const Val ext = extendedMask(b, mask);
    {
        auto s = b.scope("encoder");
        for (int64_t i = 0; i < layers; ++i) {
            auto s2 = b.scope("layer." + std::to_string(i));
            x = bertLayer(b, x, d, h, heads, ffn, ext);
        }
    }
    Val pooled;
    {
        auto s = b.scope("pooler");
        const Val first = b.op("Gather", {x, b.constScalarInt(0)}, {Attr::of("axis", 1)});
        {
            auto s2 = b.scope("dense");
            pooled = gemm(b, first, h, h);
        }
        auto s3 = b.scope("activation");
        pooled = b.op("Tanh", {pooled});
    }
    b.output(x, "last_hidden_state", kF32, {d.batch, d.seq, Dim::known(h)});
    b.output(pooled, "pooler_output", kF32, {d.batch, Dim::known(h)});
    return b.serialize();
}

Result<std::string> buildVit(const ZooOptions& o)
{
    const int64_t layers = pick(o.layers, 12), h = pick(o.hidden, 768), heads = pick(o.heads, 12);
    const int64_t ffn = pick(o.ffn, 4 * h), image = pick(o.imageSize, 224), patch = pick(o.patch, 16);
    const int64_t classes = pick(o.classes, 1000), channels = pick(o.channels, 3);
    if (Status s = checkTransformer(layers, h, heads, ffn, 1); !s) return Result<std::string>::failure(s.error);
    if (Status s = requirePositive({{"image-size", image}, {"patch", patch}, {"classes", classes}, {"channels", channels}}); !s)
        return Result<std::string>::failure(s.error);
    if (image % patch != 0)
        return Result<std::string>::failure("image size " + std::to_string(image) +
                                            " is not divisible by the patch size " + std::to_string(patch));
    const int64_t grid = image / patch, tokens = grid * grid + 1;
    const SeqDims d{dimOf(o.batch, "batch"), Dim::known(tokens)};
    OnnxBuilder b("vit", o.opset, o.scrubNames, "vit.weights");
    const Val pixels = b.input("pixel_values", kF32, {d.batch, Dim::known(channels), Dim::known(image), Dim::known(image)});
    Val x;
    {
        auto s = b.scope("vit");
        {
            auto s2 = b.scope("embeddings");
            Val patches;
            {
                auto s3 = b.scope("patch_embeddings");
                auto s4 = b.scope("projection");
                const std::string p = b.paramPrefix();
                patches = b.op("Conv", {pixels, b.weight(p + "weight", {h, channels, patch, patch}), b.weight(p + "bias", {h})},
                               {Attr::of("dilations", Ints{1, 1}), Attr::of("group", 1),
                                Attr::of("kernel_shape", Ints{patch, patch}), Attr::of("pads", Ints{0, 0, 0, 0}),
                                Attr::of("strides", Ints{patch, patch})});
            }
            const Val flat = reshapeLead(b, patches, {d.batch, Dim::known(h)}, {grid * grid});
            const Val seqFirst = b.op("Transpose", {flat}, {Attr::of("perm", Ints{0, 2, 1})});
            const Val cls = b.weight("vit.embeddings.cls_token", {1, 1, h});
            const Val expandTo = d.batch.isKnown()
                ? b.constInts({d.batch.value, 1, 1})
                : b.op("Concat", {dimSize(b, pixels, 0), b.constInts({1}), b.constInts({1})}, {Attr::of("axis", 0)});
            const Val clsAll = b.op("Expand", {cls, expandTo});
            const Val joined = b.op("Concat", {clsAll, seqFirst}, {Attr::of("axis", 1)});
            x = b.op("Add", {joined, b.weight("vit.embeddings.position_embeddings", {1, tokens, h})});
        }
        {
            auto s2 = b.scope("encoder");
            for (int64_t i = 0; i < layers; ++i) {
                auto s3 = b.scope("layer." + std::to_string(i));
                Val n;
                {
                    auto s4 = b.scope("layernorm_before");
                    n = layerNorm(b, x, h, 1e-12);
                }
                Val a;
                {
                    auto s4 = b.scope("attention");
                    a = selfAttention(b, n, d, h, heads, nullptr, "attention");
                    auto s5 = b.scope("output");
                    a = dense(b, a, h, h);
                }
                x = b.op("Add", {a, x});
                {
                    auto s4 = b.scope("layernorm_after");
                    n = layerNorm(b, x, h, 1e-12);
                }
                {
                    auto s4 = b.scope("intermediate");
                    n = dense(b, n, h, ffn);
                    auto s5 = b.scope("intermediate_act_fn");
                    n = gelu(b, n);
                }
                auto s4 = b.scope("output");
                x = b.op("Add", {dense(b, n, ffn, h), x});
            }
        }
        auto s2 = b.scope("layernorm");
        x = layerNorm(b, x, h, 1e-12);
    }
    const Val cls = b.op("Gather", {x, b.constScalarInt(0)}, {Attr::of("axis", 1)});
    Val logits;
    {
        auto s = b.scope("classifier");
        logits = gemm(b, cls, h, classes);
    }
    b.output(logits, "logits", kF32, {d.batch, Dim::known(classes)});
    return b.serialize();
}

} // namespace tapas::zoo
