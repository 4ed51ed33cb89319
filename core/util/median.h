#pragma once
// The median of measured samples, shared by the calibration and the benchmarks. It is always one
// of the samples (no averaging of the two middles), so a figure printed or stored is a time or a
// rate that was actually measured; the caller says which middle an even count takes.
#include <algorithm>
#include <vector>

namespace tapas {

enum class EvenMiddle {
    Upper, // v[n/2]
    Lower, // v[(n-1)/2]: of times, the faster middle; of rates, the slower (the conservative rate)
};

// 0 for no samples.
inline double median(std::vector<double> v, EvenMiddle even = EvenMiddle::Upper)
{
    if (v.empty()) return 0;
    const auto mid = v.begin() + static_cast<std::ptrdiff_t>(even == EvenMiddle::Upper ? v.size() / 2 : (v.size() - 1) / 2);
    std::nth_element(v.begin(), mid, v.end());
    return *mid;
}

} // namespace tapas
