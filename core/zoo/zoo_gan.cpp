// DCGAN (Radford et al., the PyTorch example's Generator/Discriminator): a ConvTranspose
// stack with BatchNorm+ReLU and Tanh, and a strided Conv stack with BatchNorm, LeakyReLU(0.2)
// and Sigmoid. --part both feeds the generator's image into the discriminator in one graph.
#include "core/zoo/zoo_models.h"

namespace tapas::zoo {

Result<GanParts> parseGanPart(const std::string& part)
{
    GanParts p;
    p.generator = part.empty() || part == "both" || part == "generator";
    p.discriminator = part.empty() || part == "both" || part == "discriminator";
    if (!p.generator && !p.discriminator)
        return Result<GanParts>::failure("--part must be generator, discriminator or both (got '" + part + "')");
    return p;
}

namespace {

constexpr int32_t kF32 = onnx::TensorProto::FLOAT;

// One entry of the `main` nn.Sequential: scope "/main/main.<i>", parameters "main.<i>.*".
std::string seqItem(int index) { return "main." + std::to_string(index); }

Val convTranspose(OnnxBuilder& b, const Val& x, int index, int64_t in, int64_t out, int64_t stride, int64_t pad)
{
    auto s = b.scope(seqItem(index));
    const Val w = b.weight(b.paramPrefix() + "weight", {in, out, 4, 4});
    return b.op("ConvTranspose", {x, w},
                {Attr::of("dilations", Ints{1, 1}), Attr::of("group", 1), Attr::of("kernel_shape", Ints{4, 4}),
                 Attr::of("pads", Ints{pad, pad, pad, pad}), Attr::of("strides", Ints{stride, stride})});
}

Val activation(OnnxBuilder& b, const Val& x, int index, const char* op, double leak = 0)
{
    auto s = b.scope(seqItem(index));
    if (leak > 0) return b.op(op, {x}, {Attr::of("alpha", leak)});
    return b.op(op, {x});
}

Val generator(OnnxBuilder& b, const Val& z, int64_t latent, int64_t ngf, int64_t nc, int64_t image)
{
    auto s = b.scope("main", "");
    const std::vector<int64_t> mults = image == 64 ? std::vector<int64_t>{8, 4, 2, 1} : std::vector<int64_t>{4, 2, 1};
    int index = 0;
    Val x = z;
    int64_t in = latent;
    for (size_t i = 0; i < mults.size(); ++i) {
        const int64_t out = ngf * mults[i];
        x = convTranspose(b, x, index++, in, out, i == 0 ? 1 : 2, i == 0 ? 0 : 1);
        x = batchNorm(b, x, seqItem(index++), out);
        x = activation(b, x, index++, "Relu");
        in = out;
    }
    x = convTranspose(b, x, index++, in, nc, 2, 1);
    return activation(b, x, index, "Tanh");
}

Val discriminator(OnnxBuilder& b, const Val& image, int64_t ndf, int64_t nc, int64_t size)
{
    Val x;
    {
        auto s = b.scope("main", "");
        const std::vector<int64_t> mults = size == 64 ? std::vector<int64_t>{1, 2, 4, 8} : std::vector<int64_t>{1, 2, 4};
        int index = 0;
        x = image;
        int64_t in = nc;
        for (size_t i = 0; i < mults.size(); ++i) {
            const int64_t out = ndf * mults[i];
            x = conv2d(b, x, seqItem(index++), in, out, 4, 2, 1, false);
            if (i > 0) x = batchNorm(b, x, seqItem(index++), out);
            x = activation(b, x, index++, "LeakyRelu", 0.2);
            in = out;
        }
        x = conv2d(b, x, seqItem(index++), in, 1, 4, 1, 0, false);
        x = activation(b, x, index, "Sigmoid");
    }
    // output.view(-1, 1): one probability per image.
    return b.op("Flatten", {x}, {Attr::of("axis", 1)});
}

} // namespace

Result<std::string> buildDcgan(const ZooOptions& o)
{
    const Result<GanParts> parts = parseGanPart(o.part);
    if (!parts) return Result<std::string>::failure(parts.error());
    const bool withG = parts->generator, withD = parts->discriminator;
    const int64_t image = pick(o.imageSize, 64), latent = pick(o.latent, 100), width = pick(o.width, 64);
    const int64_t nc = pick(o.channels, 3);
    if (image != 32 && image != 64)
        return Result<std::string>::failure("--image-size must be 32 or 64 (got " + std::to_string(image) + ")");
    if (Status s = requirePositive({{"latent", latent}, {"width", width}, {"channels", nc}}); !s)
        return Result<std::string>::failure(s.error);
    const bool both = withG && withD;
    OnnxBuilder b("dcgan", o.opset, o.scrubNames, "dcgan.weights");
    const Dim batch = dimOf(o.batch, "batch");
    const std::vector<Dim> imageDims = {batch, Dim::known(nc), Dim::known(image), Dim::known(image)};
    Val img;
    if (withG) {
        const Val z = b.input("z", kF32, {batch, Dim::known(latent), Dim::known(1), Dim::known(1)});
        if (both) b.push("generator");
        img = generator(b, z, latent, width, nc, image);
        if (both) b.pop();
    } else {
        img = b.input("image", kF32, imageDims);
    }
    if (withD) {
        if (both) b.push("discriminator");
        const Val p = discriminator(b, img, width, nc, image);
        if (both) b.pop();
        b.output(p, "validity", kF32, {batch, Dim::known(1)});
    }
    if (withG) b.output(img, "image", kF32, imageDims);
    return b.serialize();
}

} // namespace tapas::zoo
