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

// Calls fill(flat start, count) for each contiguous run of the piece, in the piece's order.
template <typename Fill>
std::vector<int64_t> forEachRun(const std::vector<int64_t>& shape, int axis, int64_t index, int64_t pieces, Fill fill)
{
    std::vector<int64_t> local = shape;
    if (axis < 0 || axis >= int(shape.size()) || pieces <= 1) {
        int64_t n = 1;
        for (int64_t d : shape) n *= d;
        fill(0, n);
        return local;
    }
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= shape[size_t(d)];
    for (size_t d = size_t(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
    const int64_t len = shape[size_t(axis)], part = len / pieces;
    local[size_t(axis)] = part;
    for (int64_t o = 0; o < outer; ++o) fill((o * len + index * part) * inner, part * inner);
    return local;
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
    std::vector<std::pair<int64_t, int64_t>> runs; // (flat start, count), in destination order
    std::vector<int64_t> local = forEachRun(shape, axis, index, pieces, [&](int64_t s, int64_t n) { runs.emplace_back(s, n); });
    torch::Tensor t = torch::empty(local, torch::kFloat32);
    float* p = t.data_ptr<float>();
    for (const auto& [s, n] : runs) {
        fillNormal(seed, s, n, stddev, p);
        p += n;
    }
    return t;
}

torch::Tensor seededIntsPiece(uint64_t seed, const std::vector<int64_t>& shape, int64_t high, int axis, int64_t index,
                              int64_t pieces)
{
    std::vector<std::pair<int64_t, int64_t>> runs;
    std::vector<int64_t> local = forEachRun(shape, axis, index, pieces, [&](int64_t s, int64_t n) { runs.emplace_back(s, n); });
    torch::Tensor t = torch::empty(local, torch::kLong);
    int64_t* p = t.data_ptr<int64_t>();
    for (const auto& [s, n] : runs) {
        fillInts(seed, s, n, high, p);
        p += n;
    }
    return t;
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
