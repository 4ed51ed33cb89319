#include "core/fold/segmenter.h"

#include "core/fold/post_dominators.h"
#include "core/fold/segment_refiner.h"
#include "core/fold/segment_signature.h"
#include "core/fold/tied_applications.h"

#include <algorithm>
#include <climits>
#include <memory>
#include <span>
#include <tuple>

namespace tapas {

namespace {

constexpr int kMaxCandidates = 4;  // entry nodes tried as the start of a region's spine
constexpr int kMaxSideDepth = 24;  // nested side regions before giving up on finer cuts
constexpr int kShared = -2;

// Ends in the order of the graph outputs they produce, then by structure.
void sortEnds(const CompactGraph& cg, const std::vector<uint64_t>& wl, std::vector<NodeId>& sinks)
{
    auto key = [&](NodeId v) {
        int first = INT_MAX;
        for (TensorId t : cg.outputs(v))
            if (t != kNoTensor && cg.outputIndex[size_t(t)] >= 0) first = std::min(first, cg.outputIndex[size_t(t)]);
        return std::make_tuple(first, wl[size_t(v)], v);
    };
    std::sort(sinks.begin(), sinks.end(), [&](NodeId a, NodeId b) { return key(a) < key(b); });
}

struct SegPlan {
    std::vector<NodeId> nodes;
    std::vector<NodeId> sinks;
};

struct RegionPlan {
    std::vector<SegPlan> segments;
    std::unique_ptr<RegionPlan> side;
    double score = 0;
};

class RegionSegmenter {
public:
    RegionSegmenter(const CompactGraph& cg, const std::vector<uint64_t>& wl, const std::vector<char>& useful)
        : cg_(cg), wl_(wl), useful_(useful), local_(cg.nodeCount, -1)
    {}

    // `region` is in topological order.
    std::unique_ptr<RegionPlan> segment(const std::vector<NodeId>& region, int depth)
    {
        Local L = buildLocal(region);
        auto plan = std::make_unique<RegionPlan>();
        if (depth > kMaxSideDepth) {
            std::vector<NodeId> real;
            for (NodeId v : region)
                if (v >= 0) real.push_back(v);
            SegPlan all{real, sinksOf(L, real)};
            plan->score = double(region.size()) * double(region.size());
            plan->segments.push_back(std::move(all));
            clearLocal(region);
            return plan;
        }
        const PostDomTree pdom = postDominators(L.dag);

        // Candidate spine starts: nodes without data predecessors in the region, deepest first.
        std::vector<int> roots;
        std::vector<char> hasPred(region.size(), 0);
        for (int u = 0; u < L.dag.size; ++u)
            for (int s : L.dag.succ(u)) hasPred[size_t(s)] = 1;
        for (int u = 0; u < L.dag.size; ++u)
            if (!hasPred[size_t(u)]) roots.push_back(u);
        // A graph input stands for the layer before the first one: a spine starting there cuts
        // the first layer where its twins are cut. Real entry nodes count only without inputs.
        if (std::any_of(roots.begin(), roots.end(), [&](int u) { return region[size_t(u)] < 0; }))
            roots.erase(std::remove_if(roots.begin(), roots.end(), [&](int u) { return region[size_t(u)] >= 0; }), roots.end());
        auto label = [&](int u) { return region[size_t(u)] < 0 ? uint64_t(0) : wl_[size_t(region[size_t(u)])]; };
        std::sort(roots.begin(), roots.end(), [&](int a, int b) {
            return std::make_tuple(-pdom.depth[size_t(a)], label(a), region[size_t(a)]) <
                   std::make_tuple(-pdom.depth[size_t(b)], label(b), region[size_t(b)]);
        });
        if (int(roots.size()) > kMaxCandidates) roots.resize(kMaxCandidates);

        std::unique_ptr<RegionPlan> best;
        for (int start : roots) {
            std::unique_ptr<RegionPlan> p = planFromSpine(L, pdom, region, start, depth);
            if (!best || p->score < best->score) best = std::move(p);
        }
        clearLocal(region);
        return best;
    }

private:
    struct Local {
        LocalDag dag;
    };

    Local buildLocal(const std::vector<NodeId>& region)
    {
        for (size_t i = 0; i < region.size(); ++i)
            if (region[i] >= 0) local_[size_t(region[i])] = int(i);
        Local L;
        L.dag.size = int(region.size());
        L.dag.succBegin.assign(region.size() + 1, 0);
        L.dag.toSink.assign(region.size(), 0);
        L.dag.topo.resize(region.size());
        std::vector<int>& list = L.dag.succList;
        for (size_t i = 0; i < region.size(); ++i) {
            L.dag.topo[i] = int(i);
            L.dag.succBegin[i] = uint32_t(list.size());
            bool outside = false;
            const TensorId virtualOut[1] = {region[i] < 0 ? cg_.ir.inputs[size_t(-region[i] - 2)] : kNoTensor};
            for (TensorId t : region[i] < 0 ? std::span<const TensorId>(virtualOut) : cg_.outputs(region[i])) {
                if (t == kNoTensor) continue;
                for (NodeId c : cg_.readers(t)) {
                    if (!useful_[size_t(c)]) continue;
                    const int lc = local_[size_t(c)];
                    if (lc < 0) outside = true;
                    else list.push_back(lc);
                }
            }
            const auto first = list.begin() + L.dag.succBegin[i];
            std::sort(first, list.end());
            list.erase(std::unique(first, list.end()), list.end());
            L.dag.toSink[i] = char(outside || list.end() == first);
        }
        L.dag.succBegin[region.size()] = uint32_t(list.size());
        // Nodes with an edge to the sink are the region's ends (for the canonical walk).
        return L;
    }

    void clearLocal(const std::vector<NodeId>& region)
    {
        for (NodeId v : region)
            if (v >= 0) local_[size_t(v)] = -1;
    }

    std::vector<NodeId> sinksOf(const Local& L, const std::vector<NodeId>& nodes)
    {
        std::vector<NodeId> sinks;
        for (NodeId v : nodes) {
            const int lv = local_[size_t(v)];
            if (lv >= 0 && L.dag.toSink[size_t(lv)]) sinks.push_back(v);
        }
        sortSinks(sinks);
        return sinks;
    }

    void sortSinks(std::vector<NodeId>& sinks) const { sortEnds(cg_, wl_, sinks); }

    std::unique_ptr<RegionPlan> planFromSpine(const Local& L, const PostDomTree& pdom,
                                              const std::vector<NodeId>& region, int start, int depth)
    {
        const int n = L.dag.size;
        std::vector<int> spineIndex(size_t(n) + 1, -1);
        std::vector<int> spine;
        for (int v = start; v != n && v >= 0; v = pdom.ipdom[size_t(v)]) {
            spineIndex[size_t(v)] = int(spine.size());
            spine.push_back(v);
        }
        const int k = int(spine.size());
        spineIndex[size_t(n)] = k; // the virtual sink closes the epilogue

        // hi: the first spine node post-dominating a node; e: the earliest spine node it reaches.
        std::vector<int> hi(size_t(n) + 1, k), reach(size_t(n), k);
        for (auto it = L.dag.topo.rbegin(); it != L.dag.topo.rend(); ++it) {
            const int u = *it;
            const int p = pdom.ipdom[size_t(u)];
            hi[size_t(u)] = spineIndex[size_t(p)] >= 0 ? spineIndex[size_t(p)] : hi[size_t(p)];
            int e = L.dag.toSink[size_t(u)] ? k : INT_MAX;
            for (int s : L.dag.succ(u)) e = std::min(e, spineIndex[size_t(s)] >= 0 ? spineIndex[size_t(s)] : reach[size_t(s)]);
            reach[size_t(u)] = e == INT_MAX ? k : e;
        }

        auto plan = std::make_unique<RegionPlan>();
        std::vector<SegPlan> segs(size_t(k) + 1);
        std::vector<NodeId> side;
        for (int u = 0; u < n; ++u) {
            const NodeId v = region[size_t(u)];
            if (v < 0) { // a graph input's stand-in: it only shapes the spine, here or in the side region
                if (spineIndex[size_t(u)] < 0 && reach[size_t(u)] != hi[size_t(u)]) side.push_back(v);
                continue;
            }
            if (spineIndex[size_t(u)] >= 0) {
                segs[size_t(spineIndex[size_t(u)])].nodes.push_back(v);
                segs[size_t(spineIndex[size_t(u)])].sinks = {v};
            } else if (reach[size_t(u)] == hi[size_t(u)]) {
                segs[size_t(hi[size_t(u)])].nodes.push_back(v);
            } else {
                side.push_back(v); // reaches a segment before the one that post-dominates it
            }
        }
        segs[size_t(k)].sinks = sinksOf(L, segs[size_t(k)].nodes);
        for (SegPlan& s : segs) {
            if (s.nodes.empty()) continue;
            plan->score += double(s.nodes.size()) * double(s.nodes.size());
            plan->segments.push_back(std::move(s));
        }
        if (!side.empty()) {
            // The side region gets its own local numbering; restore ours afterwards.
            clearLocal(region);
            plan->side = segment(side, depth + 1);
            for (size_t i = 0; i < region.size(); ++i)
                if (region[i] >= 0) local_[size_t(region[i])] = int(i);
            plan->score += plan->side->score;
        }
        return plan;
    }

    const CompactGraph& cg_;
    const std::vector<uint64_t>& wl_;
    const std::vector<char>& useful_;
    std::vector<int> local_;
};

void flatten(RegionPlan& plan, int depth, Segmentation& out)
{
    if (plan.side) flatten(*plan.side, depth + 1, out);
    FoldRegion region;
    region.depth = depth;
    const int regionIndex = int(out.regions.size());
    for (SegPlan& s : plan.segments) {
        FoldSegment seg;
        seg.region = regionIndex;
        seg.nodes = std::move(s.nodes);
        seg.sinks = std::move(s.sinks);
        region.segments.push_back(int(out.segments.size()));
        out.segments.push_back(std::move(seg));
    }
    out.regions.push_back(std::move(region));
}

// Replaces every segment the refiner cuts by its pieces, in place in its region's chain. A
// piece's sinks are its nodes read from outside it (or graph outputs, or read by nothing), in
// the order the region segmenter sorts ends.
void refineSegments(const CompactGraph& cg, const std::vector<char>& useful, const NodeHashes& hashes, Segmentation& seg)
{
    std::vector<FoldSegment> segments;
    std::vector<int> pieceOf(cg.nodeCount, -1);
    for (FoldRegion& region : seg.regions) {
        std::vector<int> chain;
        for (int s : region.segments) {
            FoldSegment& fs = seg.segments[size_t(s)];
            std::vector<std::vector<NodeId>> pieces = refineSegment(cg, useful, hashes, fs.nodes);
            if (pieces.size() == 1) {
                chain.push_back(int(segments.size()));
                segments.push_back(std::move(fs));
                continue;
            }
            const int first = int(segments.size());
            for (auto& p : pieces) {
                for (NodeId v : p) pieceOf[size_t(v)] = int(segments.size());
                chain.push_back(int(segments.size()));
                FoldSegment piece;
                piece.region = fs.region;
                piece.nodes = std::move(p);
                segments.push_back(std::move(piece));
            }
            for (int i = first; i < int(segments.size()); ++i)
                segments[size_t(i)].sinks = pieceSinks(cg, useful, hashes.refined, pieceOf, i, segments[size_t(i)].nodes);
            for (const FoldSegment& piece : std::span(segments).subspan(size_t(first)))
                for (NodeId v : piece.nodes) pieceOf[size_t(v)] = -1;
        }
        region.segments = std::move(chain);
    }
    seg.segments = std::move(segments);
}

} // namespace

std::vector<NodeId> pieceSinks(const CompactGraph& cg, const std::vector<char>& useful, const std::vector<uint64_t>& wl,
                               const std::vector<int>& pieceOf, int piece, const std::vector<NodeId>& nodes)
{
    std::vector<NodeId> sinks;
    for (NodeId v : nodes) {
        bool leaves = false, read = false;
        for (TensorId t : cg.outputs(v)) {
            if (t == kNoTensor) continue;
            if (cg.outputIndex[size_t(t)] >= 0) leaves = true;
            for (NodeId c : cg.readers(t)) {
                if (!useful[size_t(c)]) continue;
                read = true;
                if (pieceOf[size_t(c)] != piece) leaves = true;
            }
        }
        if (leaves || !read) sinks.push_back(v);
    }
    sortEnds(cg, wl, sinks);
    return sinks;
}

Result<Segmentation> segmentGraph(const CompactGraph& cg, const std::vector<NodeId>& topo, const NodeHashes& hashes,
                                  const Progress& progress)
{
    const Graph& g = cg.ir;
    const size_t n = cg.nodeCount;
    const std::vector<char>& meta = hashes.meta;
    const std::vector<int>& outputIndex = cg.outputIndex;

    // Useful data nodes reach a graph output; the rest are dead ends, attached afterwards.
    std::vector<char> useful(n, 0);
    for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
        const NodeId v = *it;
        if (meta[size_t(v)]) continue;
        bool u = false;
        for (TensorId t : cg.outputs(v)) {
            if (t == kNoTensor) continue;
            if (outputIndex[size_t(t)] >= 0) u = true;
            for (NodeId c : cg.readers(t)) u = u || useful[size_t(c)];
        }
        useful[size_t(v)] = char(u);
    }
    if (std::none_of(useful.begin(), useful.end(), [](char c) { return c != 0; }))
        for (size_t i = 0; i < n; ++i) useful[i] = char(!meta[i]);

    if (progress.cancelled()) return Result<Segmentation>::failure("fold: cancelled");
    progress(0.3, "segmenting");

    // Region entries: a stand-in (-2 - i) for each graph input i that data nodes read, then the
    // data nodes in topological order.
    std::vector<NodeId> region;
    for (size_t i = 0; i < g.inputs.size(); ++i) {
        const TensorId t = g.inputs[i];
        if (t == kNoTensor) continue;
        const auto users = cg.readers(t);
        if (std::any_of(users.begin(), users.end(), [&](NodeId c) { return useful[size_t(c)] != 0; }))
            region.push_back(NodeId(-2 - int(i)));
    }
    const size_t standIns = region.size();
    for (NodeId v : topo)
        if (useful[size_t(v)]) region.push_back(v);
    Segmentation out;
    out.nodeSegment.assign(n, -1);
    if (region.size() > standIns) {
        RegionSegmenter segmenter(cg, hashes.refined, useful);
        std::unique_ptr<RegionPlan> plan = segmenter.segment(region, 0);
        flatten(*plan, 0, out);
        refineSegments(cg, useful, hashes, out);
        separateTiedApplications(cg, hashes, useful, topo, out);
    }
    for (size_t s = 0; s < out.segments.size(); ++s)
        for (NodeId v : out.segments[s].nodes) out.nodeSegment[size_t(v)] = int(s);

    // Dead ends join the segment of their first data producer.
    std::vector<NodeId> shared;
    for (NodeId v : topo) {
        if (meta[size_t(v)] || useful[size_t(v)]) continue;
        int seg = -1;
        for (TensorId t : cg.inputs(v)) {
            const NodeId p = cg.producerOf(t);
            if (p != kNoNode && !meta[size_t(p)] && out.nodeSegment[size_t(p)] >= 0) {
                seg = out.nodeSegment[size_t(p)];
                break;
            }
        }
        out.nodeSegment[size_t(v)] = seg;
        if (seg >= 0) out.segments[size_t(seg)].nodes.push_back(v);
    }
    // Meta nodes join the one segment that reads them, or the shared segment.
    std::vector<int> target(n, -1);
    for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
        const NodeId v = *it;
        if (!meta[size_t(v)]) continue;
        int t0 = -1;
        bool many = false;
        for (TensorId t : cg.outputs(v)) {
            if (t == kNoTensor) continue;
            if (outputIndex[size_t(t)] >= 0) many = true;
            for (NodeId c : cg.readers(t)) {
                const int s = meta[size_t(c)] ? target[size_t(c)] : out.nodeSegment[size_t(c)];
                if (s < 0 || (t0 >= 0 && s != t0)) many = true;
                t0 = s;
            }
        }
        // Identity(initializer) is how exporters alias equal weights: only some blocks get one,
        // so it belongs with the shared constants, not inside the block that happens to read it.
        if (cg.is(v, CompactGraph::kIdentity)) many = true;
        target[size_t(v)] = many || t0 < 0 ? kShared : t0;
    }
    for (NodeId v : topo) {
        if (meta[size_t(v)] && target[size_t(v)] >= 0) {
            out.nodeSegment[size_t(v)] = target[size_t(v)];
            out.segments[size_t(target[size_t(v)])].nodes.push_back(v);
        } else if (out.nodeSegment[size_t(v)] < 0) {
            shared.push_back(v);
        }
    }
    if (!shared.empty()) {
        // The shared segment comes first in the chain: every later segment may read it.
        for (FoldSegment& s : out.segments) ++s.region;
        FoldSegment seg;
        seg.region = 0;
        seg.nodes = shared;
        out.sharedSegment = int(out.segments.size());
        for (NodeId v : shared) out.nodeSegment[size_t(v)] = out.sharedSegment;
        FoldRegion r;
        r.depth = -1;
        r.segments = {out.sharedSegment};
        out.segments.push_back(std::move(seg));
        out.regions.insert(out.regions.begin(), std::move(r));
    }

    if (progress.cancelled()) return Result<Segmentation>::failure("fold: cancelled");
    progress(0.6, "canonicalising segments");
    CanonicalScratch scratch(cg);
    for (size_t s = 0; s < out.segments.size(); ++s)
        canonicaliseSegment(cg, out.nodeSegment, int(s), hashes, out.segments[s], scratch);
    return out;
}

} // namespace tapas
