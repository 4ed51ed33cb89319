#pragma once
// Extrapolation from the past (Popov 1980; Gidel et al. 2019, "A Variational Inequality
// Perspective on Generative Adversarial Networks", their PastExtra-Adam) for one player: its
// gradient is taken at θ_t + (θ_t − θ_{t−1}), its last update repeated once more, while the update
// itself still starts from θ_t. For the simultaneous step of the shared D forward (both players'
// gradients from one point) it predicts where the other player is going instead of reading where
// it was. Torch: include only from runtime/gan's torch TUs (the trainer).
#include <torch/torch.h>

#include <utility>
#include <vector>

namespace tapas::runtime::gan {

class PastExtrapolation {
public:
    // θ_{−1} = θ_0: the first step (and the first after a resume) is not extrapolated.
    explicit PastExtrapolation(torch::nn::Module& m) : params_(m.parameters())
    {
        torch::NoGradGuard ng;
        for (const auto& p : params_) {
            prev_.push_back(p.detach().clone());
            cur_.push_back(torch::empty_like(p));
        }
    }
    // Moves the weights to 2 θ_t − θ_{t−1} for the forward and backward that follow.
    void enter()
    {
        torch::NoGradGuard ng;
        for (size_t i = 0; i < params_.size(); ++i) {
            cur_[i].copy_(params_[i]);
            params_[i].mul_(2).sub_(prev_[i]);
        }
        inside_ = true;
    }
    // Back to θ_t, where the optimizer applies the gradient; θ_t is the next step's θ_{t−1}.
    void leave()
    {
        if (!inside_) return;
        torch::NoGradGuard ng;
        for (size_t i = 0; i < params_.size(); ++i) params_[i].copy_(cur_[i]);
        std::swap(prev_, cur_);
        inside_ = false;
    }

private:
    std::vector<torch::Tensor> params_, prev_, cur_;
    bool inside_ = false;
};

} // namespace tapas::runtime::gan
