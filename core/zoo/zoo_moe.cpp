// A GPT-style decoder whose feed-forward part is a routed mixture of experts every
// --moe-every layers (GShard/Switch pattern), written the way torch exports a dense
// (all-experts-computed) MoE: router Softmax -> TopK -> gates scattered into zeros, each
// expert's MLP weighted by its gate column and summed.
#include "core/zoo/zoo_models.h"

namespace tapas::zoo {

namespace {

Val moeMlp(OnnxBuilder& b, const Val& x, int64_t hidden, int64_t ffn, int64_t experts, int64_t topK)
{
    Val logits;
    {
        auto s = b.scope("router");
        logits = linear(b, x, hidden, experts, false);
    }
    const Val probs = b.op("Softmax", {logits}, {Attr::of("axis", -1)});
    const auto top = b.ops("TopK", {probs, b.constInts({topK})},
                           {Attr::of("axis", -1), Attr::of("largest", 1), Attr::of("sorted", 1)}, 2);
    const Val zeros = b.op("ConstantOfShape", {b.op("Shape", {probs})});
    const Val gates = b.op("ScatterElements", {zeros, top[1], top[0]}, {Attr::of("axis", -1)});
    Val sum;
    for (int64_t e = 0; e < experts; ++e) {
        auto s = b.scope("experts." + std::to_string(e));
        const Val y = denseMlp(b, x, hidden, ffn, "fc1", "fc2");
        const Val gate = b.op("Gather", {gates, b.constScalarInt(e)}, {Attr::of("axis", 2)});
        const Val weighted = b.op("Mul", {y, unsqueeze(b, gate, {-1})});
        sum = sum.empty() ? weighted : b.op("Add", {sum, weighted});
    }
    return sum;
}

} // namespace

Result<std::string> buildMoe(const ZooOptions& o)
{
    const Result<DecoderLmConfig> config = decoderLmConfig(o);
    if (!config.ok()) return Result<std::string>::failure(config.error());
    const DecoderLmConfig& c = *config;
    const int64_t experts = pick(o.experts, 8), topK = pick(o.topK, 2), every = pick(o.moeEvery, 2);
    if (Status s = requirePositive({{"experts", experts}, {"top-k", topK}, {"moe-every", every}}); !s)
        return Result<std::string>::failure(s.error);
    if (topK > experts)
        return Result<std::string>::failure("--top-k " + std::to_string(topK) + " exceeds --experts " +
                                            std::to_string(experts));
    OnnxBuilder b("moe", o.opset, o.scrubNames, "moe.weights");
    buildDecoderLm(b, c, [&](OnnxBuilder& bb, const Val& x, int64_t layer) {
        if ((layer + 1) % every == 0) return moeMlp(bb, x, c.hidden, c.ffn, experts, topK);
        return denseMlp(bb, x, c.hidden, c.ffn);
    });
    return b.serialize();
}

} // namespace tapas::zoo
