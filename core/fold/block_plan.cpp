#include "core/fold/block_plan.h"

#include "core/fold/structural_hash.h"

namespace tapas {

namespace {

constexpr int kMinPartNodes = 4; // smaller parts join the part before them (a lone Add is no sub-block)

} // namespace

BlockLayout layoutOf(const Segmentation& seg, const BlockPlan& block)
{
    BlockLayout out;
    if (block.explicitNodes()) {
        out.nodes = block.nodes;
        out.signature = block.signature;
        out.parts = block.parts;
        return out;
    }
    out.signature = hashMix(0xb10cULL, block.slices.size());
    for (const SegSlice& sl : block.slices) {
        const FoldSegment& fs = seg.segments[size_t(sl.segment)];
        uint64_t h = fs.hash;
        if (sl.begin != 0 || sl.end != int(fs.nodes.size())) h = hashMix(hashMix(h, uint64_t(sl.begin)), uint64_t(sl.end));
        out.signature = hashMix(out.signature, h);
        const int at = int(out.nodes.size());
        if (sl.end - sl.begin < kMinPartNodes && !out.parts.empty()) out.parts.back().second = hashMix(out.parts.back().second, h);
        else out.parts.emplace_back(at, h);
        out.nodes.insert(out.nodes.end(), fs.nodes.begin() + sl.begin, fs.nodes.begin() + sl.end);
    }
    return out;
}

} // namespace tapas
