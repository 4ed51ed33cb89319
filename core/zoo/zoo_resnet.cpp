// torchvision ResNet (basic blocks for 18/34, bottlenecks for 50/101/152, Wide ResNet via the
// bottleneck width) exported with BatchNormalization kept as nodes (no constant folding of
// batch norm into the convolutions), so BN's affine and running statistics stay initializers.
#include "core/zoo/zoo_models.h"

namespace tapas::zoo {

namespace {

constexpr int32_t kF32 = onnx::TensorProto::FLOAT;

Val conv(OnnxBuilder& b, const Val& x, const std::string& name, int64_t in, int64_t out, int64_t k,
         int64_t stride, int64_t pad)
{
    return conv2d(b, x, name, in, out, k, stride, pad, false);
}

Val relu(OnnxBuilder& b, const Val& x, const std::string& name)
{
    auto s = b.scope(name);
    return b.op("Relu", {x});
}

struct BlockSpec {
    int64_t in, planes, stride, baseWidth;
    bool bottleneck;
};

int64_t expansion(bool bottleneck) { return bottleneck ? 4 : 1; }

Val residualBlock(OnnxBuilder& b, const Val& x, const BlockSpec& s)
{
    const int64_t out = s.planes * expansion(s.bottleneck);
    Val y;
    if (s.bottleneck) {
        const int64_t width = s.planes * s.baseWidth / 64;
        y = relu(b, batchNorm(b, conv(b, x, "conv1", s.in, width, 1, 1, 0), "bn1", width), "relu");
        y = relu(b, batchNorm(b, conv(b, y, "conv2", width, width, 3, s.stride, 1), "bn2", width), "relu_1");
        y = batchNorm(b, conv(b, y, "conv3", width, out, 1, 1, 0), "bn3", out);
    } else {
        y = relu(b, batchNorm(b, conv(b, x, "conv1", s.in, out, 3, s.stride, 1), "bn1", out), "relu");
        y = batchNorm(b, conv(b, y, "conv2", out, out, 3, 1, 1), "bn2", out);
    }
    Val identity = x;
    if (s.stride != 1 || s.in != out) {
        auto d = b.scope("downsample", "");
        identity = batchNorm(b, conv(b, x, "downsample.0", s.in, out, 1, s.stride, 0), "downsample.1", out);
    }
    return relu(b, b.op("Add", {y, identity}), s.bottleneck ? "relu_2" : "relu_1");
}

} // namespace

Result<std::string> buildResnet(const ZooOptions& o, bool wide)
{
    const int64_t depth = pick(o.depth, 50), classes = pick(o.classes, 1000);
    const int64_t image = pick(o.imageSize, 224), channels = pick(o.channels, 3);
    const int64_t baseWidth = pick(o.width, wide ? 128 : 64);
    std::vector<int64_t> blocks;
    switch (depth) {
    case 18: blocks = {2, 2, 2, 2}; break;
    case 34: blocks = {3, 4, 6, 3}; break;
    case 50: blocks = {3, 4, 6, 3}; break;
    case 101: blocks = {3, 4, 23, 3}; break;
    case 152: blocks = {3, 8, 36, 3}; break;
    default:
        return Result<std::string>::failure("--depth must be 18, 34, 50, 101 or 152 (got " + std::to_string(depth) + ")");
    }
    const bool bottleneck = depth >= 50;
    if (Status s = requirePositive({{"classes", classes}, {"image-size", image}, {"channels", channels}, {"width", baseWidth}}); !s)
        return Result<std::string>::failure(s.error);
    if (image < 32) return Result<std::string>::failure("--image-size must be at least 32 (got " + std::to_string(image) + ")");
    if (!bottleneck && baseWidth != 64)
        return Result<std::string>::failure("--width applies to bottleneck ResNets (depth 50, 101, 152) only");

    const std::string name = wide ? "wide_resnet50" : "resnet50";
    OnnxBuilder b(name, o.opset, o.scrubNames, name + ".weights");
    const Dim batch = dimOf(o.batch, "batch");
    const Val input = b.input("input", kF32, {batch, Dim::known(channels), Dim::known(image), Dim::known(image)});
    Val x = relu(b, batchNorm(b, conv(b, input, "conv1", channels, 64, 7, 2, 3), "bn1", 64), "relu");
    {
        auto s = b.scope("maxpool");
        x = b.op("MaxPool", {x}, {Attr::of("ceil_mode", 0), Attr::of("kernel_shape", Ints{3, 3}),
                                  Attr::of("pads", Ints{1, 1, 1, 1}), Attr::of("strides", Ints{2, 2})});
    }
    int64_t in = 64;
    for (size_t stage = 0; stage < 4; ++stage) {
        const std::string layer = "layer" + std::to_string(stage + 1);
        auto s = b.scope(layer, "");
        const int64_t planes = int64_t(64) << stage;
        for (int64_t i = 0; i < blocks[stage]; ++i) {
            auto s2 = b.scope(layer + "." + std::to_string(i));
            const int64_t stride = (stage > 0 && i == 0) ? 2 : 1;
            x = residualBlock(b, x, BlockSpec{in, planes, stride, baseWidth, bottleneck});
            in = planes * expansion(bottleneck);
        }
    }
    {
        auto s = b.scope("avgpool");
        x = b.op("GlobalAveragePool", {x});
    }
    x = b.op("Flatten", {x}, {Attr::of("axis", 1)});
    {
        auto s = b.scope("fc");
        x = gemm(b, x, in, classes);
    }
    b.output(x, "output", kF32, {batch, Dim::known(classes)});
    return b.serialize();
}

} // namespace tapas::zoo
