#include "core/fold/fold_tree_builder.h"

#include "core/fold/structural_hash.h"

#include <map>
#include <utility>

namespace tapas {

namespace {

// A tree node before classes are assigned: signatures are computed bottom-up from the blocks'
// structural signatures, then classes are made top-down (a class lives under one parent class).
struct Proto {
    FoldLevel level = FoldLevel::Block;
    int chainBegin = 0, chainEnd = 0;
    int positionBegin = 0, positionEnd = 0; // SubBlock
    int blockClass = -1;
    uint64_t signature = 0;
    int nodes = 0;
    bool inRun = false;
    bool tied = false;
    std::vector<Proto> kids;
};

// A stream shape as the stage split compares it: the leaving tensor with the most known
// elements (the residual stream, not a side output such as a mask or a shape).
uint64_t streamKey(const Graph& g, const BlockInstance& inst)
{
    uint64_t key = 0;
    double best = -1;
    for (TensorId t : inst.outputs) {
        const Shape& s = g.tensor(t).shape;
        double elems = s.rankKnown ? 1.0 : 0.0;
        if (s.rankKnown)
            for (const Dim& d : s.dims) elems *= d.isKnown() ? double(std::max<int64_t>(d.value, 1)) : 64.0;
        if (elems > best) {
            best = elems;
            key = hashShape(s);
        }
    }
    return key;
}

class Builder {
public:
    Builder(const Graph& g, const FoldedGraph& fg, const std::vector<ChainMark>& marks) : g_(g), fg_(fg), marks_(marks) {}

    FoldTree build()
    {
        std::vector<Proto> items = topItems();
        Proto root;
        root.level = FoldLevel::Model;
        root.chainEnd = int(fg_.chain.size());
        root.kids = stages(std::move(items));
        finish(root);
        tree_.blockNode.assign(fg_.chain.size(), -1);
        instantiate(root, -1, -1);
        const double total = g_.nodes.empty() ? 1.0 : double(g_.nodes.size());
        for (FoldTreeClass& c : tree_.classes) c.coverage = double(c.nodesPerInstance) * double(c.instances.size()) / total;
        return std::move(tree_);
    }

private:
    const BlockClass& classAt(int chainIndex) const { return fg_.classes[size_t(fg_.chain[size_t(chainIndex)].classId)]; }
    const BlockInstance& instanceAt(int chainIndex) const
    {
        return classAt(chainIndex).instances[size_t(fg_.chain[size_t(chainIndex)].instance)];
    }

    Proto block(int b) const
    {
        const BlockClass& c = classAt(b);
        Proto p;
        p.level = FoldLevel::Block;
        p.chainBegin = b;
        p.chainEnd = b + 1;
        p.blockClass = c.id;
        p.signature = c.signature;
        p.nodes = c.nodesPerInstance;
        // The applications of one tied module are one class whatever shapes each one sees.
        const uint64_t tied = marks_[size_t(b)].tied;
        if (tied) {
            p.signature = hashMix(0x71ed0001ULL, tied);
            p.tied = true;
        }
        if (c.partStarts.size() >= 2) {
            for (size_t i = 0; i < c.partStarts.size(); ++i) {
                Proto s;
                s.level = FoldLevel::SubBlock;
                s.chainBegin = b;
                s.chainEnd = b + 1;
                s.positionBegin = c.partStarts[i];
                s.positionEnd = i + 1 < c.partStarts.size() ? c.partStarts[i + 1] : c.nodesPerInstance;
                s.nodes = s.positionEnd - s.positionBegin;
                s.signature = hashMix(tied ? hashMix(p.signature, i) : c.partSignatures[i], uint64_t(s.nodes));
                p.kids.push_back(std::move(s));
            }
        }
        return p;
    }

    static Proto group(FoldLevel level, std::vector<Proto> kids)
    {
        Proto p;
        p.level = level;
        p.chainBegin = kids.front().chainBegin;
        p.chainEnd = kids.back().chainEnd;
        p.kids = std::move(kids);
        return p;
    }

    // The chain as items: single blocks, the copies of each repeat (a group when a copy holds
    // several blocks), and the pieces of a long unique stretch under one group.
    std::vector<Proto> topItems() const
    {
        std::vector<Proto> items;
        const int m = int(fg_.chain.size());
        for (int b = 0; b < m;) {
            const ChainMark& mark = marks_[size_t(b)];
            int e = b + 1;
            if (mark.run >= 0) {
                while (e < m && marks_[size_t(e)].run == mark.run && marks_[size_t(e)].copy == mark.copy) ++e;
                std::vector<Proto> kids;
                for (int i = b; i < e; ++i) {
                    kids.push_back(block(i));
                    kids.back().inRun = true;
                }
                Proto item = kids.size() == 1 ? std::move(kids.front()) : group(FoldLevel::Group, std::move(kids));
                item.inRun = true;
                items.push_back(std::move(item));
            } else if (mark.piece >= 0) {
                while (e < m && marks_[size_t(e)].piece == mark.piece) ++e;
                std::vector<Proto> kids;
                for (int i = b; i < e; ++i) kids.push_back(block(i));
                items.push_back(kids.size() == 1 ? std::move(kids.front()) : group(FoldLevel::Group, std::move(kids)));
            } else {
                items.push_back(block(b));
            }
            b = e;
        }
        return items;
    }

    // Stretches whose stream keeps one shape (and one region): a down-sampling block opens the
    // stage it produces. Used only when at least two stages hold several children.
    std::vector<Proto> stages(std::vector<Proto> items) const
    {
        std::vector<std::vector<Proto>> parts;
        uint64_t lastKey = 0;
        int lastRegion = -1;
        for (Proto& item : items) {
            const int last = item.chainEnd - 1;
            const uint64_t key = streamKey(g_, instanceAt(last));
            const int region = marks_[size_t(last)].region;
            // The copies of one repeat never straddle a stage boundary.
            const bool sameRun = !parts.empty() && marks_[size_t(item.chainBegin)].run >= 0 &&
                                 marks_[size_t(item.chainBegin)].run == marks_[size_t(parts.back().back().chainBegin)].run;
            // A tied application stands alone: its twins, which see other shapes, may fall in other
            // stages, and one class lives under one parent. The copies of a tied run stay together.
            const bool alone = item.tied || (!parts.empty() && parts.back().size() == 1 && parts.back().front().tied);
            if (parts.empty() || (!sameRun && (alone || key != lastKey || region != lastRegion))) parts.emplace_back();
            parts.back().push_back(std::move(item));
            lastKey = key;
            lastRegion = region;
        }
        int populated = 0;
        for (const auto& p : parts) populated += p.size() >= 2 ? 1 : 0;
        std::vector<Proto> out;
        if (populated < 2) {
            for (auto& p : parts)
                for (Proto& item : p) out.push_back(std::move(item));
            return out;
        }
        for (auto& p : parts) out.push_back(p.size() == 1 ? std::move(p.front()) : group(FoldLevel::Stage, std::move(p)));
        return out;
    }

    static void finish(Proto& p)
    {
        if (p.level == FoldLevel::Block || p.level == FoldLevel::SubBlock) {
            for (Proto& k : p.kids) finish(k);
            return;
        }
        uint64_t h = hashMix(0x7ee0ULL, uint64_t(p.level));
        p.nodes = 0;
        for (Proto& k : p.kids) {
            finish(k);
            h = hashMix(h, k.signature);
            p.nodes += k.nodes;
        }
        p.signature = h;
    }

    void instantiate(const Proto& p, int parentNode, int parentClass)
    {
        auto [it, added] = classOf_.emplace(std::make_pair(parentClass, std::make_pair(uint64_t(p.level), p.signature)),
                                            int(tree_.classes.size()));
        if (added) {
            FoldTreeClass c;
            c.id = it->second;
            c.parent = parentClass;
            c.level = p.level;
            c.signature = p.signature;
            c.blockClass = p.level == FoldLevel::Block ? p.blockClass : -1;
            c.nodesPerInstance = p.nodes;
            c.paramsPerInstance = params(p);
            c.scope = scopeOf(p);
            tree_.classes.push_back(std::move(c));
            if (parentClass >= 0) tree_.classes[size_t(parentClass)].children.push_back(it->second);
        }
        const int cls = it->second;
        FoldTreeClass& made = tree_.classes[size_t(cls)];
        made.fromRun = made.fromRun || p.inRun;
        made.tied = made.tied || p.tied;
        if (p.level == FoldLevel::Block && p.blockClass != made.blockClass) made.shapesDiffer = true;
        FoldTreeNode n;
        n.cls = cls;
        n.parent = parentNode;
        n.instance = int(tree_.classes[size_t(cls)].instances.size());
        n.chainBegin = p.chainBegin;
        n.chainEnd = p.chainEnd;
        n.positionBegin = p.positionBegin;
        n.positionEnd = p.positionEnd;
        const int id = int(tree_.nodes.size());
        tree_.nodes.push_back(std::move(n));
        tree_.classes[size_t(cls)].instances.push_back(id);
        if (parentNode >= 0) tree_.nodes[size_t(parentNode)].children.push_back(id);
        if (p.level == FoldLevel::Block) tree_.blockNode[size_t(p.chainBegin)] = id;
        for (const Proto& k : p.kids) instantiate(k, id, cls);
    }

    std::vector<NodeId> nodesOf(const Proto& p) const
    {
        if (p.level == FoldLevel::SubBlock) {
            const BlockInstance& inst = instanceAt(p.chainBegin);
            return {inst.nodes.begin() + p.positionBegin, inst.nodes.begin() + p.positionEnd};
        }
        std::vector<NodeId> out;
        for (int b = p.chainBegin; b < p.chainEnd; ++b) {
            const BlockInstance& inst = instanceAt(b);
            out.insert(out.end(), inst.nodes.begin(), inst.nodes.end());
        }
        return out;
    }

    int64_t params(const Proto& p) const
    {
        if (p.level == FoldLevel::SubBlock) return parametersRead(g_, nodesOf(p));
        // Blocks read their own weights, except the applications of a tied module, whose shared
        // weights count once: only then is the (slower) count over the nodes needed.
        int64_t total = 0;
        bool tied = false;
        for (int b = p.chainBegin; b < p.chainEnd; ++b) {
            total += classAt(b).paramsPerInstance;
            tied = tied || marks_[size_t(b)].tied;
        }
        return tied ? parametersRead(g_, nodesOf(p)) : total;
    }

    std::string scopeOf(const Proto& p) const
    {
        if (p.level == FoldLevel::Block) return classAt(p.chainBegin).scope;
        if (p.level == FoldLevel::Model) return {};
        return commonScope(g_, nodesOf(p));
    }

    const Graph& g_;
    const FoldedGraph& fg_;
    const std::vector<ChainMark>& marks_;
    FoldTree tree_;
    std::map<std::pair<int, std::pair<uint64_t, uint64_t>>, int> classOf_;
};

} // namespace

FoldTree buildFoldTree(const Graph& g, const FoldedGraph& fg, const std::vector<ChainMark>& marks)
{
    return Builder(g, fg, marks).build();
}

} // namespace tapas
