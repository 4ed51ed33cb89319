#include "runtime/exec/adam_update.h"

#include <torch/torch.h>

#include <cmath>
#include <stdexcept>

namespace tapas::runtime {

namespace {

// The loop the compiler vectorises (runtime/CMakeLists.txt builds this file without errno
// for sqrt); on x86-64 an AVX2 copy is picked at load time where the CPU has it.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
void adamLoop(float* __restrict p, const float* __restrict g, float* __restrict m, float* __restrict v, int64_t n,
              float b1, float b2, float oneMinusB1, float oneMinusB2, float eps, float stepSize, float rootC2)
{
    for (int64_t i = 0; i < n; ++i) {
        const float gi = g[i];
        const float mi = b1 * m[i] + oneMinusB1 * gi;
        const float vi = b2 * v[i] + oneMinusB2 * gi * gi;
        m[i] = mi;
        v[i] = vi;
        p[i] -= stepSize * mi / (std::sqrt(vi) / rootC2 + eps);
    }
}

} // namespace

void adamUpdate(torch::Tensor& weight, const torch::Tensor& grad, torch::Tensor& m, torch::Tensor& v, int64_t step,
                const AdamSettings& a)
{
    for (const torch::Tensor* t : std::initializer_list<const torch::Tensor*>{&weight, &grad, &m, &v})
        if (t->scalar_type() != torch::kFloat32 || !t->is_contiguous() || t->numel() != weight.numel())
            throw std::invalid_argument("adamUpdate: weight, gradient and moments must be contiguous fp32 of one size");
    // m / c1 / (sqrt(v / c2) + eps) * lr, with the corrections folded into two constants; every
    // constant is worked out in double and rounded once, as torch rounds a double scalar.
    const float stepSize = float(a.lr / (1 - std::pow(a.beta1, double(step))));
    const float rootC2 = float(std::sqrt(1 - std::pow(a.beta2, double(step))));
    adamLoop(weight.data_ptr<float>(), grad.data_ptr<float>(), m.data_ptr<float>(), v.data_ptr<float>(), weight.numel(),
             float(a.beta1), float(a.beta2), float(1 - a.beta1), float(1 - a.beta2), float(a.eps), stepSize, rootC2);
}

} // namespace tapas::runtime
