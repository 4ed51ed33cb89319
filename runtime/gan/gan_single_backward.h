#pragma once
// One backward pass through D for both players (`--single-d-backward`, docs/paragan.md, "One
// backward through D"). Torch; include only from runtime/gan's torch TUs and the tests.
//
// Where nothing in D mixes the samples of a batch (no batch norm), D's score of fake j, s_j,
// depends on that fake alone, so the gradient of any loss L(s) with respect to fake j's pixels is
// J_j^T dL/ds_j, J_j the Jacobian of s_j in them. D's fake loss and G's loss differ only in the
// number dL/ds_j: for the non-saturating bce pair sigmoid(s_j)/N and -sigmoid(-s_j)/N, for hinge
// [s_j > -1]/N and -1/N. So the input gradient that D's own backward pass produces on the fake
// half, times the per-score ratio (dL_G/ds_j) / (dL_D/ds_j), is G's: exactly, without the second
// pass back through D. Where D's number is 0 or underflows (hinge beyond the margin, a bce score
// far below zero) the ratio does not exist and the caller takes the two-pass route for that step.
// The minimax (saturating) G loss is minus D's fake-half loss as a function of the whole fake
// batch, so its factor is -1 for every sample, exact even for a D that mixes the samples (batch
// norm), and exists at every score (G's gradient vanishes exactly where D's does).
#include <torch/torch.h>

#include <string>
#include <vector>

namespace tapas::runtime::gan {

// dL/ds per fake score for D's loss and for G's (discriminatorLoss, generatorLoss), times N.
struct FakeScoreGrads {
    torch::Tensor d, g;
};

inline FakeScoreGrads fakeScoreGrads(const std::string& loss, const torch::Tensor& fakeScores)
{
    torch::NoGradGuard ng;
    const auto s = fakeScores.detach();
    if (loss == "hinge") return {(s > -1.0).to(s.scalar_type()), -torch::ones_like(s)};
    if (loss == "minimax") return {torch::sigmoid(s), -torch::sigmoid(s)};
    return {torch::sigmoid(s), -torch::sigmoid(-s)};
}

// The factor per fake sample (shaped to broadcast over a batch of `sampleDims`-D samples) that turns
// D's fake-loss input gradient into G's; `samplesPerScore` consecutive samples share a score
// (PacGAN's packs). Undefined where D's number is below 1e-20 for some score: there D's gradient
// carries too little of J_j (nothing, for hinge) to be scaled back up without loss.
inline torch::Tensor gInputGradFactor(const std::string& loss, const torch::Tensor& fakeScores, int64_t samplesPerScore,
                                      int64_t sampleDims)
{
    torch::NoGradGuard ng;
    torch::Tensor r;
    if (loss == "minimax") {
        r = -torch::ones({fakeScores.numel()}, fakeScores.options());
    } else {
        const FakeScoreGrads k = fakeScoreGrads(loss, fakeScores);
        if ((k.d.abs() < 1e-20).any().item<bool>()) return {};
        r = (k.g / k.d).reshape({-1});
    }
    if (samplesPerScore > 1) r = r.repeat_interleave(samplesPerScore);
    std::vector<int64_t> shape{r.size(0)};
    for (int64_t i = 1; i < sampleDims; ++i) shape.push_back(1);
    return r.view(shape);
}

// D's loss backward once: D's weight gradients accumulate into their .grad (as backward() does)
// and the returned tensor is G's loss's gradient at `fake` (the batch G made, before whatever
// reshaping D's input takes), D's input gradient there times `factor` (gInputGradFactor).
// `fake` must be part of the graph of `dLoss`; G's graph below it is left for the caller's backward.
inline torch::Tensor backwardDOnce(const torch::Tensor& dLoss, const std::vector<torch::Tensor>& dParams,
                                   const torch::Tensor& fake, const torch::Tensor& factor)
{
    std::vector<torch::Tensor> inputs = dParams;
    inputs.push_back(fake);
    const auto grads = torch::autograd::grad({dLoss}, inputs, {}, /*retain_graph=*/false, /*create_graph=*/false,
                                             /*allow_unused=*/true);
    for (size_t i = 0; i < dParams.size(); ++i) {
        if (!grads[i].defined()) continue;
        torch::Tensor p = dParams[i];
        if (p.grad().defined()) p.mutable_grad().add_(grads[i]);
        else p.mutable_grad() = grads[i];
    }
    return grads.back() * factor;
}

} // namespace tapas::runtime::gan
