#include "core/fold/folded_graph.h"

#include "core/fold/repeat_finder.h"
#include "core/fold/segmenter.h"
#include "core/fold/structural_hash.h"

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

// Longest common prefix by whole path components ("/h.0/attn" and "/h.0/mlp" -> "/h.0").
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

void boundaryTensors(const Graph& g, const std::vector<NodeBlockRef>& refs, const BlockRef& self,
                     BlockInstance& inst)
{
    auto inside = [&](NodeId v) {
        return v != kNoNode && refs[size_t(v)].classId == self.classId && refs[size_t(v)].instance == self.instance;
    };
    std::unordered_set<TensorId> seenIn, seenOut;
    std::unordered_set<TensorId> graphOutputs(g.outputs.begin(), g.outputs.end());
    for (NodeId v : inst.nodes) {
        for (TensorId t : g.node(v).inputs) {
            if (t == kNoTensor || seenIn.count(t)) continue;
            const Tensor& tensor = g.tensor(t);
            if (tensor.producer == kNoNode && tensor.kind != TensorKind::Input) continue; // initializer
            if (inside(tensor.producer)) continue;
            seenIn.insert(t);
            inst.inputs.push_back(t);
        }
    }
    for (NodeId v : inst.nodes) {
        for (TensorId t : g.node(v).outputs) {
            if (t == kNoTensor || seenOut.count(t)) continue;
            bool leaves = graphOutputs.count(t) > 0;
            for (NodeId c : g.tensor(t).consumers) leaves = leaves || !inside(c);
            if (!leaves) continue;
            seenOut.insert(t);
            inst.outputs.push_back(t);
        }
    }
}

int64_t parametersRead(const Graph& g, const std::vector<NodeId>& nodes)
{
    std::unordered_set<TensorId> seen;
    int64_t total = 0;
    for (NodeId v : nodes)
        for (TensorId t : g.node(v).inputs)
            if (t != kNoTensor && g.tensor(t).isParameter() && seen.insert(t).second) total += g.tensor(t).storedElements();
    return total;
}

} // namespace

int FoldedGraph::repeatedClassCount() const
{
    return int(std::count_if(classes.begin(), classes.end(), [](const BlockClass& c) { return c.repeated(); }));
}

Result<FoldedGraph> foldGraph(const Graph& g, const FoldOptions& options, const Progress& progress)
{
    progress(0.0, "hashing nodes");
    const NodeHashes hashes = computeNodeHashes(g, options.refineRounds);
    if (progress.cancelled()) return Result<FoldedGraph>::failure("fold: cancelled");
    Result<Segmentation> segResult = segmentGraph(g, hashes, progress);
    if (!segResult) return Result<FoldedGraph>::failure(segResult.error());
    const Segmentation& seg = *segResult;
    if (progress.cancelled()) return Result<FoldedGraph>::failure("fold: cancelled");
    progress(0.8, "finding repeated blocks");

    std::unordered_map<std::string, uint64_t> opHashCache;
    auto opHash = [&](const Node& n) {
        const std::string key = n.domain + "::" + n.opType;
        auto it = opHashCache.find(key);
        if (it == opHashCache.end()) it = opHashCache.emplace(key, hashString(key)).first;
        return it->second;
    };

    // Blocks in chain order, each a run of consecutive segments of one region.
    std::vector<std::vector<int>> blocks;
    for (const FoldRegion& region : seg.regions) {
        std::vector<RepeatUnit> units;
        for (int s : region.segments) {
            const FoldSegment& fs = seg.segments[size_t(s)];
            RepeatUnit u;
            u.hash = fs.hash;
            u.nodes = int(fs.nodes.size());
            std::map<uint64_t, int> ops;
            for (NodeId v : fs.nodes) ++ops[opHash(g.node(v))];
            u.ops.assign(ops.begin(), ops.end());
            units.push_back(std::move(u));
        }
        for (const BlockSpan& span : findBlocks(units))
            blocks.emplace_back(region.segments.begin() + span.begin, region.segments.begin() + span.end);
    }

    FoldedGraph fg;
    fg.segments = int(seg.segments.size()) - (seg.sharedSegment >= 0 ? 1 : 0);
    fg.nodeRef.assign(g.nodes.size(), NodeBlockRef{});
    std::unordered_map<uint64_t, int> classOfSignature;
    for (const std::vector<int>& block : blocks) {
        uint64_t signature = hashMix(0xb10cULL, block.size());
        BlockInstance inst;
        for (int s : block) {
            const FoldSegment& fs = seg.segments[size_t(s)];
            signature = hashMix(signature, fs.hash);
            inst.nodes.insert(inst.nodes.end(), fs.nodes.begin(), fs.nodes.end());
        }
        if (inst.nodes.empty()) continue;
        auto [it, added] = classOfSignature.emplace(signature, int(fg.classes.size()));
        if (added) {
            BlockClass c;
            c.id = it->second;
            c.signature = signature;
            c.nodesPerInstance = int(inst.nodes.size());
            c.paramsPerInstance = parametersRead(g, inst.nodes);
            c.scope = commonScope(g, inst.nodes);
            fg.classes.push_back(std::move(c));
        }
        BlockClass& cls = fg.classes[size_t(it->second)];
        const BlockRef ref{cls.id, int(cls.instances.size())};
        for (size_t p = 0; p < inst.nodes.size(); ++p)
            fg.nodeRef[size_t(inst.nodes[p])] = NodeBlockRef{ref.classId, ref.instance, int(p)};
        cls.instances.push_back(std::move(inst));
        fg.chain.push_back(ref);
    }
    for (const BlockRef& ref : fg.chain)
        boundaryTensors(g, fg.nodeRef, ref, fg.classes[size_t(ref.classId)].instances[size_t(ref.instance)]);

    int64_t covered = 0;
    for (const BlockClass& c : fg.classes)
        if (c.repeated()) covered += int64_t(c.nodesPerInstance) * int64_t(c.instances.size());
    fg.coverage = g.nodes.empty() ? 0.0 : double(covered) / double(g.nodes.size());
    progress(1.0, "folded");
    return fg;
}

} // namespace tapas
