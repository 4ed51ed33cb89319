#pragma once
// The steady-state step of a run launched several times (`tapas bench run`): every launch's steps
// after its first `warmup`, pooled, and their median. Not the fastest launch's median, which
// picks the launch that met the fewest interruptions and moves with luck from run to run.
#include <algorithm>
#include <vector>

namespace tapas {

struct PooledSteps {
    double median = 0; // of the pooled steps; an even count averages the two middles
    double spread = 0; // slowest launch's median / fastest launch's (1: steady launches)
    int steps = 0;     // how many steps the median is over
};

// The median of v (an even count averages the two middles); 0 for none.
inline double middleOf(std::vector<double> v)
{
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

inline PooledSteps poolAfterWarmup(const std::vector<std::vector<double>>& launches, int warmup)
{
    PooledSteps p;
    std::vector<double> all;
    double fastest = 0, slowest = 0;
    for (size_t i = 0; i < launches.size(); ++i) {
        const auto& v = launches[i];
        const std::vector<double> kept(v.begin() + std::min<size_t>(size_t(std::max(warmup, 0)), v.size()), v.end());
        const double m = middleOf(kept);
        fastest = i == 0 ? m : std::min(fastest, m);
        slowest = std::max(slowest, m);
        all.insert(all.end(), kept.begin(), kept.end());
    }
    p.median = middleOf(all);
    p.steps = int(all.size());
    p.spread = fastest > 0 ? slowest / fastest : 0;
    return p;
}

} // namespace tapas
