#include "core/fold/tied_run_copies.h"

#include "core/fold/segment_signature.h"

#include <algorithm>
#include <map>
#include <memory>
#include <string_view>
#include <tuple>
#include <unordered_map>

namespace tapas {

namespace {

size_t outputSlot(const Graph& g, NodeId producer, TensorId t)
{
    const auto& outs = g.node(producer).outputs;
    return size_t(std::find(outs.begin(), outs.end(), t) - outs.begin());
}

template <typename F>
void forEachNode(const Segmentation& seg, const BlockPlan& b, F&& f)
{
    if (b.explicitNodes()) {
        for (NodeId v : b.nodes) f(v);
        return;
    }
    for (const SegSlice& sl : b.slices) {
        const auto& nodes = seg.segments[size_t(sl.segment)].nodes;
        for (int i = sl.begin; i < sl.end; ++i) f(nodes[size_t(i)]);
    }
}

// Matches the nodes of one copy (the template, in position order) to available nodes, position by
// position, starting from the readers of the copy's tied weights.
class CopyMatcher {
public:
    CopyMatcher(const CompactGraph& cg, const std::vector<NodeId>& copy, const std::vector<char>& available)
        : cg_(cg), g_(cg.ir), copy_(copy), available_(available), match_(copy.size(), kNoNode)
    {
        for (size_t p = 0; p < copy.size(); ++p) templatePos_.emplace(copy[p], int(p));
    }

    // The matched nodes in position order when position `p` is `v` and every other position finds
    // its twin, else empty. Growth follows the wiring; where it stalls, the one free reader of a
    // tied weight at a position still open seeds it again.
    std::vector<NodeId> run(int p, NodeId v, const std::vector<std::pair<int, int>>& tiedSlots)
    {
        if (!assign(p, v)) return {};
        for (;;) {
            while (!queue_.empty()) {
                const int q = queue_.back();
                queue_.pop_back();
                if (!grow(q)) return {};
            }
            for (const auto& [q, s] : tiedSlots) {
                if (match_[size_t(q)] != kNoNode) continue;
                const NodeId c = uniqueReader(g_.node(copy_[size_t(q)]).inputs[size_t(s)], size_t(s), q);
                if (c != kNoNode && !assign(q, c)) return {};
                if (!queue_.empty()) break;
            }
            if (queue_.empty()) break;
        }
        for (size_t q = 0; q < copy_.size(); ++q)
            if (match_[q] == kNoNode || !fits(int(q))) return {};
        return match_;
    }

    // The free nodes of `op` reading `t` at `slot`.
    std::vector<NodeId> readers(TensorId t, size_t slot, const std::string& op) const
    {
        std::vector<NodeId> out;
        for (NodeId c : g_.tensor(t).consumers)
            if (free(c) && g_.node(c).input(slot) == t && g_.node(c).opType == op && std::find(out.begin(), out.end(), c) == out.end())
                out.push_back(c);
        return out;
    }

private:
    int templatePos(NodeId v) const
    {
        if (v == kNoNode) return -1;
        auto it = templatePos_.find(v);
        return it == templatePos_.end() ? -1 : it->second;
    }

    bool free(NodeId v) const { return v != kNoNode && available_[size_t(v)] && !matchedPos_.count(v); }

    // The one free node that can be position q's twin reading `t` at `slot`, or kNoNode when there
    // is none or several (two equal Subs of one tensor, one feeding an output, one the next step,
    // are told apart by what reads them).
    NodeId uniqueReader(TensorId t, size_t slot, int q) const
    {
        std::vector<NodeId> found;
        for (NodeId c : g_.tensor(t).consumers)
            if (free(c) && g_.node(c).input(slot) == t && compatible(q, c) && std::find(found.begin(), found.end(), c) == found.end())
                found.push_back(c);
        if (found.size() > 1) {
            const auto kinds = readerKinds(g_.node(copy_[size_t(q)]));
            found.erase(std::remove_if(found.begin(), found.end(), [&](NodeId c) { return readerKinds(g_.node(c)) != kinds; }), found.end());
        }
        return found.size() == 1 ? found.front() : kNoNode;
    }

    // Whether v may be position q's twin, from what is known so far: the same op and slot counts,
    // the same weights, and producers matched where the copy's are.
    bool compatible(int q, NodeId v) const
    {
        const Node& tn = g_.node(copy_[size_t(q)]);
        const Node& vn = g_.node(v);
        if (tn.opType != vn.opType || tn.inputs.size() != vn.inputs.size() || tn.outputs.size() != vn.outputs.size()) return false;
        for (size_t s = 0; s < tn.inputs.size(); ++s) {
            const TensorId a = tn.inputs[s], b = vn.inputs[s];
            if ((a == kNoTensor) != (b == kNoTensor)) return false;
            if (a == kNoTensor) continue;
            if (cg_.weight[size_t(a)] && a != b) return false;
            const int p = templatePos(g_.tensor(a).producer);
            if (p >= 0 && match_[size_t(p)] != kNoNode && match_[size_t(p)] != g_.tensor(b).producer) return false;
        }
        return true;
    }

    // (op type, slot) of every node reading one of n's outputs, per output, sorted.
    std::vector<std::tuple<size_t, std::string_view, size_t>> readerKinds(const Node& n) const
    {
        std::vector<std::tuple<size_t, std::string_view, size_t>> out;
        for (size_t o = 0; o < n.outputs.size(); ++o) {
            if (n.outputs[o] == kNoTensor) continue;
            for (NodeId c : g_.tensor(n.outputs[o]).consumers) {
                const Node& cn = g_.node(c);
                for (size_t s = 0; s < cn.inputs.size(); ++s)
                    if (cn.inputs[s] == n.outputs[o]) out.emplace_back(o, std::string_view(cn.opType), s);
            }
        }
        std::sort(out.begin(), out.end());
        out.erase(std::unique(out.begin(), out.end()), out.end());
        return out;
    }

    bool assign(int p, NodeId v)
    {
        if (match_[size_t(p)] == v) return true;
        if (match_[size_t(p)] != kNoNode || !free(v) || g_.node(v).opType != g_.node(copy_[size_t(p)]).opType) return false;
        match_[size_t(p)] = v;
        matchedPos_.emplace(v, p);
        queue_.push_back(p);
        return true;
    }

    // Pairs the producers and consumers of position p's twin with the copy's.
    bool grow(int p)
    {
        const Node& tn = g_.node(copy_[size_t(p)]);
        const Node& vn = g_.node(match_[size_t(p)]);
        if (tn.inputs.size() != vn.inputs.size() || tn.outputs.size() != vn.outputs.size()) return false;
        for (size_t s = 0; s < tn.inputs.size(); ++s) {
            const TensorId a = tn.inputs[s], b = vn.inputs[s];
            if (a == kNoTensor) continue;
            const int q = templatePos(g_.tensor(a).producer);
            if (q < 0) continue;
            if (b == kNoTensor || !assign(q, g_.tensor(b).producer)) return false;
        }
        for (size_t o = 0; o < tn.outputs.size(); ++o) {
            const TensorId a = tn.outputs[o], b = vn.outputs[o];
            if (a == kNoTensor || b == kNoTensor) continue;
            for (NodeId c : g_.tensor(a).consumers) {
                const int q = templatePos(c);
                if (q < 0 || match_[size_t(q)] != kNoNode) continue;
                const Node& cn = g_.node(c);
                for (size_t s = 0; s < cn.inputs.size(); ++s) {
                    if (cn.inputs[s] != a) continue;
                    const NodeId d = uniqueReader(b, s, q);
                    if (d != kNoNode && !assign(q, d)) return false;
                    break;
                }
            }
        }
        return true;
    }

    // Position p's twin is the same operation on the same wiring, weights and shapes.
    bool fits(int p)
    {
        const Node& tn = g_.node(copy_[size_t(p)]);
        const Node& vn = g_.node(match_[size_t(p)]);
        if (operationHash(tn) != operationHash(vn) || tn.inputs.size() != vn.inputs.size() ||
            tn.outputs.size() != vn.outputs.size() || tn.subgraphs != vn.subgraphs)
            return false;
        for (size_t o = 0; o < tn.outputs.size(); ++o) {
            const TensorId a = tn.outputs[o], b = vn.outputs[o];
            if ((a == kNoTensor) != (b == kNoTensor)) return false;
            if (a != kNoTensor && !sameKind(a, b)) return false;
        }
        for (size_t s = 0; s < tn.inputs.size(); ++s) {
            const TensorId a = tn.inputs[s], b = vn.inputs[s];
            if ((a == kNoTensor) != (b == kNoTensor)) return false;
            if (a == kNoTensor) continue;
            const NodeId pa = g_.tensor(a).producer, pb = g_.tensor(b).producer;
            const int q = templatePos(pa);
            if (q >= 0) {
                if (pb != match_[size_t(q)] || outputSlot(g_, pa, a) != outputSlot(g_, pb, b)) return false;
                continue;
            }
            if (pb != kNoNode && matchedPos_.count(pb)) return false; // wired inside where the copy reads from outside
            if (cg_.weight[size_t(a)]) {
                if (a != b) return false; // its own weights: another module
                continue;
            }
            const Tensor& ta = g_.tensor(a);
            const Tensor& tb = g_.tensor(b);
            if (ta.value && ta.value->isInteger()) {
                // Shape arithmetic is structure.
                if (!tb.value || tb.value->ints != ta.value->ints || tb.value->shape.dims != ta.value->shape.dims) return false;
                continue;
            }
            if (!sameKind(a, b)) return false;
            // One outside tensor of the copy is one outside tensor of the twin (two may coincide there).
            auto [it, added] = outside_.emplace(a, b);
            if (!added && it->second != b) return false;
        }
        return true;
    }

    bool sameKind(TensorId a, TensorId b) const
    {
        const Tensor& ta = g_.tensor(a);
        const Tensor& tb = g_.tensor(b);
        return ta.dtype == tb.dtype && hashShape(ta.shape) == hashShape(tb.shape);
    }

    const CompactGraph& cg_;
    const Graph& g_;
    const std::vector<NodeId>& copy_;
    const std::vector<char>& available_;
    std::unordered_map<NodeId, int> templatePos_;
    std::vector<NodeId> match_;
    std::unordered_map<NodeId, int> matchedPos_;
    std::unordered_map<TensorId, TensorId> outside_;
    std::vector<int> queue_;
};

// Where a twin goes in the chain: before the run's first copy when it feeds it, after the last
// when it reads it, provided every edge to and from it still runs forward; -1 otherwise.
int placement(const Graph& g, const std::vector<NodeId>& twin, const std::vector<int>& blockOf, const std::vector<int>& members)
{
    std::unordered_map<NodeId, char> inTwin;
    for (NodeId v : twin) inTwin.emplace(v, 1);
    bool feedsFirst = false, readsLast = false;
    for (NodeId v : twin) {
        for (TensorId t : g.node(v).outputs)
            if (t != kNoTensor)
                for (NodeId c : g.tensor(t).consumers) feedsFirst = feedsFirst || blockOf[size_t(c)] == members.front();
        for (TensorId t : g.node(v).inputs) {
            const NodeId p = t == kNoTensor ? kNoNode : g.tensor(t).producer;
            readsLast = readsLast || (p != kNoNode && blockOf[size_t(p)] == members.back());
        }
    }
    if (feedsFirst == readsLast) return -1;
    const int at = feedsFirst ? members.front() : members.back() + 1;
    for (NodeId v : twin) {
        for (TensorId t : g.node(v).inputs) {
            const NodeId p = t == kNoTensor ? kNoNode : g.tensor(t).producer;
            if (p != kNoNode && !inTwin.count(p) && blockOf[size_t(p)] >= at) return -1;
        }
        for (TensorId t : g.node(v).outputs)
            if (t != kNoTensor)
                for (NodeId c : g.tensor(t).consumers)
                    if (!inTwin.count(c) && blockOf[size_t(c)] < at) return -1;
    }
    return at;
}

struct Found {
    int at = 0; // chain index the copy is inserted before
    BlockPlan plan;
};

} // namespace

void addTiedRunCopies(const CompactGraph& cg, const NodeHashes& hashes, const Segmentation& seg, std::vector<BlockPlan>& blocks)
{
    const Graph& g = cg.ir;
    std::map<int, std::vector<int>> runs; // run -> its blocks, one per copy, in chain order
    for (size_t b = 0; b < blocks.size(); ++b)
        if (blocks[b].mark.run >= 0) runs[blocks[b].mark.run].push_back(int(b));

    std::vector<int> blockOf;    // per node, built on the first tied run
    std::unique_ptr<CanonicalScratch> scratchOwner;
    std::vector<char> available; // nodes of blocks in no run and no tied group
    std::vector<Found> found;
    for (const auto& [run, members] : runs) {
        bool onePerCopy = members.size() >= 2;
        for (size_t i = 0; i < members.size() && onePerCopy; ++i) onePerCopy = blocks[size_t(members[i])].mark.copy == int(i);
        if (!onePerCopy) continue;
        const BlockLayout first = layoutOf(seg, blocks[size_t(members[0])]);
        const BlockLayout second = layoutOf(seg, blocks[size_t(members[1])]);
        // Weights every copy reads at the same position: one set of weights, applied in a loop.
        std::vector<std::pair<int, int>> tiedSlots;
        for (size_t p = 0; p < first.nodes.size(); ++p) {
            const Node& a = g.node(first.nodes[p]);
            const Node& b = g.node(second.nodes[p]);
            for (size_t s = 0; s < a.inputs.size() && s < b.inputs.size(); ++s)
                if (a.inputs[s] != kNoTensor && a.inputs[s] == b.inputs[s] && cg.weight[size_t(a.inputs[s])])
                    tiedSlots.emplace_back(int(p), int(s));
        }
        if (tiedSlots.empty()) continue;
        if (blockOf.empty()) {
            scratchOwner = std::make_unique<CanonicalScratch>(cg);
            blockOf.assign(g.nodes.size(), -1);
            available.assign(g.nodes.size(), 0);
            for (size_t b = 0; b < blocks.size(); ++b) {
                const bool free = blocks[b].mark.run < 0 && blocks[b].mark.tied == 0;
                forEachNode(seg, blocks[b], [&](NodeId v) {
                    blockOf[size_t(v)] = int(b);
                    available[size_t(v)] = char(free);
                });
            }
        }
        // Each free reader of the first tied weight may start a twin; one that every position
        // matches, next to the run, is kept.
        CanonicalScratch& scratch = *scratchOwner;
        const auto [p0, s0] = tiedSlots.front();
        const Node& anchor = g.node(first.nodes[size_t(p0)]);
        std::vector<NodeId> starts = CopyMatcher(cg, first.nodes, available).readers(anchor.inputs[size_t(s0)], size_t(s0), anchor.opType);
        std::stable_sort(starts.begin(), starts.end(), [&](NodeId a, NodeId b) { return blockOf[size_t(a)] < blockOf[size_t(b)]; });
        bool tiedRun = false;
        for (NodeId start : starts) {
            if (!available[size_t(start)]) continue;
            const std::vector<NodeId> twin = CopyMatcher(cg, first.nodes, available).run(p0, start, tiedSlots);
            if (twin.empty()) continue;
            const int at = placement(g, twin, blockOf, members);
            if (at < 0) continue;
            const uint64_t tie = hashMix(0x7a1ed2ULL, first.signature);
            Found f;
            f.at = at;
            f.plan.nodes = twin;
            f.plan.signature = orderedSignature(cg, twin, hashes, scratch);
            f.plan.parts = first.parts; // positions correspond: the copy's parts are the twin's
            f.plan.mark = blocks[size_t(members.front())].mark;
            f.plan.mark.copy = at == members.front() ? -1 : int(members.size());
            f.plan.mark.tied = tie;
            for (NodeId v : twin) available[size_t(v)] = 0;
            found.push_back(std::move(f));
            tiedRun = true;
        }
        if (tiedRun)
            for (int b : members) blocks[size_t(b)].mark.tied = hashMix(0x7a1ed2ULL, first.signature);
    }
    if (found.empty()) return;

    std::vector<char> taken(g.nodes.size(), 0);
    for (const Found& f : found)
        for (NodeId v : f.plan.nodes) taken[size_t(v)] = 1;
    CanonicalScratch& scratch = *scratchOwner;
    std::vector<BlockPlan> out;
    out.reserve(blocks.size() + found.size());
    auto insertAt = [&](int at) {
        for (Found& f : found)
            if (f.at == at) out.push_back(std::move(f.plan));
    };
    for (size_t b = 0; b < blocks.size(); ++b) {
        insertAt(int(b));
        std::vector<NodeId> kept;
        bool lost = false;
        forEachNode(seg, blocks[b], [&](NodeId v) {
            if (taken[size_t(v)]) lost = true;
            else kept.push_back(v);
        });
        if (!lost) {
            out.push_back(std::move(blocks[b]));
            continue;
        }
        if (kept.empty()) continue;
        // What stays of a block that gave up nodes keeps their order (fixed by structure alone).
        BlockPlan rest;
        rest.mark = blocks[b].mark;
        rest.signature = hashMix(0x4e57ULL, orderedSignature(cg, kept, hashes, scratch));
        rest.parts = {{0, rest.signature}};
        rest.nodes = std::move(kept);
        out.push_back(std::move(rest));
    }
    insertAt(int(blocks.size()));
    blocks = std::move(out);
}

} // namespace tapas
