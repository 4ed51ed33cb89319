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
};
// GPT-2 small defaults overridden by the options; positions = max(1024, --seq).
Result<DecoderLmConfig> decoderLmConfig(const ZooOptions& o);
using MlpBuilder = std::function<Val(OnnxBuilder&, const Val& x, int64_t layer)>;
void buildDecoderLm(OnnxBuilder& b, const DecoderLmConfig& c, const MlpBuilder& mlp);
// The dense GPT-2 MLP: c_fc, Erf GELU ("act"), c_proj; MoE experts name them fc1/fc2.
Val denseMlp(OnnxBuilder& b, const Val& x, int64_t hidden, int64_t ffn, const char* up = "c_fc",
             const char* down = "c_proj");

inline int64_t pick(int64_t value, int64_t fallback) { return value < 0 ? fallback : value; }
// "" when every named size is >= 1, else a sentence naming the first bad one.
std::string requirePositive(std::initializer_list<std::pair<const char*, int64_t>> sizes);
// Checks the shared transformer sizes (hidden divisible by heads, ...).
std::string checkTransformer(int64_t layers, int64_t hidden, int64_t heads, int64_t ffn, int64_t vocab);
std::string checkOpset(int opset);
// GANs' --part: "" or "both" -> both; returns "" on success, else the error.
std::string parseGanPart(const std::string& part, bool& generator, bool& discriminator);

} // namespace tapas::zoo
