#pragma once
// The GAN objectives (torch; include only from runtime/gan's torch TUs and the tests): D's loss,
// G's non-saturating loss and the R1 penalty, each a function of D's scores so that a test can
// check them against a hand-computed value on a tiny D.
#include <torch/torch.h>

#include <string>

namespace tapas::runtime::gan {

// D's loss on its raw scores (logits): bce -log sigmoid(real) - log(1 - sigmoid(fake)), or hinge.
// "minimax" is bce for D (the two differ in G's loss only).
inline torch::Tensor discriminatorLoss(const std::string& loss, const torch::Tensor& real, const torch::Tensor& fake)
{
    namespace F = torch::nn::functional;
    if (loss == "hinge") return torch::relu(1.0 - real).mean() + torch::relu(1.0 + fake).mean();
    return F::softplus(-real).mean() + F::softplus(fake).mean();
}

// G's loss on D's scores of its samples: non-saturating -log sigmoid(score), hinge's -score, or
// minimax's saturating mean log(1 - sigmoid(score)) = -softplus(score) (Goodfellow et al. 2014),
// which is minus D's fake-half loss exactly: G's gradient at its batch is -1 x D's fake half's,
// whatever D does across the batch (`--single-d-backward` with a batch-norm D relies on it).
inline torch::Tensor generatorLoss(const std::string& loss, const torch::Tensor& score)
{
    namespace F = torch::nn::functional;
    if (loss == "minimax") return -F::softplus(score).mean();
    return loss == "hinge" ? -score.mean() : F::softplus(-score).mean();
}

// R1 (Mescheder et al. 2018): gamma/2 x the mean over the batch of |grad_x D(x)|^2 at real points.
// `scores` are D's outputs on `real`, which must require grad; the graph is kept (create_graph)
// so that the penalty's own gradient reaches D's weights.
inline torch::Tensor r1Penalty(const torch::Tensor& scores, const torch::Tensor& real, double gamma)
{
    const auto grad = torch::autograd::grad({scores.sum()}, {real}, {}, /*retain_graph=*/true, /*create_graph=*/true)[0];
    return 0.5 * gamma * grad.pow(2).flatten(1).sum(1).mean();
}

} // namespace tapas::runtime::gan
