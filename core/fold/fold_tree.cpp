#include "core/fold/fold_tree.h"

#include <algorithm>

namespace tapas {

const char* foldLevelName(FoldLevel level)
{
    switch (level) {
    case FoldLevel::Model: return "model";
    case FoldLevel::Stage: return "stage";
    case FoldLevel::Group: return "group";
    case FoldLevel::Block: return "block";
    case FoldLevel::SubBlock: return "sub-block";
    }
    return "?";
}

int FoldTree::depth() const
{
    int deepest = 0;
    for (const FoldTreeClass& c : classes) deepest = std::max(deepest, int(pathTo(c.id).size()) - 1);
    return deepest;
}

std::vector<int> FoldTree::pathTo(int cls) const
{
    std::vector<int> path;
    for (int c = cls; c >= 0; c = classes[size_t(c)].parent) path.push_back(c);
    std::reverse(path.begin(), path.end());
    return path;
}

std::vector<int> FoldTree::outerRepeats() const
{
    std::vector<int> out;
    for (const FoldTreeClass& c : classes) {
        if (!c.repeated() || !(c.fromRun || c.tied) || c.level == FoldLevel::SubBlock || c.level == FoldLevel::Model) continue;
        // A lone repeated Conv, or a pair of reshapes reading no weight (a scalar such as a
        // scale is no weight), is no block a person counts.
        if (c.nodesPerInstance < 2 || c.paramsPerInstance <= 1) continue;
        bool outer = true;
        for (int p = c.parent; p >= 0 && outer; p = classes[size_t(p)].parent) outer = !classes[size_t(p)].repeated();
        if (outer) out.push_back(c.id);
    }
    // Classes are numbered top-down; first appearance in the chain is what a reader follows.
    std::sort(out.begin(), out.end(), [&](int a, int b) {
        const FoldTreeNode& na = nodes[size_t(classes[size_t(a)].instances.front())];
        const FoldTreeNode& nb = nodes[size_t(classes[size_t(b)].instances.front())];
        return std::make_pair(na.chainBegin, a) < std::make_pair(nb.chainBegin, b);
    });
    return out;
}

} // namespace tapas
