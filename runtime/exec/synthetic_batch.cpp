#include "runtime/exec/synthetic_batch.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>

namespace tapas::runtime {

namespace {

constexpr uint64_t kGolden = 0x9e3779b97f4a7c15ull;

// The stream's i-th uniform in (0, 1): splitmix64 of seed + (i + 1) * golden.
double uniformAt(uint64_t seed, int64_t i)
{
    uint64_t z = seed + uint64_t(i + 1) * kGolden;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double(z >> 11) + 0.5) / 9007199254740992.0;
}

// Elements [first, first + count) of the normal sequence: element j is the cosine (j even) or
// sine (j odd) half of the Box-Muller pair drawn from uniforms j & ~1 and (j & ~1) + 1.
void fillNormal(uint64_t seed, int64_t first, int64_t count, double stddev, float* out)
{
    const int64_t end = first + count;
    for (int64_t j = first; j < end;) {
        const int64_t pair = j & ~int64_t(1);
        const double r = std::sqrt(-2 * std::log(uniformAt(seed, pair))), a = 2 * M_PI * uniformAt(seed, pair + 1);
        const double c = std::cos(a), s = std::sin(a); // one sincos call
        if (j == pair) *out++ = float(stddev * r * c), ++j;
        if (j < end) *out++ = float(stddev * r * s), ++j;
    }
}

void fillInts(uint64_t seed, int64_t first, int64_t count, int64_t high, int64_t* out)
{
    for (int64_t i = 0; i < count; ++i)
        out[i] = std::min<int64_t>(high - 1, int64_t(uniformAt(seed, first + i) * double(high)));
}

// The piece as a tensor of `type`: fill(flat start, count, destination) for each contiguous run
// of it in the whole tensor, in the piece's order.
template <typename T, typename Fill>
torch::Tensor piece(const std::vector<int64_t>& shape, int axis, int64_t index, int64_t pieces, torch::ScalarType type,
                    Fill fill)
{
    std::vector<int64_t> local = shape;
    int64_t outer = 1, len = 1, inner = 1, part = 1;
    if (axis < 0 || axis >= int(shape.size()) || pieces <= 1) {
        for (int64_t d : shape) inner *= d;
        index = 0;
    } else {
        for (int d = 0; d < axis; ++d) outer *= shape[size_t(d)];
        for (size_t d = size_t(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
        len = shape[size_t(axis)];
        part = len / pieces;
        local[size_t(axis)] = part;
    }
    torch::Tensor t = torch::empty(local, type);
    T* out = t.data_ptr<T>();
    for (int64_t o = 0; o < outer; ++o, out += part * inner) fill((o * len + index * part) * inner, part * inner, out);
    return t;
}

} // namespace

uint64_t mixSeed(uint64_t a, uint64_t b)
{
    uint64_t z = a ^ (b + kGolden + (a << 6) + (a >> 2));
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t hashName(const std::string& s)
{
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    return h;
}

torch::Tensor seededNormalPiece(uint64_t seed, const std::vector<int64_t>& shape, double stddev, int axis,
                                int64_t index, int64_t pieces)
{
    return piece<float>(shape, axis, index, pieces, torch::kFloat32,
                        [&](int64_t first, int64_t n, float* out) { fillNormal(seed, first, n, stddev, out); });
}

torch::Tensor seededIntsPiece(uint64_t seed, const std::vector<int64_t>& shape, int64_t high, int axis, int64_t index,
                              int64_t pieces)
{
    return piece<int64_t>(shape, axis, index, pieces, torch::kLong,
                          [&](int64_t first, int64_t n, int64_t* out) { fillInts(seed, first, n, high, out); });
}

torch::Tensor seededNormal(uint64_t seed, const std::vector<int64_t>& shape, double stddev)
{
    return seededNormalPiece(seed, shape, stddev, -1, 0, 1);
}

torch::Tensor seededInts(uint64_t seed, const std::vector<int64_t>& shape, int64_t high)
{
    return seededIntsPiece(seed, shape, high, -1, 0, 1);
}

} // namespace tapas::runtime
