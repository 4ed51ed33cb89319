// The zoo's registry: names, descriptions and the options each model reads, and the entry
// points that build, write and import a model.
#include "core/zoo/zoo.h"

#include "core/onnx/onnx_importer.h"
#include "core/zoo/zoo_models.h"

#include <fstream>

namespace tapas {

namespace zoo {

Status requirePositive(std::initializer_list<std::pair<const char*, int64_t>> sizes)
{
    for (const auto& [name, value] : sizes)
        if (value < 1)
            return Status::failure(std::string("--") + name + " must be at least 1 (got " + std::to_string(value) + ")");
    return Status::success();
}

Status checkTransformer(int64_t layers, int64_t hidden, int64_t heads, int64_t ffn, int64_t vocab)
{
    if (Status s = requirePositive({{"layers", layers}, {"hidden", hidden}, {"heads", heads}, {"ffn", ffn}, {"vocab", vocab}});
        !s)
        return s;
    if (hidden % heads != 0)
        return Status::failure("--hidden " + std::to_string(hidden) + " is not divisible by --heads " +
                               std::to_string(heads));
    return Status::success();
}

Status checkOpset(int opset)
{
    if (opset != 14 && opset != 17)
        return Status::failure("--opset must be 14 or 17 (got " + std::to_string(opset) + ")");
    return Status::success();
}

} // namespace zoo

namespace {

struct Entry {
    ZooModelInfo info;
    Result<std::string> (*build)(const ZooOptions&);
};

Result<std::string> resnet(const ZooOptions& o) { return zoo::buildResnet(o, false); }
Result<std::string> wideResnet(const ZooOptions& o) { return zoo::buildResnet(o, true); }

const std::vector<Entry>& entries()
{
    static const std::vector<std::string> kTransformer = {"layers", "hidden", "heads", "ffn", "vocab", "seq", "batch"};
    auto with = [](std::vector<std::string> base, std::initializer_list<std::string> more) {
        base.insert(base.end(), more);
        return base;
    };
    static const std::vector<Entry> kEntries = {
        {{"gpt", "GPT-2 style decoder-only LM (default GPT-2 small, 124M; GPT-3 175B: --layers 96 --hidden 12288 --heads 96 --seq 2048)",
          with(kTransformer, {"dropout"})}, zoo::buildGpt},
        {{"bert", "BERT encoder with pooler (default BERT-base, 110M)", kTransformer}, zoo::buildBert},
        {{"vit", "Vision Transformer classifier (default ViT-B/16, 86M)",
          {"layers", "hidden", "heads", "ffn", "batch", "image-size", "patch", "classes", "channels"}}, zoo::buildVit},
        {{"t5", "T5 encoder-decoder with cross attention and RMS norm (default T5-small, 60M)",
          with(kTransformer, {"decoder-layers"})}, zoo::buildT5},
        {{"moe", "GPT-style decoder whose MLP is a top-k routed mixture of experts every --moe-every layers",
          with(kTransformer, {"experts", "top-k", "moe-every"})}, zoo::buildMoe},
        {{"resnet50", "torchvision ResNet with BatchNorm kept (default ResNet-50, 25.6M; --depth 18|34|50|101|152)",
          {"depth", "width", "classes", "image-size", "channels", "batch"}}, resnet},
        {{"wide_resnet50", "Wide ResNet-50-2 (bottleneck width x2, 68.9M)",
          {"depth", "width", "classes", "image-size", "channels", "batch"}}, wideResnet},
        {{"dcgan", "DCGAN generator and/or discriminator (--part generator|discriminator|both, 64x64 or 32x32)",
          {"part", "image-size", "latent", "width", "channels", "batch"}}, zoo::buildDcgan},
        {{"biggan", "BigGAN-style conditional generator/discriminator (class-conditional BN, self-attention; 32 or 64)",
          {"part", "image-size", "latent", "width", "classes", "batch"}}, zoo::buildBiggan},
    };
    return kEntries;
}

} // namespace

const std::vector<ZooModelInfo>& zooModels()
{
    static const std::vector<ZooModelInfo> kInfos = [] {
        std::vector<ZooModelInfo> v;
        for (const Entry& e : entries()) v.push_back(e.info);
        return v;
    }();
    return kInfos;
}

Result<std::string> buildZooModel(const std::string& name, const ZooOptions& options)
{
    if (Status s = zoo::checkOpset(options.opset); !s) return Result<std::string>::failure(s.error);
    if (options.batch == 0 || options.batch < -1 || options.seq == 0 || options.seq < -1)
        return Result<std::string>::failure("--batch and --seq must be at least 1 when given");
    for (const Entry& e : entries()) {
        if (e.info.name != name) continue;
        auto r = e.build(options);
        if (!r.ok()) return Result<std::string>::failure("zoo model '" + name + "': " + r.error());
        return r;
    }
    std::string known;
    for (const Entry& e : entries()) known += (known.empty() ? "" : ", ") + e.info.name;
    return Result<std::string>::failure("unknown zoo model '" + name + "' (known: " + known + ")");
}

Status writeZooModel(const std::string& name, const ZooOptions& options, const std::string& path)
{
    auto bytes = buildZooModel(name, options);
    if (!bytes.ok()) return Status::failure(bytes.error());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) return Status::failure("cannot open '" + path + "' for writing");
    out.write(bytes->data(), std::streamsize(bytes->size()));
    out.close();
    if (!out) return Status::failure("could not write all of '" + path + "'");
    return Status::success();
}

Result<Graph> zooGraph(const std::string& name, const ZooOptions& options)
{
    auto bytes = buildZooModel(name, options);
    if (!bytes.ok()) return Result<Graph>::failure(bytes.error());
    // The weights file is never written: the importer reports it absent, shapes are enough.
    Result<Graph> g = importOnnxBytes(*bytes, "zoo:" + name, ".");
    if (!g || options.batch <= 0) return g;
    // A zoo model bakes its batch into its reshapes, as a fixed-batch export does, so the
    // importer's probe cannot double it through the inputs; the zoo itself can. It builds the
    // model again with twice the batch: the dims that doubled are the batch axes of the inputs and
    // the dims of every tensor that scale with the batch.
    ZooOptions twice = options;
    twice.batch = options.batch * 2;
    auto doubledBytes = buildZooModel(name, twice);
    if (!doubledBytes.ok()) return Result<Graph>::failure(doubledBytes.error());
    Result<Graph> doubled = importOnnxBytes(*doubledBytes, "zoo:" + name, ".");
    if (!doubled) return Result<Graph>::failure(doubled.error());
    g->batch = {};
    g->batch.probed = true;
    g->batch.size = options.batch;
    for (Tensor& t : g->tensors) {
        const TensorId d = doubled->findTensor(t.name);
        if (d == kNoTensor || !t.shape.rankKnown || doubled->tensor(d).shape.rank() != t.shape.rank()) continue;
        for (int i = 0; i < t.shape.rank() && i < 32; ++i) {
            const Dim& a = t.shape.dims[size_t(i)];
            const Dim& b = doubled->tensor(d).shape.dims[size_t(i)];
            if (a.isKnown() && b.isKnown() && a.value > 0 && b.value == 2 * a.value) t.batchScaledDims |= 1u << i;
        }
    }
    for (TensorId t : g->inputs)
        for (int i = 0; i < g->tensor(t).shape.rank(); ++i)
            if (g->tensor(t).batchScaledDims >> i & 1u) {
                g->batch.inputs.emplace_back(t, i);
                break;
            }
    if (g->batch.inputs.empty()) g->batch.why = "no input of the zoo model grows with its batch";
    return g;
}

} // namespace tapas
