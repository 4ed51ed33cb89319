#pragma once
// The model zoo: ONNX graphs with the op structure PyTorch's exporter writes, at any size.
// Weights are initializers whose bytes are declared external and never written, so a
// GPT-3 175B configuration is a few hundred kilobytes.
#include "core/ir/graph.h"
#include "core/util/result.h"

#include <map>
#include <string>
#include <vector>

namespace tapas {

struct ZooOptions {
    // -1 = the architecture's default. batch/seq < 0 stay symbolic ("batch", "seq").
    int64_t layers = -1, hidden = -1, heads = -1, ffn = -1, vocab = -1;
    int64_t seq = -1, batch = -1;
    int64_t decoderLayers = -1;  // T5
    int64_t experts = -1, topK = -1, moeEvery = -1; // MoE
    int64_t imageSize = -1, patch = -1, classes = -1, channels = -1, width = -1; // vision / GAN
    int64_t latent = -1;         // GAN noise size
    int64_t depth = -1;          // ResNet depth: 18, 34, 50, 101, 152
    std::string part = "both";   // GANs: "generator", "discriminator" or "both"
    // Hidden and attention dropout probability (Megatron-LM's --hidden-dropout and
    // --attention-dropout, 0.1 by default there): the GPT is written with training-mode Dropout
    // nodes where Megatron-LM applies them (embeddings, attention probabilities, before each
    // residual add). 0 (the default) writes none, as an eval-mode export has none. gpt only.
    double dropout = 0;
    int opset = 14;              // 14 writes LayerNorm decomposed and Gelu as Erf, like torch 1.13
    bool scrubNames = false;     // write nodes without names (fold must not need them)
};

struct ZooModelInfo {
    std::string name;        // "gpt", "bert", ...
    std::string description;
    std::vector<std::string> options; // the ZooOptions fields it reads
};

const std::vector<ZooModelInfo>& zooModels();
// Serialized ONNX ModelProto.
Result<std::string> buildZooModel(const std::string& name, const ZooOptions& options);
Status writeZooModel(const std::string& name, const ZooOptions& options, const std::string& path);
// Builds and imports in one step (tests, benchmarks).
Result<Graph> zooGraph(const std::string& name, const ZooOptions& options = {});

} // namespace tapas
