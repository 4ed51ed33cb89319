#pragma once
// The GAN networks (torch; include only from runtime/gan's torch TUs, never from a header that
// torch-free code includes): an MLP pair for the 2-D mixtures, DCGAN, and a BigGAN-style
// conditional pair (residual blocks, class-conditional batch norm, spectral norm, optional
// self-attention; hinge loss and the EMA of G live in the trainer).
#include <torch/torch.h>

#include <memory>
#include <string>

namespace tapas::runtime::gan {

// D's normalisation. Batch: batch norm after D's inner convolutions (dcgan, Radford et al.).
// Spectral: spectral norm on every layer (mlp, dcgan). Layer: layer norm (per sample) where the
// batch norm was (dcgan). BatchDetached: DCGAN's batch norm whose batch mean and variance are
// constants in the backward pass (stop-gradient), so the forward normalises as Batch does while
// the backward is per sample. BatchReal: DCGAN's batch norm on the real batch; a fake batch is
// normalised with the last real batch's statistics (constants), as reference batch norm does
// (Salimans et al. 2016), so a fake's score depends on that fake alone. Every one but Batch leaves
// D's backward mixing no samples of a fake batch.
enum class DNorm { None, Spectral, Batch, Layer, BatchDetached, BatchReal };

struct ModelSpec {
    std::string kind = "mlp"; // mlp | dcgan | biggan
    int zDim = 16;
    int width = 128;          // mlp hidden units, or image models' base channels
    int resolution = 32;      // image models: 32 | 64
    int outChannels = 2;      // mlp: 2 (a point); images: 3
    int dInChannels = 2;      // what D reads: 3, or 4 with channel padding
    int numClasses = 1;
    bool selfAttention = false;
    int gLayers = 3;          // mlp: G's hidden layers
    int gWidth = 128;         // mlp: G's hidden units
    DNorm dNorm = DNorm::Batch; // D's normalisation (--d-norm); mlp reads only Spectral
};

class GeneratorNet : public torch::nn::Module {
public:
    // z: N x zDim; y: N class ids (int64). Returns N x C x H x W (mlp: N x 2).
    virtual torch::Tensor forward(const torch::Tensor& z, const torch::Tensor& y) = 0;
};

class DiscriminatorNet : public torch::nn::Module {
public:
    // Returns N raw scores (logits).
    virtual torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& y) = 0;
    // The trainer says which half the next forwards judge: a D whose normalisation takes its
    // statistics from the real batch (DNorm::BatchReal) needs to know; every other D ignores it.
    virtual void setJudgingFakes(bool) {}
};

std::shared_ptr<GeneratorNet> makeGenerator(const ModelSpec& s);
std::shared_ptr<DiscriminatorNet> makeDiscriminator(const ModelSpec& s);

// Copies every parameter and buffer of `from` into `to` (same architecture).
void copyModule(torch::nn::Module& to, const torch::nn::Module& from);
// to = decay * to + (1 - decay) * from, for parameters; buffers are copied.
void emaUpdate(torch::nn::Module& to, const torch::nn::Module& from, double decay);
// Rewrites 4-D parameters into channels-last memory format (libtorch's Module::to has no
// memory-format overload).
void toChannelsLast(torch::nn::Module& m);

// Hardware-aware layout: the memory format and channel padding that run fastest here.
struct LayoutChoice {
    bool channelsLast = false;
    bool padChannels = false;
    double contiguousMs = 0, channelsLastMs = 0; // one D+G forward/backward, best of the repeats
    double paddedMs = 0, unpaddedMs = 0;
    bool measured = false;
};
// Times a D and G forward/backward on a batch of `batch` for the candidates not forced by
// `layout` (auto | contiguous | channels_last) and `pad` (auto | on | off).
LayoutChoice probeLayout(const ModelSpec& s, int batch, const std::string& layout, const std::string& pad);

} // namespace tapas::runtime::gan
