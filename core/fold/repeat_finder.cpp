#include "core/fold/repeat_finder.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace tapas {

namespace {

constexpr double kResemblance = 0.8; // op-mix similarity for a leftover piece to count as a block
// Units up to which every period is tried. Each period costs a scan of the whole stretch, so
// trying all of them is quadratic: at 4096 the 1,536-layer GPT (about 3,100 units) spent 5% of its
// fold here, and the share grew with depth. Real exports stay far below (the corpus's largest
// region has 235 units).
constexpr int kScanAllPeriods = 512;
using OpMix = std::vector<std::pair<uint64_t, int>>;

OpMix mixOf(const std::vector<RepeatUnit>& units, int begin, int end)
{
    std::map<uint64_t, int> counts;
    for (int i = begin; i < end; ++i)
        for (const auto& [op, n] : units[size_t(i)].ops) counts[op] += n;
    return {counts.begin(), counts.end()};
}

class Finder {
public:
    explicit Finder(const std::vector<RepeatUnit>& units) : u_(units), prefix_(units.size() + 1, 0)
    {
        for (size_t i = 0; i < units.size(); ++i) prefix_[i + 1] = prefix_[i] + units[i].nodes;
    }

    std::vector<BlockSpan> run()
    {
        search(0, int(u_.size()));
        std::sort(repeats_.begin(), repeats_.end(), [](const BlockSpan& a, const BlockSpan& b) { return a.begin < b.begin; });
        std::vector<BlockSpan> out;
        int at = 0;
        for (const BlockSpan& r : repeats_) {
            if (r.begin > at) partitionLeftover(at, r.begin, out);
            out.push_back(r);
            at = r.end;
        }
        if (at < int(u_.size())) partitionLeftover(at, int(u_.size()), out);
        return out;
    }

private:
    int64_t nodes(int begin, int end) const { return prefix_[size_t(end)] - prefix_[size_t(begin)]; }

    void search(int lo, int hi)
    {
        const int n = hi - lo;
        if (n < 2) return;
        int64_t bestCovered = 0;
        int bestPeriod = 0, bestStart = 0, bestCopies = 0;
        const int64_t all = nodes(lo, hi);
        for (int p : periods(lo, hi)) {
            if (bestCovered == all) break; // a longer period can only tie, and ties keep the shorter
            int i = lo;
            while (i + p < hi) {
                if (u_[size_t(i)].hash != u_[size_t(i + p)].hash) {
                    ++i;
                    continue;
                }
                const int a = i;
                while (i + p < hi && u_[size_t(i)].hash == u_[size_t(i + p)].hash) ++i;
                const int length = i - a + p;
                const int copies = length / p;
                if (copies < 2) continue;
                const int start = a + (length - copies * p); // aligned to the stretch's end
                const int64_t covered = nodes(start, start + copies * p);
                // Strictly more nodes wins; periods grow, so ties keep the smaller period.
                if (covered > bestCovered) {
                    bestCovered = covered;
                    bestPeriod = p;
                    bestStart = start;
                    bestCopies = copies;
                }
            }
        }
        if (bestCopies < 2) return;
        std::vector<int> starts = chunkStarts(bestStart, bestPeriod);
        starts.push_back(bestPeriod);
        for (int c = 0; c < bestCopies; ++c) {
            for (size_t k = 0; k + 1 < starts.size(); ++k) {
                const int b = bestStart + c * bestPeriod + starts[k], e = bestStart + c * bestPeriod + starts[k + 1];
                repeats_.push_back(BlockSpan{b, e, true, runs_, c});
                if (c == 0) templates_.push_back({mixOf(u_, b, e), nodes(b, e)});
            }
        }
        ++runs_;
        search(lo, bestStart);
        search(bestStart + bestCopies * bestPeriod, hi);
    }

    // Periods worth scanning, ascending. Every one up to kScanAllPeriods units; beyond that, the
    // distances from each unit to the next two units of its kind (a period holds a kind once or
    // twice in practice), so that a long chain folds in time linear in its length.
    std::vector<int> periods(int lo, int hi) const
    {
        const int n = hi - lo;
        std::vector<int> out;
        if (n <= kScanAllPeriods) {
            for (int p = 1; p <= n / 2; ++p) out.push_back(p);
            return out;
        }
        std::unordered_map<uint64_t, std::pair<int, int>> seen; // hash -> last two positions
        std::vector<char> wanted(size_t(n / 2) + 1, 0);
        for (int i = hi - 1; i >= lo; --i) {
            auto [it, added] = seen.try_emplace(u_[size_t(i)].hash, std::make_pair(-1, -1));
            auto& [next, second] = it->second;
            if (next >= 0 && next - i <= n / 2) wanted[size_t(next - i)] = 1;
            if (second >= 0 && second - i <= n / 2) wanted[size_t(second - i)] = 1;
            second = next;
            next = i;
        }
        for (int p = 1; p <= n / 2; ++p)
            if (wanted[size_t(p)]) out.push_back(p);
        return out;
    }

    // Where the period's chunks start: before every unit equal to its first one. Chunks may
    // differ in length (a dense layer, then a longer MoE layer).
    std::vector<int> chunkStarts(int start, int period) const
    {
        std::vector<int> out{0};
        for (int j = 1; j < period; ++j)
            if (u_[size_t(start + j)].hash == u_[size_t(start)].hash) out.push_back(j);
        return out;
    }

    // Dynamic programme over [lo, hi): the most resemblance-weighted nodes in pieces that look
    // like a repeated block; the rest becomes maximal stretches.
    void partitionLeftover(int lo, int hi, std::vector<BlockSpan>& out) const
    {
        const int n = hi - lo;
        std::vector<double> best(size_t(n) + 1, 0.0);
        std::vector<int> from(size_t(n) + 1, -1);
        int64_t maxTemplate = 0;
        for (const auto& t : templates_) maxTemplate = std::max(maxTemplate, t.second);
        for (int i = 1; i <= n; ++i) {
            best[size_t(i)] = best[size_t(i - 1)];
            from[size_t(i)] = -1;
            if (templates_.empty()) continue;
            std::map<uint64_t, int> counts;
            for (int j = i - 1; j >= 0; --j) {
                for (const auto& [op, c] : u_[size_t(lo + j)].ops) counts[op] += c;
                const int64_t pieceNodes = nodes(lo + j, lo + i);
                if (pieceNodes > 2 * maxTemplate) break;
                const OpMix mix(counts.begin(), counts.end());
                double bestSim = 0;
                for (const auto& [tmix, tnodes] : templates_) {
                    if (2 * pieceNodes < tnodes || pieceNodes > 2 * tnodes) continue;
                    bestSim = std::max(bestSim, opMixSimilarity(mix, tmix));
                }
                if (bestSim < kResemblance) continue;
                const double w = best[size_t(j)] + bestSim * double(pieceNodes);
                if (w > best[size_t(i)] + 1e-9) {
                    best[size_t(i)] = w;
                    from[size_t(i)] = j;
                }
            }
        }
        std::vector<BlockSpan> pieces;
        int i = n, openEnd = -1;
        while (i > 0) {
            if (from[size_t(i)] >= 0) {
                if (openEnd >= 0) {
                    pieces.push_back(BlockSpan{lo + i, lo + openEnd, false});
                    openEnd = -1;
                }
                pieces.push_back(BlockSpan{lo + from[size_t(i)], lo + i, false});
                i = from[size_t(i)];
            } else {
                if (openEnd < 0) openEnd = i;
                --i;
            }
        }
        if (openEnd >= 0) pieces.push_back(BlockSpan{lo, lo + openEnd, false});
        out.insert(out.end(), pieces.rbegin(), pieces.rend());
    }

    const std::vector<RepeatUnit>& u_;
    std::vector<int64_t> prefix_;
    std::vector<BlockSpan> repeats_;
    int runs_ = 0;
    std::vector<std::pair<OpMix, int64_t>> templates_;
};

} // namespace

double opMixSimilarity(const OpMix& a, const OpMix& b)
{
    int64_t ta = 0, tb = 0, shared = 0;
    for (const auto& x : a) ta += x.second;
    for (const auto& x : b) tb += x.second;
    size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (a[i].first < b[j].first) ++i;
        else if (b[j].first < a[i].first) ++j;
        else shared += std::min(a[i++].second, b[j++].second);
    }
    const int64_t larger = std::max(ta, tb);
    return larger ? double(shared) / double(larger) : 0.0;
}

std::vector<BlockSpan> findBlocks(const std::vector<RepeatUnit>& units)
{
    return Finder(units).run();
}

} // namespace tapas
