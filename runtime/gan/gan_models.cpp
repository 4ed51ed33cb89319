#include "runtime/gan/gan_models.h"

#include <algorithm>
#include <chrono>

namespace F = torch::nn::functional;

namespace tapas::runtime::gan {
namespace {

// ---- MLP pair for the 2-D mixtures ------------------------------------------------------
class MlpG : public GeneratorNet {
public:
    explicit MlpG(const ModelSpec& s)
    {
        // gLayers hidden layers of gWidth units (preset 3 x 128). The layers are made from the
        // last to the first, the order in which GCC evaluated the arguments of the fixed-depth
        // Sequential this replaced: each layer draws its initial weights from the global
        // generator, so this keeps the preset's initial G, and every figure measured with it,
        // to the digit. The parameter names are unchanged too, so older checkpoints load.
        std::vector<torch::nn::Linear> layers;
        layers.push_back(torch::nn::Linear(s.gLayers > 0 ? s.gWidth : s.zDim, s.outChannels));
        for (int i = s.gLayers - 1; i >= 0; --i) layers.push_back(torch::nn::Linear(i == 0 ? s.zDim : s.gWidth, s.gWidth));
        torch::nn::Sequential seq;
        for (size_t i = layers.size() - 1; i > 0; --i) {
            seq->push_back(layers[i]);
            seq->push_back(torch::nn::ReLU());
        }
        seq->push_back(layers[0]);
        net_ = register_module("net", seq);
    }
    torch::Tensor forward(const torch::Tensor& z, const torch::Tensor&) override { return net_->forward(z); }
private:
    torch::nn::Sequential net_{nullptr};
};

class MlpD : public DiscriminatorNet {
public:
    explicit MlpD(const ModelSpec& s)
    {
        auto lrelu = [] { return torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(0.2)); };
        net_ = register_module("net", torch::nn::Sequential(
            torch::nn::Linear(s.dInChannels, s.width), lrelu(),
            torch::nn::Linear(s.width, s.width), lrelu(),
            torch::nn::Linear(s.width, s.width), lrelu(),
            torch::nn::Linear(s.width, 1)));
    }
    torch::Tensor forward(const torch::Tensor& x, const torch::Tensor&) override { return net_->forward(x).view({-1}); }
private:
    torch::nn::Sequential net_{nullptr};
};

// ---- DCGAN ------------------------------------------------------------------------------
// Stages: 4x4 -> 8 -> 16 -> 32 (-> 64), channels halving from width x 2^(stages-1).
class DcganG : public GeneratorNet {
public:
    explicit DcganG(const ModelSpec& s) : zDim_(s.zDim)
    {
        const int ups = s.resolution == 64 ? 4 : 3;
        int ch = s.width << (ups - 1);
        torch::nn::Sequential seq;
        seq->push_back(torch::nn::ConvTranspose2d(torch::nn::ConvTranspose2dOptions(s.zDim, ch, 4).bias(false)));
        seq->push_back(torch::nn::BatchNorm2d(ch));
        seq->push_back(torch::nn::ReLU());
        for (int i = 0; i < ups - 1; ++i) {
            seq->push_back(torch::nn::ConvTranspose2d(torch::nn::ConvTranspose2dOptions(ch, ch / 2, 4).stride(2).padding(1).bias(false)));
            seq->push_back(torch::nn::BatchNorm2d(ch / 2));
            seq->push_back(torch::nn::ReLU());
            ch /= 2;
        }
        seq->push_back(torch::nn::ConvTranspose2d(torch::nn::ConvTranspose2dOptions(ch, s.outChannels, 4).stride(2).padding(1)));
        seq->push_back(torch::nn::Tanh());
        net_ = register_module("net", seq);
    }
    torch::Tensor forward(const torch::Tensor& z, const torch::Tensor&) override
    {
        return net_->forward(z.view({z.size(0), zDim_, 1, 1}));
    }
private:
    int zDim_;
    torch::nn::Sequential net_{nullptr};
};

// Batch norm with statistics given from outside, constants of the backward pass (eval-mode batch
// norm with them as its "running" ones, libtorch's fused kernel); running statistics untouched.
torch::Tensor batchNormWithStats(torch::nn::BatchNorm2dImpl& bn, const torch::Tensor& x, const torch::Tensor& mean,
                                 const torch::Tensor& var)
{
    return F::batch_norm(x, mean, var,
                         F::BatchNormFuncOptions().weight(bn.weight).bias(bn.bias).training(false).eps(bn.options.eps()));
}

// Batch norm with the batch's statistics as constants of the backward pass (`--d-norm
// batch-detached`): the forward normalises exactly as training-mode batch norm does (biased
// variance of this batch; the running statistics follow with the same momentum), but the
// gradient does not flow through the mean and variance, so a score's gradient at a sample's
// pixels is that sample's own Jacobian: what `--single-d-backward` needs.
torch::Tensor batchNormDetachedStats(torch::nn::BatchNorm2dImpl& bn, const torch::Tensor& x)
{
    if (!bn.is_training()) return bn.forward(x);
    torch::Tensor var, mean;
    {
        torch::NoGradGuard ng;
        std::tie(var, mean) = torch::var_mean(x, at::IntArrayRef{0, 2, 3}, /*unbiased=*/false);
        const double m = bn.options.momentum().value_or(0.1);
        const int64_t count = x.numel() / x.size(1);
        bn.running_mean.mul_(1 - m).add_(mean, m);
        bn.running_var.mul_(1 - m).add_(var * (double(count) / double(std::max<int64_t>(1, count - 1))), m);
        bn.num_batches_tracked.add_(1);
    }
    return batchNormWithStats(bn, x, mean, var);
}

class DcganD : public DiscriminatorNet {
public:
    explicit DcganD(const ModelSpec& s) : detachedStats_(s.dNorm == DNorm::BatchDetached), realStats_(s.dNorm == DNorm::BatchReal)
    {
        const int downs = s.resolution == 64 ? 4 : 3;
        auto lrelu = [] { return torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(0.2)); };
        torch::nn::Sequential seq;
        int ch = s.width;
        seq->push_back(torch::nn::Conv2d(torch::nn::Conv2dOptions(s.dInChannels, ch, 4).stride(2).padding(1)));
        seq->push_back(lrelu());
        for (int i = 0; i < downs - 1; ++i) {
            seq->push_back(torch::nn::Conv2d(torch::nn::Conv2dOptions(ch, ch * 2, 4).stride(2).padding(1).bias(false)));
            seq->push_back(torch::nn::BatchNorm2d(ch * 2));
            seq->push_back(lrelu());
            ch *= 2;
        }
        seq->push_back(torch::nn::Conv2d(torch::nn::Conv2dOptions(ch, 1, 4)));
        net_ = register_module("net", seq);
    }
    torch::Tensor forward(const torch::Tensor& x, const torch::Tensor&) override
    {
        if (!detachedStats_ && !realStats_) return net_->forward(x).view({-1});
        // The same layers and parameter names as the preset's D (checkpoints and copies match);
        // only where the batch norms take their statistics differs.
        // --d-norm batch-real: a real batch is normalised as the preset does (its statistics,
        // with their gradient), and they are kept for the fake batches that follow; a fake batch
        // before any real one in training (the layout probe) is normalised by its own.
        const bool fromReal = realStats_ && judgingFakes_ && is_training() && !realMean_.empty();
        const bool keepReal = realStats_ && !judgingFakes_ && is_training();
        if (keepReal) {
            realMean_.clear();
            realVar_.clear();
        }
        torch::Tensor h = x;
        size_t norm = 0;
        for (size_t i = 0; i < net_->size(); ++i) {
            const auto& m = net_[i];
            if (auto* bn = m->as<torch::nn::BatchNorm2dImpl>()) {
                if (detachedStats_) h = batchNormDetachedStats(*bn, h);
                else if (fromReal) h = batchNormWithStats(*bn, h, realMean_[norm], realVar_[norm]);
                else {
                    if (keepReal) {
                        torch::NoGradGuard ng;
                        auto [var, mean] = torch::var_mean(h, at::IntArrayRef{0, 2, 3}, /*unbiased=*/false);
                        realMean_.push_back(mean);
                        realVar_.push_back(var);
                    }
                    h = bn->forward(h);
                }
                ++norm;
            } else if (auto* conv = m->as<torch::nn::Conv2dImpl>()) h = conv->forward(h);
            else h = m->as<torch::nn::LeakyReLUImpl>()->forward(h);
        }
        return h.view({-1});
    }
    void setJudgingFakes(bool fakes) override { judgingFakes_ = fakes; }
private:
    bool detachedStats_, realStats_;
    bool judgingFakes_ = false;
    std::vector<torch::Tensor> realMean_, realVar_; // batch-real: the last real batch's statistics per norm
    torch::nn::Sequential net_{nullptr};
};

// ---- BigGAN pieces ----------------------------------------------------------------------
// Spectral normalisation (Miyato et al.): the weight divided by its largest singular value,
// estimated by one power iteration per training forward; u persists as a buffer.
class SNWeight : public torch::nn::Module {
public:
    SNWeight(std::vector<int64_t> shape, double fanIn)
    {
        weight_ = register_parameter("weight", torch::randn(shape) * std::sqrt(1.0 / fanIn));
        u_ = register_buffer("u", F::normalize(torch::randn({shape[0]}), F::NormalizeFuncOptions().dim(0)));
    }
    torch::Tensor normalized()
    {
        const auto w = weight_.reshape({weight_.size(0), -1}); // a view unless the layout made it channels-last
        torch::Tensor u = u_, v;
        if (is_training()) {
            torch::NoGradGuard ng;
            v = F::normalize(torch::mv(w.t(), u), F::NormalizeFuncOptions().dim(0).eps(1e-8));
            u = F::normalize(torch::mv(w, v), F::NormalizeFuncOptions().dim(0).eps(1e-8));
            u_.copy_(u);
        } else {
            torch::NoGradGuard ng;
            v = F::normalize(torch::mv(w.t(), u), F::NormalizeFuncOptions().dim(0).eps(1e-8));
        }
        const auto sigma = torch::dot(u, torch::mv(w, v));
        return weight_ / sigma;
    }
    torch::Tensor weight_, u_;
};

class SNConv : public torch::nn::Module {
public:
    SNConv(int in, int out, int k, int stride = 1, int pad = -1) : stride_(stride), pad_(pad < 0 ? k / 2 : pad)
    {
        w_ = register_module("sn", std::make_shared<SNWeight>(std::vector<int64_t>{out, in, k, k}, double(in * k * k)));
        b_ = register_parameter("bias", torch::zeros({out}));
    }
    torch::Tensor forward(const torch::Tensor& x)
    {
        return F::conv2d(x, w_->normalized(), F::Conv2dFuncOptions().bias(b_).stride(stride_).padding(pad_));
    }
private:
    int stride_, pad_;
    std::shared_ptr<SNWeight> w_;
    torch::Tensor b_;
};

class SNLinear : public torch::nn::Module {
public:
    SNLinear(int in, int out)
    {
        w_ = register_module("sn", std::make_shared<SNWeight>(std::vector<int64_t>{out, in}, double(in)));
        b_ = register_parameter("bias", torch::zeros({out}));
    }
    torch::Tensor forward(const torch::Tensor& x) { return F::linear(x, w_->normalized(), b_); }
private:
    std::shared_ptr<SNWeight> w_;
    torch::Tensor b_;
};

// ---- MLP discriminator with spectral norm (Miyato et al. 2018) on every layer ---------------
// Each layer's weight is divided by its largest singular value, so D is 1-Lipschitz in its input
// (LeakyReLU is too): `--d-norm spectral`.
class MlpSnD : public DiscriminatorNet {
public:
    explicit MlpSnD(const ModelSpec& s)
    {
        int in = s.dInChannels;
        for (int i = 0; i < 4; ++i) {
            const int out = i == 3 ? 1 : s.width;
            layers_.push_back(register_module("sn" + std::to_string(i), std::make_shared<SNLinear>(in, out)));
            in = out;
        }
    }
    torch::Tensor forward(const torch::Tensor& x, const torch::Tensor&) override
    {
        torch::Tensor h = x;
        for (size_t i = 0; i < layers_.size(); ++i) {
            h = layers_[i]->forward(h);
            if (i + 1 < layers_.size()) h = F::leaky_relu(h, F::LeakyReLUFuncOptions().negative_slope(0.2));
        }
        return h.view({-1});
    }
private:
    std::vector<std::shared_ptr<SNLinear>> layers_;
};

// ---- DCGAN discriminator without batch norm (`--d-norm spectral|layer|none`) -----------------
// DCGAN's D with its batch norm taken out: each convolution spectrally normalised (Miyato et al.
// 2018, as SNGAN's standard CNN), or layer norm where the batch norm was (over each sample's
// channels and pixels, GroupNorm with one group: the replacement Gulrajani et al. 2017 use in
// WGAN-GP's D), or plain. Nothing in it mixes the samples of a batch, so a fake image's score
// depends on that image alone: what `--single-d-backward` needs.
class DcganPlainD : public DiscriminatorNet {
public:
    explicit DcganPlainD(const ModelSpec& s) : spectral_(s.dNorm == DNorm::Spectral), layerNorm_(s.dNorm == DNorm::Layer)
    {
        const int downs = s.resolution == 64 ? 4 : 3;
        int in = s.dInChannels, ch = s.width;
        for (int i = 0; i < downs; ++i) {
            add(in, ch, 4, 2, 1);
            in = ch;
            ch *= 2;
        }
        add(in, 1, 4, 1, 0);
    }
    torch::Tensor forward(const torch::Tensor& x, const torch::Tensor&) override
    {
        torch::Tensor h = x;
        const size_t n = spectral_ ? sn_.size() : plain_.size();
        for (size_t i = 0; i < n; ++i) {
            h = spectral_ ? sn_[i]->forward(h) : plain_[i]->forward(h);
            if (layerNorm_ && i > 0 && i + 1 < n) h = ln_[i - 1]->forward(h); // where DCGAN's batch norm was
            if (i + 1 < n) h = F::leaky_relu(h, F::LeakyReLUFuncOptions().negative_slope(0.2));
        }
        return h.view({-1});
    }
private:
    void add(int in, int out, int k, int stride, int pad)
    {
        const std::string name = "conv" + std::to_string(spectral_ ? sn_.size() : plain_.size());
        if (spectral_) sn_.push_back(register_module(name, std::make_shared<SNConv>(in, out, k, stride, pad)));
        else plain_.push_back(register_module(name, torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, k).stride(stride).padding(pad))));
        const size_t made = spectral_ ? sn_.size() : plain_.size();
        if (layerNorm_ && made > 1 && out > 1) // after the inner convolutions, as DCGAN's batch norm
            ln_.push_back(register_module("norm" + std::to_string(made - 1), torch::nn::GroupNorm(1, out)));
    }
    bool spectral_, layerNorm_;
    std::vector<torch::nn::GroupNorm> ln_;
    std::vector<std::shared_ptr<SNConv>> sn_;
    std::vector<torch::nn::Conv2d> plain_;
};

// Class-conditional batch norm: normalise without affine, then a per-class gain and bias.
class CondBN : public torch::nn::Module {
public:
    CondBN(int ch, int classes)
    {
        bn_ = register_module("bn", torch::nn::BatchNorm2d(torch::nn::BatchNorm2dOptions(ch).affine(false)));
        gain_ = register_module("gain", torch::nn::Embedding(classes, ch));
        bias_ = register_module("bias", torch::nn::Embedding(classes, ch));
        torch::NoGradGuard ng;
        gain_->weight.fill_(1.0);
        bias_->weight.zero_();
    }
    torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& y)
    {
        const auto g = gain_->forward(y).unsqueeze(-1).unsqueeze(-1);
        const auto b = bias_->forward(y).unsqueeze(-1).unsqueeze(-1);
        return bn_->forward(x) * g + b;
    }
private:
    torch::nn::BatchNorm2d bn_{nullptr};
    torch::nn::Embedding gain_{nullptr}, bias_{nullptr};
};

// SAGAN self-attention over the spatial positions, starting as the identity (gamma = 0).
class SelfAttention : public torch::nn::Module {
public:
    explicit SelfAttention(int ch) : ch_(ch)
    {
        theta_ = register_module("theta", std::make_shared<SNConv>(ch, std::max(1, ch / 8), 1));
        phi_ = register_module("phi", std::make_shared<SNConv>(ch, std::max(1, ch / 8), 1));
        g_ = register_module("g", std::make_shared<SNConv>(ch, std::max(1, ch / 2), 1));
        o_ = register_module("o", std::make_shared<SNConv>(std::max(1, ch / 2), ch, 1));
        gamma_ = register_parameter("gamma", torch::zeros({1}));
    }
    torch::Tensor forward(const torch::Tensor& x)
    {
        const int64_t n = x.size(0), h = x.size(2), w = x.size(3);
        const auto theta = theta_->forward(x).view({n, -1, h * w});
        const auto phi = F::max_pool2d(phi_->forward(x), F::MaxPool2dFuncOptions(2)).view({n, -1, h * w / 4});
        const auto g = F::max_pool2d(g_->forward(x), F::MaxPool2dFuncOptions(2)).view({n, -1, h * w / 4});
        const auto beta = torch::softmax(torch::bmm(theta.transpose(1, 2), phi), -1); // n x hw x hw/4
        const auto o = torch::bmm(g, beta.transpose(1, 2)).view({n, -1, h, w});
        return x + gamma_ * o_->forward(o);
    }
private:
    int ch_;
    std::shared_ptr<SNConv> theta_, phi_, g_, o_;
    torch::Tensor gamma_;
};

class GBlock : public torch::nn::Module {
public:
    GBlock(int in, int out, int classes)
    {
        bn1_ = register_module("bn1", std::make_shared<CondBN>(in, classes));
        bn2_ = register_module("bn2", std::make_shared<CondBN>(out, classes));
        c1_ = register_module("conv1", std::make_shared<SNConv>(in, out, 3));
        c2_ = register_module("conv2", std::make_shared<SNConv>(out, out, 3));
        sc_ = register_module("shortcut", std::make_shared<SNConv>(in, out, 1));
    }
    torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& y)
    {
        auto up = [](const torch::Tensor& t) {
            return F::interpolate(t, F::InterpolateFuncOptions().scale_factor(std::vector<double>{2.0, 2.0}).mode(torch::kNearest));
        };
        auto h = c1_->forward(up(torch::relu(bn1_->forward(x, y))));
        h = c2_->forward(torch::relu(bn2_->forward(h, y)));
        return h + sc_->forward(up(x));
    }
private:
    std::shared_ptr<CondBN> bn1_, bn2_;
    std::shared_ptr<SNConv> c1_, c2_, sc_;
};

class DBlock : public torch::nn::Module {
public:
    DBlock(int in, int out, bool down, bool preact) : down_(down), preact_(preact)
    {
        c1_ = register_module("conv1", std::make_shared<SNConv>(in, out, 3));
        c2_ = register_module("conv2", std::make_shared<SNConv>(out, out, 3));
        sc_ = register_module("shortcut", std::make_shared<SNConv>(in, out, 1));
    }
    torch::Tensor forward(const torch::Tensor& x)
    {
        auto h = preact_ ? torch::relu(x) : x;
        h = c2_->forward(torch::relu(c1_->forward(h)));
        auto s = sc_->forward(x);
        if (down_) {
            h = F::avg_pool2d(h, F::AvgPool2dFuncOptions(2));
            s = F::avg_pool2d(s, F::AvgPool2dFuncOptions(2));
        }
        return h + s;
    }
private:
    bool down_, preact_;
    std::shared_ptr<SNConv> c1_, c2_, sc_;
};

std::vector<int> bigganChannels(const ModelSpec& s)
{
    const int w = s.width;
    return s.resolution == 64 ? std::vector<int>{8 * w, 8 * w, 4 * w, 2 * w, w} : std::vector<int>{4 * w, 4 * w, 2 * w, w};
}

class BigganG : public GeneratorNet {
public:
    explicit BigganG(const ModelSpec& s) : ch_(bigganChannels(s))
    {
        linear_ = register_module("linear", std::make_shared<SNLinear>(s.zDim, ch_[0] * 16));
        for (size_t i = 0; i + 1 < ch_.size(); ++i) {
            blocks_.push_back(register_module("block" + std::to_string(i), std::make_shared<GBlock>(ch_[i], ch_[i + 1], s.numClasses)));
        }
        if (s.selfAttention) {
            // Attention sits after the block whose output is at half the output resolution.
            attnAt_ = int(ch_.size()) - 3;
            attn_ = register_module("attention", std::make_shared<SelfAttention>(ch_[attnAt_ + 1]));
        }
        bn_ = register_module("bn", torch::nn::BatchNorm2d(ch_.back()));
        out_ = register_module("out", std::make_shared<SNConv>(ch_.back(), s.outChannels, 3));
    }
    torch::Tensor forward(const torch::Tensor& z, const torch::Tensor& y) override
    {
        auto h = linear_->forward(z).view({z.size(0), ch_[0], 4, 4});
        for (size_t i = 0; i < blocks_.size(); ++i) {
            h = blocks_[i]->forward(h, y);
            if (attn_ && int(i) == attnAt_) h = attn_->forward(h);
        }
        return torch::tanh(out_->forward(torch::relu(bn_->forward(h))));
    }
private:
    std::vector<int> ch_;
    int attnAt_ = -1;
    std::shared_ptr<SNLinear> linear_;
    std::vector<std::shared_ptr<GBlock>> blocks_;
    std::shared_ptr<SelfAttention> attn_;
    torch::nn::BatchNorm2d bn_{nullptr};
    std::shared_ptr<SNConv> out_;
};

// Projection discriminator: score = linear(sum_hw relu(h)) + <embed(y), sum_hw relu(h)>.
class BigganD : public DiscriminatorNet {
public:
    explicit BigganD(const ModelSpec& s)
    {
        std::vector<int> ch = bigganChannels(s);
        std::reverse(ch.begin(), ch.end()); // w, 2w, 4w, ...
        int in = s.dInChannels;
        for (size_t i = 0; i < ch.size(); ++i) {
            const bool down = i + 2 < ch.size(); // the last two blocks stay at 4x4 ... 8x8
            blocks_.push_back(register_module("block" + std::to_string(i), std::make_shared<DBlock>(in, ch[i], down, i > 0)));
            in = ch[i];
            if (s.selfAttention && i == 0) attn_ = register_module("attention", std::make_shared<SelfAttention>(in));
        }
        linear_ = register_module("linear", std::make_shared<SNLinear>(in, 1));
        embed_ = register_module("embed", torch::nn::Embedding(s.numClasses, in));
    }
    torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& y) override
    {
        auto h = x;
        for (size_t i = 0; i < blocks_.size(); ++i) {
            h = blocks_[i]->forward(h);
            if (attn_ && i == 0) h = attn_->forward(h);
        }
        h = torch::relu(h).sum({2, 3});
        return linear_->forward(h).view({-1}) + (embed_->forward(y) * h).sum(1);
    }
private:
    std::vector<std::shared_ptr<DBlock>> blocks_;
    std::shared_ptr<SelfAttention> attn_;
    std::shared_ptr<SNLinear> linear_;
    torch::nn::Embedding embed_{nullptr};
};

} // namespace

std::shared_ptr<GeneratorNet> makeGenerator(const ModelSpec& s)
{
    if (s.kind == "dcgan") return std::make_shared<DcganG>(s);
    if (s.kind == "biggan") return std::make_shared<BigganG>(s);
    return std::make_shared<MlpG>(s);
}

std::shared_ptr<DiscriminatorNet> makeDiscriminator(const ModelSpec& s)
{
    if (s.kind == "dcgan") {
        if (s.dNorm == DNorm::Batch || s.dNorm == DNorm::BatchDetached || s.dNorm == DNorm::BatchReal) return std::make_shared<DcganD>(s);
        return std::make_shared<DcganPlainD>(s);
    }
    if (s.kind == "biggan") return std::make_shared<BigganD>(s);
    if (s.dNorm == DNorm::Spectral) return std::make_shared<MlpSnD>(s);
    return std::make_shared<MlpD>(s);
}

void copyModule(torch::nn::Module& to, const torch::nn::Module& from)
{
    torch::NoGradGuard ng;
    auto tp = to.parameters(), fp = from.parameters();
    for (size_t i = 0; i < tp.size(); ++i) tp[i].copy_(fp[i]);
    auto tb = to.buffers(), fb = from.buffers();
    for (size_t i = 0; i < tb.size(); ++i) tb[i].copy_(fb[i]);
}

void emaUpdate(torch::nn::Module& to, const torch::nn::Module& from, double decay)
{
    torch::NoGradGuard ng;
    auto tp = to.parameters(), fp = from.parameters();
    for (size_t i = 0; i < tp.size(); ++i) tp[i].mul_(decay).add_(fp[i], 1.0 - decay);
    auto tb = to.buffers(), fb = from.buffers();
    for (size_t i = 0; i < tb.size(); ++i) tb[i].copy_(fb[i]);
}

void toChannelsLast(torch::nn::Module& m)
{
    torch::NoGradGuard ng;
    for (auto& p : m.parameters())
        if (p.dim() == 4) p.set_data(p.contiguous(torch::MemoryFormat::ChannelsLast));
}

LayoutChoice probeLayout(const ModelSpec& base, int batch, const std::string& layout, const std::string& pad)
{
    LayoutChoice c;
    if (base.kind == "mlp") return c; // no image tensors: nothing to choose
    c.measured = true;
    auto timeOne = [&](bool channelsLast, bool padded) {
        ModelSpec s = base;
        s.dInChannels = base.outChannels + (padded ? 1 : 0);
        torch::manual_seed(7);
        auto g = makeGenerator(s);
        auto d = makeDiscriminator(s);
        if (channelsLast) { toChannelsLast(*g); toChannelsLast(*d); }
        const auto z = torch::randn({batch, s.zDim});
        const auto y = torch::zeros({batch}, torch::kLong);
        double best = 1e30;
        for (int rep = 0; rep < 3; ++rep) { // the first repeat warms up the allocator
            const auto t0 = std::chrono::steady_clock::now();
            auto x = g->forward(z, y);
            if (padded) x = F::pad(x, F::PadFuncOptions({0, 0, 0, 0, 0, 1}));
            if (channelsLast) x = x.contiguous(torch::MemoryFormat::ChannelsLast);
            d->forward(x, y).mean().backward();
            const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            if (rep > 0) best = std::min(best, ms);
        }
        return best;
    };
    const bool tryLayout = layout == "auto", tryPad = pad == "auto";
    const bool forcedCl = layout == "channels_last", forcedPad = pad == "on";
    // Memory format first (unpadded unless padding is forced), then padding in the winner.
    if (tryLayout) {
        c.contiguousMs = timeOne(false, forcedPad);
        c.channelsLastMs = timeOne(true, forcedPad);
        c.channelsLast = c.channelsLastMs < c.contiguousMs;
    } else {
        c.channelsLast = forcedCl;
    }
    if (tryPad) {
        c.unpaddedMs = tryLayout ? (c.channelsLast ? c.channelsLastMs : c.contiguousMs) : timeOne(c.channelsLast, false);
        c.paddedMs = timeOne(c.channelsLast, true);
        c.padChannels = c.paddedMs < c.unpaddedMs;
    } else {
        c.padChannels = forcedPad;
    }
    return c;
}

} // namespace tapas::runtime::gan
