#include "runtime/exec/sharded_adam.h"

#include <torch/torch.h>

#include <chrono>
#include <stdexcept>

namespace tapas::runtime {

namespace {

double secondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void checkFlat(const torch::Tensor& t, int64_t length, const char* what)
{
    if (t.scalar_type() != torch::kFloat32 || !t.is_contiguous() || t.dim() != 1 || t.numel() != length)
        throw std::invalid_argument(std::string("sharded Adam: the flat ") + what + " must be contiguous fp32 of " +
                                    std::to_string(length) + " elements");
}

} // namespace

int64_t ShardedAdam::paddedLength(int64_t n, int dp)
{
    if (dp < 1) throw std::invalid_argument("sharded Adam: a data-parallel group of " + std::to_string(dp));
    return (n + dp - 1) / dp * dp;
}

ShardedAdam::ShardedAdam(Communicator& dp, int64_t length) : comm_(dp)
{
    if (length % dp.size() != 0)
        throw std::invalid_argument("sharded Adam: " + std::to_string(length) + " elements do not split over dp " +
                                    std::to_string(dp.size()));
    length_ = length / dp.size();
    begin_ = length_ * dp.rank();
    m_ = torch::zeros({length_}, torch::kFloat32);
    v_ = torch::zeros({length_}, torch::kFloat32);
}

void ShardedAdam::reduceGradients(torch::Tensor& flatGrads, double& seconds)
{
    checkFlat(flatGrads, length_ * comm_.size(), "gradients");
    if (length_ == 0) return;
    const auto start = std::chrono::steady_clock::now();
    float* all = flatGrads.data_ptr<float>();
    comm_.reduceScatterSum(all, size_t(length_), all + begin_);
    seconds += secondsSince(start);
}

void ShardedAdam::update(torch::Tensor& flatParams, const torch::Tensor& flatGrads, int64_t step, const AdamSettings& a,
                         double& seconds)
{
    checkFlat(flatParams, length_ * comm_.size(), "weights");
    checkFlat(flatGrads, length_ * comm_.size(), "gradients");
    if (length_ == 0) return;
    torch::Tensor mine = flatParams.narrow(0, begin_, length_);
    adamUpdate(mine, flatGrads.narrow(0, begin_, length_), m_, v_, step, a);
    const auto start = std::chrono::steady_clock::now();
    float* all = flatParams.data_ptr<float>();
    comm_.allGather(all + begin_, size_t(length_), all);
    seconds += secondsSince(start);
}

} // namespace tapas::runtime
