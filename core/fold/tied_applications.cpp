#include "core/fold/tied_applications.h"

#include <algorithm>
#include <tuple>

namespace tapas {

namespace {

class TieFinder {
public:
    TieFinder(const CompactGraph& cg, const NodeHashes& hashes, const std::vector<char>& data, const std::vector<NodeId>& topo)
        : cg_(cg), g_(cg.ir), hashes_(hashes), data_(data), topoIndex_(cg.nodeCount, -1), shapeFree_(cg.nodeCount, 0),
          copyOf_(cg.nodeCount, -1), positionOf_(cg.nodeCount, -1), taken_(cg.nodeCount, 0), tried_(cg.tensorCount, 0)
    {
        for (size_t i = 0; i < topo.size(); ++i) topoIndex_[size_t(topo[i])] = int(i);
    }

    std::vector<TiedGroup> run(const std::vector<NodeId>& topo)
    {
        std::vector<TiedGroup> out;
        for (NodeId v : topo) {
            if (!data_[size_t(v)] || taken_[size_t(v)]) continue;
            const auto inputs = cg_.inputs(v);
            for (size_t slot = 0; slot < inputs.size(); ++slot) {
                const TensorId t = inputs[slot];
                if (t == kNoTensor || tried_[size_t(t)] || !weight(t)) continue;
                tried_[size_t(t)] = 1;
                // Most weights have one reader: no group, and nothing more to look at.
                if (cg_.readers(t).size() < 2) continue;
                std::vector<NodeId> anchors;
                for (NodeId c : cg_.readers(t))
                    if (available(c) && cg_.op[size_t(c)] == cg_.op[size_t(v)] && cg_.input(c, slot) == t &&
                        std::find(anchors.begin(), anchors.end(), c) == anchors.end())
                        anchors.push_back(c);
                if (anchors.size() < 2) continue;
                std::sort(anchors.begin(), anchors.end(), [&](NodeId a, NodeId b) { return topoIndex_[size_t(a)] < topoIndex_[size_t(b)]; });
                TiedGroup group = grow(anchors);
                if (group.copies.empty()) continue;
                out.push_back(std::move(group));
                if (taken_[size_t(v)]) break;
            }
        }
        return out;
    }

private:
    // A parameter, or Identity(parameter): how exporters alias one weight read by several layers.
    // A scalar is no module's weight (a scale or an eps that every level reads alike).
    bool weight(TensorId t) const { return cg_.weight[size_t(t)] != 0; }

    bool activation(TensorId t) const
    {
        const Tensor& tensor = g_.tensor(t);
        return tensor.producer == kNoNode ? tensor.kind == TensorKind::Input : !hashes_.meta[size_t(tensor.producer)];
    }

    bool available(NodeId v) const { return data_[size_t(v)] && !taken_[size_t(v)] && copyOf_[size_t(v)] < 0; }

    uint64_t shapeFree(NodeId v)
    {
        uint64_t& h = shapeFree_[size_t(v)];
        if (!h) h = shapeFreeNodeHash(g_, hashes_.meta, v) | 1;
        return h;
    }

    // Whether `nodes` (one per copy) can be position `copies[0].size()` of every copy.
    bool fits(const std::vector<NodeId>& nodes) const
    {
        const size_t k = nodes.size();
        const Node& first = g_.node(nodes[0]);
        for (size_t i = 0; i < k; ++i) {
            const Node& n = g_.node(nodes[i]);
            if (n.inputs.size() != first.inputs.size()) return false;
            for (size_t s = 0; s < n.inputs.size(); ++s) {
                const TensorId a = first.inputs[s], b = n.inputs[s];
                if ((a == kNoTensor) != (b == kNoTensor)) return false;
                if (b == kNoTensor) continue;
                if (activation(b)) {
                    // Read from inside its own copy, at the position and output slot its twins read.
                    const NodeId pa = g_.tensor(a).producer, pb = g_.tensor(b).producer;
                    if (pb == kNoNode || copyOf_[size_t(pb)] != int(i)) return false;
                    if (positionOf_[size_t(pb)] != positionOf_[size_t(pa)]) return false;
                    const auto& oa = g_.node(pa).outputs;
                    const auto& ob = g_.node(pb).outputs;
                    if (std::find(oa.begin(), oa.end(), a) - oa.begin() != std::find(ob.begin(), ob.end(), b) - ob.begin())
                        return false;
                } else if (weight(a) || weight(b)) {
                    if (a != b) return false; // its own weights: another module
                } else {
                    // Shape arithmetic and other constants: equal values, or the copies differ here.
                    const Tensor& ta = g_.tensor(a);
                    const Tensor& tb = g_.tensor(b);
                    const NodeId pa = ta.producer, pb = tb.producer;
                    if (a != b && (pa == kNoNode || pb == kNoNode || hashes_.local[size_t(pa)] != hashes_.local[size_t(pb)]) &&
                        !(ta.value && tb.value && ta.value->ints == tb.value->ints && ta.value->shape.dims == tb.value->shape.dims))
                        return false;
                }
            }
        }
        return true;
    }

    TiedGroup grow(const std::vector<NodeId>& anchors)
    {
        const size_t k = anchors.size();
        std::vector<std::vector<NodeId>> copies(k);
        auto place = [&](const std::vector<NodeId>& nodes) {
            for (size_t i = 0; i < k; ++i) {
                copyOf_[size_t(nodes[i])] = int(i);
                positionOf_[size_t(nodes[i])] = int(copies[i].size());
                copies[i].push_back(nodes[i]);
            }
        };
        place(anchors);
        using Keyed = std::tuple<uint64_t, NodeId>;
        std::vector<std::vector<Keyed>> next(k);
        for (size_t p = 0; p < copies[0].size(); ++p) {
            const size_t outputs = g_.node(copies[0][p]).outputs.size();
            for (size_t o = 0; o < outputs; ++o) {
                bool usable = true;
                for (size_t i = 0; i < k && usable; ++i) {
                    next[i].clear();
                    const TensorId t = g_.node(copies[i][p]).output(o);
                    if (t == kNoTensor) continue;
                    for (NodeId c : g_.tensor(t).consumers) {
                        if (!available(c)) continue;
                        uint64_t key = shapeFree(c);
                        const Node& cn = g_.node(c);
                        for (size_t s = 0; s < cn.inputs.size(); ++s)
                            if (cn.inputs[s] == t) key = hashMix(key, s);
                        next[i].emplace_back(key, c);
                    }
                    std::sort(next[i].begin(), next[i].end());
                    next[i].erase(std::unique(next[i].begin(), next[i].end()), next[i].end());
                }
                // The same consumers, each kind once, in every copy: otherwise nothing pairs them.
                for (size_t i = 0; i < k && usable; ++i) {
                    usable = next[i].size() == next[0].size();
                    for (size_t j = 0; j < next[i].size() && usable; ++j) {
                        usable = std::get<0>(next[i][j]) == std::get<0>(next[0][j]);
                        if (j > 0 && std::get<0>(next[i][j]) == std::get<0>(next[i][j - 1])) usable = false;
                    }
                }
                if (!usable) continue;
                std::vector<NodeId> nodes(k);
                for (size_t j = 0; j < next[0].size(); ++j) {
                    bool distinct = true;
                    for (size_t i = 0; i < k; ++i) {
                        nodes[i] = std::get<1>(next[i][j]);
                        if (copyOf_[size_t(nodes[i])] >= 0) distinct = false; // joined already, or shared
                    }
                    std::vector<NodeId> sorted = nodes;
                    std::sort(sorted.begin(), sorted.end());
                    if (!distinct || std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) continue;
                    if (fits(nodes)) place(nodes);
                }
            }
        }
        // Keep what reads the tied weights and what lies between such nodes: the weightless tail
        // (a norm's arithmetic after a shared embedding) belongs to whatever reads it next, such
        // as the first layer of a stack, which must stay a twin of the layers after it. Positions
        // are in topological order (a node joins after all its producers).
        std::vector<char> needed(copies[0].size(), 0);
        for (size_t p = copies[0].size(); p-- > 0;) {
            const Node& node = g_.node(copies[0][p]);
            bool need = false;
            for (TensorId t : node.inputs) need = need || (t != kNoTensor && weight(t));
            for (TensorId t : node.outputs) {
                if (t == kNoTensor) continue;
                for (NodeId c : g_.tensor(t).consumers)
                    if (copyOf_[size_t(c)] == 0 && needed[size_t(positionOf_[size_t(c)])]) need = true;
            }
            needed[p] = char(need);
        }
        for (size_t i = 0; i < k; ++i) {
            size_t kept = 0;
            for (size_t p = 0; p < copies[i].size(); ++p) {
                if (needed[p]) {
                    copies[i][kept++] = copies[i][p];
                    continue;
                }
                copyOf_[size_t(copies[i][p])] = -1;
                positionOf_[size_t(copies[i][p])] = -1;
            }
            copies[i].resize(kept);
        }
        for (size_t i = 0; i < k; ++i)
            for (size_t p = 0; p < copies[i].size(); ++p) positionOf_[size_t(copies[i][p])] = int(p);
        TiedGroup group;
        if (copies[0].size() >= 2) {
            uint64_t sig = hashMix(0x71edULL, copies[0].size());
            for (NodeId v : copies[0]) {
                sig = hashMix(sig, shapeFree(v));
                for (TensorId t : g_.node(v).inputs) {
                    const NodeId p = t == kNoTensor ? kNoNode : g_.tensor(t).producer;
                    sig = hashMix(sig, p != kNoNode && copyOf_[size_t(p)] == 0 ? uint64_t(positionOf_[size_t(p)]) : ~0ULL);
                }
            }
            group.signature = sig;
            for (size_t p = 0; p < copies[0].size() && !group.shapesDiffer; ++p)
                for (size_t i = 1; i < k; ++i)
                    if (hashes_.local[size_t(copies[i][p])] != hashes_.local[size_t(copies[0][p])]) group.shapesDiffer = true;
        }
        for (const auto& c : copies)
            for (NodeId v : c) {
                copyOf_[size_t(v)] = -1;
                positionOf_[size_t(v)] = -1;
                if (copies[0].size() >= 2) taken_[size_t(v)] = 1;
            }
        if (copies[0].size() >= 2) group.copies = std::move(copies);
        return group;
    }

    const CompactGraph& cg_;
    const Graph& g_;
    const NodeHashes& hashes_;
    const std::vector<char>& data_;
    std::vector<int> topoIndex_;
    std::vector<uint64_t> shapeFree_;
    std::vector<int> copyOf_, positionOf_;
    std::vector<char> taken_;
    std::vector<char> tried_; // per tensor: already a seed
};

} // namespace

std::vector<TiedGroup> findTiedApplications(const CompactGraph& cg, const NodeHashes& hashes, const std::vector<char>& data,
                                            const std::vector<NodeId>& topo)
{
    return TieFinder(cg, hashes, data, topo).run(topo);
}

void separateTiedApplications(const CompactGraph& cg, const NodeHashes& hashes, const std::vector<char>& data,
                              const std::vector<NodeId>& topo, Segmentation& seg)
{
    const std::vector<TiedGroup> groups = findTiedApplications(cg, hashes, data, topo);
    if (groups.empty()) return;
    const Graph& g = cg.ir;
    const size_t n = g.nodes.size();
    std::vector<int> segOf(n, -1), chainPos(seg.segments.size(), 0);
    for (size_t s = 0; s < seg.segments.size(); ++s)
        for (NodeId v : seg.segments[s].nodes) segOf[size_t(v)] = int(s);
    int position = 0;
    for (const FoldRegion& r : seg.regions)
        for (int s : r.segments) chainPos[size_t(s)] = position++;

    struct Copy {
        const std::vector<NodeId>* nodes;
        uint64_t tied;
    };
    std::vector<Copy> copies;
    std::vector<int> copyOf(n, -1);
    std::vector<std::vector<int>> placedAt(seg.segments.size()); // copies placed before a segment's rest
    std::vector<int> stamp(seg.segments.size(), -1);
    for (size_t gi = 0; gi < groups.size(); ++gi) {
        const TiedGroup& group = groups[gi];
        bool keep = group.shapesDiffer;
        for (size_t c = 0; c < group.copies.size() && !keep; ++c)
            for (NodeId v : group.copies[c]) {
                int& st = stamp[size_t(segOf[size_t(v)])];
                if (st >= 0 && st != int(c)) keep = true; // two copies side by side in one segment
                st = int(c);
            }
        for (const auto& copy : group.copies)
            for (NodeId v : copy) stamp[size_t(segOf[size_t(v)])] = -1;
        if (!keep) continue;
        for (const auto& copy : group.copies) {
            int first = copy.front();
            for (NodeId v : copy)
                if (chainPos[size_t(segOf[size_t(v)])] < chainPos[size_t(segOf[size_t(first)])]) first = v;
            for (NodeId v : copy) copyOf[size_t(v)] = int(copies.size());
            placedAt[size_t(segOf[size_t(first)])].push_back(int(copies.size()));
            copies.push_back({&copy, group.signature});
        }
    }
    if (copies.empty()) return;

    std::vector<FoldSegment> out;
    std::vector<char> touched, reached(n, 0);
    std::vector<int> pieceOf(n, -1);
    auto add = [&](int region, std::vector<NodeId> nodes, uint64_t tied, bool fresh, std::vector<int>& chain) {
        if (nodes.empty()) return;
        FoldSegment piece;
        piece.region = region;
        piece.nodes = std::move(nodes);
        piece.tied = tied;
        for (NodeId v : piece.nodes) pieceOf[size_t(v)] = int(out.size());
        chain.push_back(int(out.size()));
        touched.push_back(char(fresh));
        out.push_back(std::move(piece));
    };
    for (FoldRegion& region : seg.regions) {
        std::vector<int> chain;
        for (int s : region.segments) {
            FoldSegment& fs = seg.segments[size_t(s)];
            const int r = fs.region;
            std::vector<NodeId> pre, post;
            // Segments list their nodes in topological order: a rest node depends on a copy placed
            // here when one of its producers is in such a copy or depends on one.
            for (NodeId v : fs.nodes) {
                const int c = copyOf[size_t(v)];
                bool after = false;
                if (c < 0)
                    for (TensorId t : g.node(v).inputs) {
                        const NodeId p = t == kNoTensor ? kNoNode : g.tensor(t).producer;
                        if (p == kNoNode) continue;
                        const int pc = copyOf[size_t(p)];
                        after = after || reached[size_t(p)] ||
                                (pc >= 0 && std::find(placedAt[size_t(s)].begin(), placedAt[size_t(s)].end(), pc) != placedAt[size_t(s)].end());
                    }
                reached[size_t(v)] = char(after);
                if (c >= 0) continue;
                (after ? post : pre).push_back(v);
            }
            for (NodeId v : fs.nodes) reached[size_t(v)] = 0;
            const bool whole = pre.size() == fs.nodes.size();
            if (whole) {
                for (NodeId v : fs.nodes) pieceOf[size_t(v)] = int(out.size());
                chain.push_back(int(out.size()));
                touched.push_back(0);
                out.push_back(std::move(fs));
                continue;
            }
            add(r, std::move(pre), 0, true, chain);
            for (int c : placedAt[size_t(s)]) add(r, *copies[size_t(c)].nodes, copies[size_t(c)].tied, true, chain);
            add(r, std::move(post), 0, true, chain);
        }
        region.segments = std::move(chain);
    }
    for (size_t i = 0; i < out.size(); ++i)
        if (touched[i]) out[i].sinks = pieceSinks(cg, data, hashes.refined, pieceOf, int(i), out[i].nodes);
    seg.segments = std::move(out);
}

} // namespace tapas
