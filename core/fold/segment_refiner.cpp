#include "core/fold/segment_refiner.h"

#include "core/fold/post_dominators.h"
#include "core/fold/repeat_finder.h"
#include "core/fold/structural_hash.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

namespace tapas {

namespace {

constexpr int kMinLongEdge = 16;  // levels an edge must span to count as a long skip
constexpr int kRefineDepth = 3;   // nested refinements of one segment
constexpr int kMaxCandidates = 4; // chain starts tried

// Local nodes: first one stand-in per distinct outside tensor the segment reads (a graph
// input or a node of an earlier segment), then the segment's nodes. A chain starting at a
// stand-in cuts the segment's first block where its twins further on are cut.
struct SegmentDag {
    std::vector<NodeId> nodes; // per local node; kNoNode for a stand-in
    int standIns = 0;
    std::vector<std::vector<int>> preds; // every in-segment producer (long edges included)
    std::vector<int> level;              // longest path from the entry
    int depth = 0;                       // the largest level
    std::vector<char> dangling;          // leads nowhere inside the segment but is not its end
    LocalDag dag;                        // long edges cut
};

SegmentDag buildDag(const CompactGraph& cg, const std::vector<char>& useful, const std::vector<NodeId>& nodes)
{
    SegmentDag s;
    std::unordered_map<NodeId, int> local;
    for (size_t i = 0; i < nodes.size(); ++i) local.emplace(nodes[i], int(i));
    std::unordered_map<TensorId, int> standIn;
    std::vector<std::pair<int, int>> edges; // (producer, consumer) in local numbering, stand-ins offset later
    for (size_t i = 0; i < nodes.size(); ++i) {
        for (TensorId t : cg.inputs(nodes[i])) {
            if (t == kNoTensor) continue;
            const NodeId producer = cg.producer[size_t(t)];
            if (producer == kNoNode ? cg.kind[size_t(t)] != TensorKind::Input : !useful[size_t(producer)]) continue;
            if (producer != kNoNode && local.count(producer)) continue;
            auto [it, added] = standIn.try_emplace(t, int(standIn.size()));
            edges.emplace_back(-1 - it->second, int(i));
        }
        for (TensorId t : cg.outputs(nodes[i])) {
            if (t == kNoTensor) continue;
            for (NodeId c : cg.readers(t)) {
                if (!useful[size_t(c)]) continue;
                auto it = local.find(c);
                if (it != local.end()) edges.emplace_back(int(i), it->second);
            }
        }
    }
    const int m = int(standIn.size()), n = m + int(nodes.size());
    s.standIns = m;
    s.nodes.assign(size_t(m), kNoNode);
    s.nodes.insert(s.nodes.end(), nodes.begin(), nodes.end());
    std::vector<std::vector<int>> succ(static_cast<size_t>(n));
    for (auto [a, b] : edges) succ[size_t(a < 0 ? -1 - a : m + a)].push_back(m + b);
    s.preds.resize(size_t(n));
    for (int i = 0; i < n; ++i) {
        auto& out = succ[size_t(i)];
        std::sort(out.begin(), out.end());
        out.erase(std::unique(out.begin(), out.end()), out.end());
        for (int c : out) s.preds[size_t(c)].push_back(i);
    }
    // Longest path from the segment's entry, in topological order (stand-ins, then `nodes`).
    std::vector<int>& level = s.level;
    level.assign(size_t(n), 0);
    int& depth = s.depth;
    for (int i = 0; i < n; ++i) {
        for (int p : s.preds[size_t(i)]) level[size_t(i)] = std::max(level[size_t(i)], level[size_t(p)] + 1);
        depth = std::max(depth, level[size_t(i)]);
    }
    const int longEdge = std::max(kMinLongEdge, depth / 4);
    s.dag.size = n;
    std::vector<std::vector<int>> kept(static_cast<size_t>(n));
    s.dag.toSink.assign(size_t(n), 0);
    s.dag.topo.resize(size_t(n));
    // Only the segment's last node leads to the sink. A node left without successors (its edges
    // were long, or it ends a branch to a graph output) dangles: it constrains no post-dominator
    // and joins the piece of its latest producer.
    std::vector<char>& dangling = s.dangling;
    dangling.assign(size_t(n), 0);
    for (int i = n - 1; i >= 0; --i) {
        s.dag.topo[size_t(i)] = i;
        for (int c : succ[size_t(i)])
            if (level[size_t(c)] - level[size_t(i)] <= longEdge && !dangling[size_t(c)]) kept[size_t(i)].push_back(c);
        dangling[size_t(i)] = char(i != n - 1 && kept[size_t(i)].empty());
        s.dag.toSink[size_t(i)] = char(i == n - 1);
    }
    s.dag.setSuccessors(kept);
    return s;
}

struct Cut {
    std::vector<int> pieceOf; // per local node
    int pieces = 0;
    double score = 0;         // sum of squared piece sizes: finer is better
};

Cut cutAlongChain(const SegmentDag& s, const PostDomTree& pdom, int start)
{
    const int n = s.dag.size;
    std::vector<int> spineIndex(size_t(n) + 1, -1);
    int k = 0;
    for (int v = start; v != n && v >= 0; v = pdom.ipdom[size_t(v)]) spineIndex[size_t(v)] = k++;
    spineIndex[size_t(n)] = k;
    // hi: the first chain node post-dominating a node; reach: the earliest chain node it reaches.
    std::vector<int> hi(size_t(n) + 1, k), reach(size_t(n), k);
    for (int u = n - 1; u >= 0; --u) {
        const int p = pdom.ipdom[size_t(u)];
        hi[size_t(u)] = spineIndex[size_t(p)] >= 0 ? spineIndex[size_t(p)] : hi[size_t(p)];
        int e = k;
        for (int c : s.dag.succ(u)) e = std::min(e, spineIndex[size_t(c)] >= 0 ? spineIndex[size_t(c)] : reach[size_t(c)]);
        reach[size_t(u)] = e;
    }
    Cut cut;
    cut.pieceOf.assign(size_t(n), k);
    for (int u = 0; u < n; ++u) {
        if (spineIndex[size_t(u)] >= 0) {
            cut.pieceOf[size_t(u)] = spineIndex[size_t(u)];
        } else if (reach[size_t(u)] == hi[size_t(u)] && hi[size_t(u)] < k) {
            cut.pieceOf[size_t(u)] = hi[size_t(u)];
        } else {
            // A branch that does not lead into the next cut: with its latest producer.
            int piece = -1;
            for (int p : s.preds[size_t(u)])
                if (p >= s.standIns) piece = std::max(piece, cut.pieceOf[size_t(p)]);
            cut.pieceOf[size_t(u)] = piece >= 0 ? piece : std::min(reach[size_t(u)], hi[size_t(u)]);
        }
    }
    std::vector<int> sizes(size_t(k) + 1, 0);
    for (int u = s.standIns; u < n; ++u) ++sizes[size_t(cut.pieceOf[size_t(u)])];
    for (int c : sizes) {
        if (c == 0) continue;
        ++cut.pieces;
        cut.score += double(c) * double(c);
    }
    return cut;
}

// A segment whose state travels in several tensors (RAFT's hidden state and coordinates) has
// no single-node cut between its iterations. Its levels still repeat: each level becomes a
// unit (the multiset of its nodes' local hashes, dangling branches left out), and the longest
// tandem repeat over levels cuts the segment into slabs, one per copy; a dangling branch (each
// iteration's upsampled flow) goes with the slab of its producer. The levels just before and after the run hold one
// more copy when they hold its nodes and more (the first iteration shares its levels with the
// correlation pyramid): that copy takes the matching nodes, the rest stays in the prefix or
// suffix. Empty when nothing repeats over most of the segment.
std::vector<std::vector<NodeId>> slabsByLevel(const SegmentDag& s, const CompactGraph& cg, const NodeHashes& hashes)
{
    const int n = s.dag.size;
    const size_t levels = size_t(s.depth) + 1;
    std::vector<std::vector<int>> nodesAt(levels);
    for (int u = s.standIns; u < n; ++u)
        if (!s.dangling[size_t(u)]) nodesAt[size_t(s.level[size_t(u)])].push_back(u);
    auto localHash = [&](int u) { return hashes.local[size_t(s.nodes[size_t(u)])]; };
    std::vector<std::vector<uint64_t>> multiset(levels);
    std::vector<RepeatUnit> units(levels);
    for (size_t l = 0; l < levels; ++l) {
        std::map<uint64_t, int> ops;
        for (int u : nodesAt[l]) {
            multiset[l].push_back(localHash(u));
            ++ops[cg.opHash[cg.op[size_t(s.nodes[size_t(u)])]]];
        }
        std::sort(multiset[l].begin(), multiset[l].end());
        uint64_t h = hashMix(0x1e7e1ULL, multiset[l].size());
        for (uint64_t x : multiset[l]) h = hashMix(h, x);
        units[l].hash = h;
        units[l].nodes = int(nodesAt[l].size());
        units[l].ops.assign(ops.begin(), ops.end());
    }
    // The best run is the one the finder found first (run 0); its copies may be split in chunks.
    std::vector<std::pair<int, int>> copies; // level ranges [begin, end)
    for (const BlockSpan& b : findBlocks(units)) {
        if (!b.repeated || b.run != 0) continue;
        if (b.copy >= int(copies.size())) copies.resize(size_t(b.copy) + 1, {b.begin, b.end});
        auto& c = copies[size_t(b.copy)];
        c = {std::min(c.first, b.begin), std::max(c.second, b.end)};
    }
    if (copies.size() < 2) return {};
    const int period = copies[0].second - copies[0].first;

    std::vector<int> slabOf(size_t(n), -1); // 0: prefix, 1..: copies, then the suffix
    int slabs = 1;
    // One more copy at levels [from, from + period) when each level holds the copy's multiset.
    auto extraCopy = [&](int from) {
        if (from < 0 || from + period > int(levels)) return false;
        for (int d = 0; d < period; ++d)
            if (!std::includes(multiset[size_t(from + d)].begin(), multiset[size_t(from + d)].end(),
                               multiset[size_t(copies[0].first + d)].begin(), multiset[size_t(copies[0].first + d)].end()))
                return false;
        const int slab = slabs++;
        for (int d = 0; d < period; ++d) {
            std::vector<uint64_t> wanted = multiset[size_t(copies[0].first + d)];
            for (int u : nodesAt[size_t(from + d)]) {
                auto it = std::lower_bound(wanted.begin(), wanted.end(), localHash(u));
                if (it == wanted.end() || *it != localHash(u)) continue;
                wanted.erase(it);
                slabOf[size_t(u)] = slab;
            }
        }
        return true;
    };
    const int before = copies.front().first - period;
    extraCopy(before);
    for (const auto& [b, e] : copies) {
        const int slab = slabs++;
        for (int l = b; l < e; ++l)
            for (int u : nodesAt[size_t(l)]) slabOf[size_t(u)] = slab;
    }
    extraCopy(copies.back().second);
    const int suffix = slabs++;
    int covered = 0;
    for (int u = s.standIns; u < n; ++u) {
        int& slab = slabOf[size_t(u)];
        if (s.dangling[size_t(u)]) { // a branch to a graph output stays with the copy that computes it
            for (int p : s.preds[size_t(u)])
                if (p >= s.standIns) slab = std::max(slab, slabOf[size_t(p)]);
            if (slab < 0) slab = 0;
        } else if (slab < 0) {
            slab = s.level[size_t(u)] < copies.front().first ? 0 : suffix;
        }
        if (slab > 0 && slab < suffix) ++covered;
    }
    if (2 * covered < n - s.standIns) return {};
    std::vector<std::vector<NodeId>> out(static_cast<size_t>(slabs));
    for (int u = s.standIns; u < n; ++u) out[size_t(slabOf[size_t(u)])].push_back(s.nodes[size_t(u)]);
    out.erase(std::remove_if(out.begin(), out.end(), [](const auto& p) { return p.empty(); }), out.end());
    return out;
}

void refineInto(const CompactGraph& cg, const std::vector<char>& useful, const NodeHashes& hashes,
                const std::vector<NodeId>& nodes, int depth, std::vector<std::vector<NodeId>>& out)
{
    if (int(nodes.size()) <= kRefineNodes || depth >= kRefineDepth) {
        out.push_back(nodes);
        return;
    }
    const SegmentDag s = buildDag(cg, useful, nodes);
    const PostDomTree pdom = postDominators(s.dag);
    const int n = s.dag.size;
    // Chain starts: the stand-ins, or (a segment reading nothing from outside) its entry nodes;
    // the deepest in the post-dominator tree first.
    std::vector<int> roots;
    for (int u = 0; u < n; ++u)
        if (u < s.standIns || (s.standIns == 0 && s.preds[size_t(u)].empty())) roots.push_back(u);
    auto label = [&](int u) { return s.nodes[size_t(u)] == kNoNode ? uint64_t(0) : hashes.refined[size_t(s.nodes[size_t(u)])]; };
    std::sort(roots.begin(), roots.end(), [&](int a, int b) {
        return std::make_tuple(-pdom.depth[size_t(a)], label(a), a) < std::make_tuple(-pdom.depth[size_t(b)], label(b), b);
    });
    if (int(roots.size()) > kMaxCandidates) roots.resize(kMaxCandidates);
    Cut best;
    for (int r : roots) {
        Cut c = cutAlongChain(s, pdom, r);
        if (best.pieces == 0 || c.score < best.score) best = std::move(c);
    }
    if (best.pieces <= 1) {
        std::vector<std::vector<NodeId>> slabs = slabsByLevel(s, cg, hashes);
        if (slabs.empty()) out.push_back(nodes);
        for (const auto& p : slabs) refineInto(cg, useful, hashes, p, depth + 1, out);
        return;
    }
    std::vector<std::vector<NodeId>> pieces(size_t(*std::max_element(best.pieceOf.begin(), best.pieceOf.end())) + 1);
    for (int u = s.standIns; u < n; ++u) pieces[size_t(best.pieceOf[size_t(u)])].push_back(s.nodes[size_t(u)]);
    for (const auto& p : pieces)
        if (!p.empty()) refineInto(cg, useful, hashes, p, depth + 1, out);
}

} // namespace

std::vector<std::vector<NodeId>> refineSegment(const CompactGraph& cg, const std::vector<char>& useful,
                                               const NodeHashes& hashes, const std::vector<NodeId>& nodes)
{
    std::vector<std::vector<NodeId>> out;
    refineInto(cg, useful, hashes, nodes, 0, out);
    return out;
}

} // namespace tapas
