#pragma once
// Finds repeated blocks in one region's sequence of segments (the string of segment
// signatures along the spine) and cuts the whole sequence into blocks.
//
// 1. Tandem repeats: for every period p, each maximal stretch where unit i equals unit i+p gives
//    r = floor(length / p) copies. The repeat covering most nodes wins (ties: the smaller
//    period, so a 2-segment transformer layer is one block, not a pair of layers), the stretch
//    left and right of it is searched again, recursively.
// 2. Phase: a stretch longer than r·p copies is aligned to its end. Sequences tend to agree
//    on a boundary *before* a block (a post-norm embedding ends with the LayerNorm every BERT
//    layer ends with; a ResNet stem's ReLU matches every block's last ReLU), rarely after one.
// 3. A period is split before every unit equal to its first one: [attention, dense MLP,
//    attention, MoE] becomes a dense layer and an MoE layer, two classes that alternate, as a
//    user reads the model, even when the MoE layer is cut into more segments than the dense one.
// 4. What no repeat covers is cut into pieces that resemble a repeated block (the first,
//    down-sampling block of a ResNet stage: same op mix, one more Conv, other shapes) and
//    maximal stretches of anything else, so such blocks appear as classes of their own.
#include <cstdint>
#include <utility>
#include <vector>

namespace tapas {

struct RepeatUnit {
    uint64_t hash = 0;
    int nodes = 0;
    std::vector<std::pair<uint64_t, int>> ops; // op-type hash -> count, sorted by hash
};

struct BlockSpan {
    int begin = 0, end = 0; // units [begin, end)
    bool repeated = false;  // part of a tandem repeat
    int run = -1;           // which tandem repeat (spans of one run share it), or -1
    int copy = -1;          // which copy of the run's period
};

// Spans in order, covering [0, units.size()) without gaps.
std::vector<BlockSpan> findBlocks(const std::vector<RepeatUnit>& units);

// Similarity of two op-type mixes in [0, 1]: shared ops over the larger total.
double opMixSimilarity(const std::vector<std::pair<uint64_t, int>>& a,
                       const std::vector<std::pair<uint64_t, int>>& b);

} // namespace tapas
