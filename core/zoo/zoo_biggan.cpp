// BigGAN-style conditional GAN (Brock et al.; the BigGAN-PyTorch layout) at 32x32 or 64x64:
// a generator of residual up-blocks with class-conditional batch norm (plain BatchNormalization
// whose gain and bias come from linear maps of [z, shared class embedding]), nearest x2
// upsampling, a self-attention block at 32x32, and a discriminator of residual down-blocks with
// ReLU sum pooling and a projection onto the class embedding.
#include "core/zoo/zoo_models.h"

namespace tapas::zoo {

namespace {

constexpr int32_t kF32 = onnx::TensorProto::FLOAT;
constexpr int32_t kI64 = onnx::TensorProto::INT64;
constexpr int64_t kSharedDim = 128;

struct BigGanConfig {
    int64_t image, latent, ch, classes;
    Dim batch;
};

// ccbn: BatchNormalization without affine (scale 1, bias 0) then * (1 + gain(y)) + bias(y).
Val conditionalBn(OnnxBuilder& b, const Val& x, const Val& cond, const std::string& name, int64_t c,
                  int64_t condDim, const Dim& batch)
{
    auto s = b.scope(name);
    const std::string p = b.paramPrefix();
    const Val normed = b.op("BatchNormalization",
                            {x, b.weight(p + "unit_scale", {c}), b.weight(p + "zero_shift", {c}),
                             b.weight(p + "stored_mean", {c}), b.weight(p + "stored_var", {c})},
                            {Attr::of("epsilon", 1e-5), Attr::of("momentum", 0.9)});
    Val gain, bias;
    {
        auto s2 = b.scope("gain");
        gain = b.op("Add", {b.constFloat(1.0f), linear(b, cond, condDim, c)});
    }
    {
        auto s2 = b.scope("bias");
        bias = linear(b, cond, condDim, c);
    }
    gain = reshapeLead(b, gain, {batch}, {c, 1, 1});
    bias = reshapeLead(b, bias, {batch}, {c, 1, 1});
    return b.op("Add", {b.op("Mul", {normed, gain}), bias});
}

Val upsample(OnnxBuilder& b, const Val& x)
{
    return b.op("Resize", {x, "", b.constFloats({1.0f, 1.0f, 2.0f, 2.0f}, {4})},
                {Attr::str("coordinate_transformation_mode", "asymmetric"), Attr::str("mode", "nearest"),
                 Attr::str("nearest_mode", "floor")});
}

Val pool2(OnnxBuilder& b, const char* op, const Val& x)
{
    return b.op(op, {x}, {Attr::of("ceil_mode", 0), Attr::of("kernel_shape", Ints{2, 2}),
                          Attr::of("pads", Ints{0, 0, 0, 0}), Attr::of("strides", Ints{2, 2})});
}

Val gBlock(OnnxBuilder& b, const Val& x, const Val& cond, int64_t in, int64_t out, int64_t condDim, const Dim& batch)
{
    Val h = b.op("Relu", {conditionalBn(b, x, cond, "bn1", in, condDim, batch)});
    h = conv2d(b, upsample(b, h), "conv1", in, out, 3, 1, 1, true);
    h = b.op("Relu", {conditionalBn(b, h, cond, "bn2", out, condDim, batch)});
    h = conv2d(b, h, "conv2", out, out, 3, 1, 1, true);
    const Val shortcut = conv2d(b, upsample(b, x), "conv_sc", in, out, 1, 1, 0, true);
    return b.op("Add", {h, shortcut});
}

// SAGAN self-attention: theta/phi/g 1x1 convs, phi and g max-pooled, softmax over positions.
Val selfAttention(OnnxBuilder& b, const Val& x, int64_t c, int64_t res, const Dim& batch)
{
    const int64_t hw = res * res;
    const Val theta = reshapeLead(b, conv2d(b, x, "theta", c, c / 8, 1, 1, 0, false), {batch}, {c / 8, hw});
    const Val phi = reshapeLead(b, pool2(b, "MaxPool", conv2d(b, x, "phi", c, c / 8, 1, 1, 0, false)), {batch}, {c / 8, hw / 4});
    const Val g = reshapeLead(b, pool2(b, "MaxPool", conv2d(b, x, "g", c, c / 2, 1, 1, 0, false)), {batch}, {c / 2, hw / 4});
    const Val thetaT = b.op("Transpose", {theta}, {Attr::of("perm", Ints{0, 2, 1})});
    const Val beta = b.op("Softmax", {b.op("MatMul", {thetaT, phi})}, {Attr::of("axis", -1)});
    const Val betaT = b.op("Transpose", {beta}, {Attr::of("perm", Ints{0, 2, 1})});
    const Val attended = reshapeLead(b, b.op("MatMul", {g, betaT}), {batch}, {c / 2, res, res});
    const Val o = conv2d(b, attended, "o", c / 2, c, 1, 1, 0, false);
    const Val gamma = b.weight(b.paramPrefix() + "gamma", {});
    return b.op("Add", {x, b.op("Mul", {gamma, o})});
}

Val generator(OnnxBuilder& b, const Val& z, const Val& y, const BigGanConfig& c)
{
    const std::vector<int64_t> in = c.image == 64 ? std::vector<int64_t>{16, 16, 8, 4} : std::vector<int64_t>{4, 4, 4};
    const std::vector<int64_t> out = c.image == 64 ? std::vector<int64_t>{16, 8, 4, 2} : std::vector<int64_t>{4, 4, 4};
    const int64_t condDim = c.latent + kSharedDim;
    Val emb;
    {
        auto s = b.scope("shared");
        emb = b.op("Gather", {b.weight(b.paramPrefix() + "weight", {c.classes, kSharedDim}), y});
    }
    const Val cond = b.op("Concat", {z, emb}, {Attr::of("axis", 1)});
    Val x;
    {
        auto s = b.scope("linear");
        x = gemm(b, z, c.latent, in[0] * c.ch * 16);
    }
    x = reshapeLead(b, x, {c.batch}, {in[0] * c.ch, 4, 4});
    int64_t res = 4;
    for (size_t i = 0; i < in.size(); ++i) {
        {
            auto s = b.scope("blocks." + std::to_string(i) + ".0");
            x = gBlock(b, x, cond, in[i] * c.ch, out[i] * c.ch, condDim, c.batch);
        }
        res *= 2;
        if (res == 32) {
            auto s = b.scope("blocks." + std::to_string(i) + ".1");
            x = selfAttention(b, x, out[i] * c.ch, res, c.batch);
        }
    }
    auto s = b.scope("output_layer", "");
    x = b.op("Relu", {batchNorm(b, x, "output_layer.0", out.back() * c.ch)});
    x = conv2d(b, x, "output_layer.2", out.back() * c.ch, 3, 3, 1, 1, true);
    return b.op("Tanh", {x});
}

Val dBlock(OnnxBuilder& b, const Val& x, int64_t in, int64_t out, bool preactivation, bool down)
{
    Val h = preactivation ? b.op("Relu", {x}) : x;
    h = conv2d(b, h, "conv1", in, out, 3, 1, 1, true);
    h = conv2d(b, b.op("Relu", {h}), "conv2", out, out, 3, 1, 1, true);
    if (down) h = pool2(b, "AveragePool", h);
    Val shortcut = x;
    if (in != out || down) {
        if (preactivation) {
            shortcut = conv2d(b, x, "conv_sc", in, out, 1, 1, 0, true);
            if (down) shortcut = pool2(b, "AveragePool", shortcut);
        } else {
            if (down) shortcut = pool2(b, "AveragePool", shortcut);
            shortcut = conv2d(b, shortcut, "conv_sc", in, out, 1, 1, 0, true);
        }
    }
    return b.op("Add", {h, shortcut});
}

Val discriminator(OnnxBuilder& b, const Val& image, const Val& y, const BigGanConfig& c)
{
    const bool big = c.image == 64;
    const std::vector<int64_t> in = big ? std::vector<int64_t>{0, 1, 2, 4, 8} : std::vector<int64_t>{0, 4, 4, 4};
    const std::vector<int64_t> out = big ? std::vector<int64_t>{1, 2, 4, 8, 16} : std::vector<int64_t>{4, 4, 4, 4};
    const size_t downBlocks = big ? 4 : 2;
    Val x = image;
    for (size_t i = 0; i < in.size(); ++i) {
        auto s = b.scope("blocks." + std::to_string(i) + ".0");
        const int64_t inCh = i == 0 ? 3 : in[i] * c.ch;
        x = dBlock(b, x, inCh, out[i] * c.ch, i > 0, i < downBlocks);
    }
    const int64_t feat = out.back() * c.ch;
    const Val pooled = b.op("ReduceSum", {b.op("Relu", {x}), b.constInts({2, 3})}, {Attr::of("keepdims", 0)});
    Val logit;
    {
        auto s = b.scope("linear");
        logit = gemm(b, pooled, feat, 1);
    }
    Val classEmb;
    {
        auto s = b.scope("embed");
        classEmb = b.op("Gather", {b.weight(b.paramPrefix() + "weight", {c.classes, feat}), y});
    }
    const Val projection = b.op("ReduceSum", {b.op("Mul", {classEmb, pooled}), b.constInts({1})}, {Attr::of("keepdims", 1)});
    return b.op("Add", {logit, projection});
}

} // namespace

Result<std::string> buildBiggan(const ZooOptions& o)
{
    const Result<GanParts> parts = parseGanPart(o.part);
    if (!parts) return Result<std::string>::failure(parts.error());
    const bool withG = parts->generator, withD = parts->discriminator;
    BigGanConfig c{pick(o.imageSize, 32), pick(o.latent, 128), pick(o.width, 64), pick(o.classes, 10), dimOf(o.batch, "batch")};
    if (c.image != 32 && c.image != 64)
        return Result<std::string>::failure("--image-size must be 32 or 64 (got " + std::to_string(c.image) + ")");
    if (Status s = requirePositive({{"latent", c.latent}, {"width", c.ch}, {"classes", c.classes}}); !s)
        return Result<std::string>::failure(s.error);
    if (c.ch % 2 != 0) return Result<std::string>::failure("--width must be even (attention uses width/8 of 4x width)");
    const bool both = withG && withD;
    OnnxBuilder b("biggan", o.opset, o.scrubNames, "biggan.weights");
    const std::vector<Dim> imageDims = {c.batch, Dim::known(3), Dim::known(c.image), Dim::known(c.image)};
    const Val y = b.input("class_ids", kI64, {c.batch});
    Val img;
    if (withG) {
        const Val z = b.input("z", kF32, {c.batch, Dim::known(c.latent)});
        if (both) b.push("generator");
        img = generator(b, z, y, c);
        if (both) b.pop();
    } else {
        img = b.input("image", kF32, imageDims);
    }
    if (withD) {
        if (both) b.push("discriminator");
        const Val logit = discriminator(b, img, y, c);
        if (both) b.pop();
        b.output(logit, "logit", kF32, {c.batch, Dim::known(1)});
    }
    if (withG) b.output(img, "image", kF32, imageDims);
    return b.serialize();
}

} // namespace tapas::zoo
