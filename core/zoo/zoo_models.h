#pragma once
// The zoo's model builders, one per architecture family, behind the registry in zoo.cpp.
// Each returns the serialized ModelProto or an error naming the option at fault.
#include "core/zoo/zoo.h"
#include "core/zoo/zoo_layers.h"

#include <functional>
#include <initializer_list>
#include <utility>

namespace tapas::zoo {

Result<std::string> buildGpt(const ZooOptions& o);
Result<std::string> buildBert(const ZooOptions& o);
Result<std::string> buildVit(const ZooOptions& o);
Result<std::string> buildT5(const ZooOptions& o);
Result<std::string> buildMoe(const ZooOptions& o);
Result<std::string> buildResnet(const ZooOptions& o, bool wide);
Result<std::string> buildDcgan(const ZooOptions& o);
Result<std::string> buildBiggan(const ZooOptions& o);

// A GPT-2-shaped decoder-only LM; `mlp` builds each layer's feed-forward part (inside the
// layer's "mlp" scope) so the MoE model can swap in experts on some layers.
struct DecoderLmConfig {
    int64_t layers, hidden, heads, ffn, vocab, positions;
    SeqDims dims;
    double dropout = 0; // hidden and attention dropout (ZooOptions::dropout)
};
// GPT-2 small defaults overridden by the options; positions = max(1024, --seq).
Result<DecoderLmConfig> decoderLmConfig(const ZooOptions& o);
using MlpBuilder = std::function<Val(OnnxBuilder&, const Val& x, int64_t layer)>;
void buildDecoderLm(OnnxBuilder& b, const DecoderLmConfig& c, const MlpBuilder& mlp);
// The dense GPT-2 MLP: c_fc, Erf GELU ("act"), c_proj; MoE experts name them fc1/fc2.
Val denseMlp(OnnxBuilder& b, const Val& x, int64_t hidden, int64_t ffn, const char* up = "c_fc",
             const char* down = "c_proj");

inline int64_t pick(int64_t value, int64_t fallback) { return value < 0 ? fallback : value; }
// Fails naming the first size below 1.
Status requirePositive(std::initializer_list<std::pair<const char*, int64_t>> sizes);
// Checks the shared transformer sizes (hidden divisible by heads, ...).
Status checkTransformer(int64_t layers, int64_t hidden, int64_t heads, int64_t ffn, int64_t vocab);
Status checkOpset(int opset);
// GANs' --part: which halves to build; "" or "both" -> both.
struct GanParts {
    bool generator = true;
    bool discriminator = true;
};
Result<GanParts> parseGanPart(const std::string& part);

} // namespace tapas::zoo
