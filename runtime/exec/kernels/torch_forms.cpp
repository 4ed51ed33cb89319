#include "runtime/exec/kernels/torch_forms.h"

#include <torch/torch.h>

#include <limits>

namespace tapas::runtime {

torch::Tensor clampBetween(const torch::Tensor& x, std::optional<double> lo, std::optional<double> hi)
{
    constexpr double inf = std::numeric_limits<double>::infinity();
    return torch::hardtanh(x, lo.value_or(-inf), hi.value_or(inf));
}

torch::Tensor inferenceBatchNorm(const torch::Tensor& x, const torch::Tensor& scale, const torch::Tensor& shift,
                                 const torch::Tensor& mean, const torch::Tensor& var, double eps)
{
    std::vector<int64_t> perChannel(size_t(x.dim()), 1);
    perChannel[1] = -1;
    auto b = [&](const torch::Tensor& p) { return p.reshape(perChannel); };
    return (x - b(mean)) / (b(var) + eps).sqrt() * b(scale) + b(shift);
}

} // namespace tapas::runtime
