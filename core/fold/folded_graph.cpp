#include "core/fold/folded_graph.h"

#include "core/fold/block_plan.h"
#include "core/fold/fold_tree_builder.h"
#include "core/fold/repeat_finder.h"
#include "core/fold/segmenter.h"
#include "core/fold/structural_hash.h"
#include "core/fold/tied_run_copies.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace tapas {

namespace {

std::string nodeScope(const Node& n)
{
    return n.scope.empty() ? scopeFromNodeName(n.name) : n.scope;
}

} // namespace

std::string commonScope(const Graph& g, const std::vector<NodeId>& nodes)
{
    bool any = false;
    std::string prefix;
    for (NodeId v : nodes) {
        const std::string s = nodeScope(g.node(v));
        if (s.empty()) continue; // Constant nodes and the like often carry no scope
        if (!any) {
            prefix = s;
            any = true;
            continue;
        }
        size_t i = 0;
        while (i < prefix.size() && i < s.size() && prefix[i] == s[i]) ++i;
        if (i < prefix.size() && !(i == s.size() && prefix[i] == '/')) {
            // Cut back to the last complete component.
            while (i > 0 && prefix[i - 1] != '/') --i;
            if (i > 0) --i;
        }
        prefix.resize(i);
    }
    return prefix;
}

namespace {

// `stamp` is per tensor scratch: the chain index of the block that last listed it.
void boundaryTensors(const CompactGraph& cg, const std::vector<NodeBlockRef>& refs, const BlockRef& self, int blockIndex,
                     std::vector<int>& stampIn, std::vector<int>& stampOut, BlockInstance& inst)
{
    auto inside = [&](NodeId v) {
        return v != kNoNode && refs[size_t(v)].classId == self.classId && refs[size_t(v)].instance == self.instance;
    };
    for (NodeId v : inst.nodes) {
        for (TensorId t : cg.inputs(v)) {
            if (t == kNoTensor || stampIn[size_t(t)] == blockIndex) continue;
            if (cg.stored(t)) continue; // initializer
            if (inside(cg.producer[size_t(t)])) continue;
            stampIn[size_t(t)] = blockIndex;
            inst.inputs.push_back(t);
        }
    }
    for (NodeId v : inst.nodes) {
        for (TensorId t : cg.outputs(v)) {
            if (t == kNoTensor || stampOut[size_t(t)] == blockIndex) continue;
            bool leaves = cg.outputIndex[size_t(t)] >= 0;
            for (NodeId c : cg.readers(t)) leaves = leaves || !inside(c);
            if (!leaves) continue;
            stampOut[size_t(t)] = blockIndex;
            inst.outputs.push_back(t);
        }
    }
}

} // namespace

// A weight the exporter aliased through Identity (equal initializers merged) counts as the
// weight itself, so that every instance of a class counts the same.
int64_t parametersRead(const Graph& g, const std::vector<NodeId>& nodes)
{
    std::unordered_set<TensorId> seen;
    int64_t total = 0;
    for (NodeId v : nodes) {
        for (TensorId t : g.node(v).inputs) {
            if (t == kNoTensor) continue;
            const NodeId p = g.tensor(t).producer;
            if (p != kNoNode && g.node(p).opType == "Identity" && g.node(p).input(0) != kNoTensor &&
                g.tensor(g.node(p).input(0)).isParameter())
                t = g.node(p).input(0);
            if (g.tensor(t).isParameter() && seen.insert(t).second) total += g.tensor(t).storedElements();
        }
    }
    return total;
}

namespace {

// Cuts a unique stretch of segments into blocks of at most `limit` nodes: whole segments
// where they fit, and a segment larger than that along its canonical order (producers before
// consumers, fixed by the wiring alone, so equal segments are cut alike).
void splitUnique(const Segmentation& seg, const std::vector<int>& segments, int limit, std::vector<BlockPlan>& out)
{
    BlockPlan open;
    int openNodes = 0;
    auto flush = [&] {
        if (open.slices.empty()) return;
        out.push_back(std::move(open));
        open = BlockPlan{};
        openNodes = 0;
    };
    for (int s : segments) {
        const int n = int(seg.segments[size_t(s)].nodes.size());
        if (n > limit) {
            flush();
            const int pieces = (n + limit - 1) / limit;
            for (int k = 0; k < pieces; ++k) {
                BlockPlan b;
                b.slices.push_back(SegSlice{s, int(int64_t(n) * k / pieces), int(int64_t(n) * (k + 1) / pieces)});
                out.push_back(std::move(b));
            }
            continue;
        }
        if (openNodes + n > limit) flush();
        open.slices.push_back(SegSlice{s, 0, n});
        openNodes += n;
    }
    flush();
}

} // namespace

int FoldedGraph::repeatedClassCount() const
{
    return int(std::count_if(classes.begin(), classes.end(), [](const BlockClass& c) { return c.repeated(); }));
}

std::vector<int> FoldedGraph::blockClassesOf(int treeClass) const
{
    std::vector<int> out;
    const FoldTreeClass& c = tree.classes[size_t(treeClass)];
    if (c.level != FoldLevel::Block) return out;
    for (int occurrence : c.instances) {
        const int id = chain[size_t(tree.nodes[size_t(occurrence)].chainBegin)].classId;
        if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
    }
    return out;
}

Result<FoldedGraph> foldGraph(const Graph& g, const FoldOptions& options, const Progress& progress)
{
    progress(0.0, "hashing nodes");
    const CompactGraph cg(g);
    Result<std::vector<NodeId>> topo = topologicalOrder(cg);
    if (!topo) return Result<FoldedGraph>::failure(topo.error());
    const NodeHashes hashes = computeNodeHashes(cg, *topo, options.refineRounds);
    if (progress.cancelled()) return Result<FoldedGraph>::failure("fold: cancelled");
    Result<Segmentation> segResult = segmentGraph(cg, *topo, hashes, progress);
    if (!segResult) return Result<FoldedGraph>::failure(segResult.error());
    const Segmentation& seg = *segResult;
    if (progress.cancelled()) return Result<FoldedGraph>::failure("fold: cancelled");
    progress(0.8, "finding repeated blocks");

    // Blocks in chain order, each a run of consecutive segments of one region.
    std::vector<BlockPlan> blocks;
    std::vector<uint64_t> opHashes;
    int pieces = 0;
    for (size_t r = 0; r < seg.regions.size(); ++r) {
        const FoldRegion& region = seg.regions[r];
        std::vector<RepeatUnit> units;
        for (int s : region.segments) {
            const FoldSegment& fs = seg.segments[size_t(s)];
            RepeatUnit u;
            u.hash = fs.hash;
            u.nodes = int(fs.nodes.size());
            opHashes.clear();
            for (NodeId v : fs.nodes) opHashes.push_back(cg.opHash[cg.op[size_t(v)]]);
            std::sort(opHashes.begin(), opHashes.end());
            for (uint64_t h : opHashes) {
                if (u.ops.empty() || u.ops.back().first != h) u.ops.emplace_back(h, 0);
                ++u.ops.back().second;
            }
            units.push_back(std::move(u));
        }
        // A weight-tied application is a block of its own wherever no tandem repeat took it:
        // the fold tree joins the applications of one module into one class.
        std::vector<BlockSpan> spans;
        for (const BlockSpan& span : findBlocks(units)) {
            if (span.repeated) {
                spans.push_back(span);
                continue;
            }
            int open = span.begin;
            for (int i = span.begin; i < span.end; ++i) {
                if (!seg.segments[size_t(region.segments[size_t(i)])].tied) continue;
                if (i > open) spans.push_back(BlockSpan{open, i, false});
                spans.push_back(BlockSpan{i, i + 1, false});
                open = i + 1;
            }
            if (open < span.end) spans.push_back(BlockSpan{open, span.end, false});
        }
        for (const BlockSpan& span : spans) {
            const std::vector<int> segs(region.segments.begin() + span.begin, region.segments.begin() + span.end);
            int nodes = 0;
            for (int s : segs) nodes += int(seg.segments[size_t(s)].nodes.size());
            if (!span.repeated && nodes > options.maxUniqueBlockNodes) {
                const size_t first = blocks.size();
                splitUnique(seg, segs, std::max(1, options.maxUniqueBlockNodes), blocks);
                for (size_t b = first; b < blocks.size(); ++b) {
                    blocks[b].mark.region = int(r);
                    blocks[b].mark.piece = pieces;
                }
                ++pieces;
                continue;
            }
            BlockPlan b;
            for (int s : segs) b.slices.push_back(SegSlice{s, 0, int(seg.segments[size_t(s)].nodes.size())});
            b.mark.region = int(r);
            if (segs.size() == 1) b.mark.tied = seg.segments[size_t(segs.front())].tied;
            if (span.repeated) {
                // Runs are numbered per region by the finder; make them unique over the chain.
                b.mark.run = span.run + int(r) * 1000003;
                b.mark.copy = span.copy;
            }
            blocks.push_back(std::move(b));
        }
    }

    addTiedRunCopies(cg, hashes, seg, blocks);

    FoldedGraph fg;
    fg.segments = int(seg.segments.size()) - (seg.sharedSegment >= 0 ? 1 : 0);
    fg.nodeRef.assign(g.nodes.size(), NodeBlockRef{});
    std::unordered_map<uint64_t, int> classOfSignature;
    std::vector<ChainMark> marks;
    for (const BlockPlan& block : blocks) {
        BlockLayout layout = layoutOf(seg, block);
        BlockInstance inst;
        inst.nodes = std::move(layout.nodes);
        const uint64_t signature = layout.signature;
        const auto& parts = layout.parts;
        if (inst.nodes.empty()) continue;
        auto [it, added] = classOfSignature.emplace(signature, int(fg.classes.size()));
        if (added) {
            BlockClass c;
            c.id = it->second;
            c.signature = signature;
            c.nodesPerInstance = int(inst.nodes.size());
            c.paramsPerInstance = parametersRead(g, inst.nodes);
            c.scope = commonScope(g, inst.nodes);
            for (const auto& [at, h] : parts) {
                c.partStarts.push_back(at);
                c.partSignatures.push_back(h);
            }
            fg.classes.push_back(std::move(c));
        }
        BlockClass& cls = fg.classes[size_t(it->second)];
        const BlockRef ref{cls.id, int(cls.instances.size())};
        for (size_t p = 0; p < inst.nodes.size(); ++p)
            fg.nodeRef[size_t(inst.nodes[p])] = NodeBlockRef{ref.classId, ref.instance, int(p)};
        cls.instances.push_back(std::move(inst));
        fg.chain.push_back(ref);
        marks.push_back(block.mark);
    }
    std::vector<int> stampIn(g.tensors.size(), -1), stampOut(g.tensors.size(), -1);
    for (size_t b = 0; b < fg.chain.size(); ++b) {
        const BlockRef& ref = fg.chain[b];
        boundaryTensors(cg, fg.nodeRef, ref, int(b), stampIn, stampOut, fg.classes[size_t(ref.classId)].instances[size_t(ref.instance)]);
    }

    int64_t covered = 0;
    for (const BlockClass& c : fg.classes)
        if (c.repeated()) covered += int64_t(c.nodesPerInstance) * int64_t(c.instances.size());
    fg.coverage = g.nodes.empty() ? 0.0 : double(covered) / double(g.nodes.size());
    fg.tree = buildFoldTree(g, fg, marks);
    progress(1.0, "folded");
    return fg;
}

} // namespace tapas
