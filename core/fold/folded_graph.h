#pragma once
// The graph partitioned into blocks (DESIGN.md, "Fold"): each block is an instance of a
// BlockClass, the set of structurally identical blocks, and every node belongs to exactly one
// block instance. Parts that do not repeat are blocks too, of classes with one instance, so
// the search and the stitch walk one uniform chain of blocks.
#include "core/fold/fold_tree.h"
#include "core/ir/graph.h"
#include "core/util/progress.h"
#include "core/util/result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tapas {

struct BlockInstance {
    // In canonical position order: position p of every instance of a class is the
    // structurally corresponding node.
    std::vector<NodeId> nodes;
    // Tensors crossing the boundary (activations, graph inputs and shared constants; never
    // initializers, which belong to the block that reads them), in canonical order.
    std::vector<TensorId> inputs;
    std::vector<TensorId> outputs;
};

struct BlockClass {
    int id = 0;
    uint64_t signature = 0;       // equal signature <=> structurally identical blocks
    std::vector<BlockInstance> instances; // in chain order
    int nodesPerInstance = 0;
    int64_t paramsPerInstance = 0; // parameter elements read by one instance
    std::string scope;             // common name scope of the first instance, "" without names
    // The block's parts (its segments, cut where every path crosses): first position of each,
    // and its structural signature. The fold tree shows them as sub-blocks.
    std::vector<int> partStarts;
    std::vector<uint64_t> partSignatures;
    bool repeated() const { return instances.size() >= 2; }
};

struct NodeBlockRef {
    int classId = -1;
    int instance = -1;
    int position = -1;
};

struct BlockRef {
    int classId = -1;
    int instance = -1;
};

struct FoldedGraph {
    std::vector<BlockClass> classes;  // ordered by first appearance in the chain
    std::vector<NodeBlockRef> nodeRef; // indexed by NodeId
    std::vector<BlockRef> chain;       // every block instance in data-flow order
    double coverage = 0;               // fraction of nodes in classes with >= 2 instances
    int segments = 0;                  // cut points found (diagnostics)
    // The same blocks nested as a person reads the model (model -> stage -> group -> block ->
    // sub-block); see fold_tree.h. The flat chain above stays what the search walks.
    FoldTree tree;

    int repeatedClassCount() const;
    // The block classes of a Block-level tree class's instances, distinct, in order of first
    // appearance: one, or one per shape when its tied instances see other shapes.
    std::vector<int> blockClassesOf(int treeClass) const;
    const BlockClass& classOf(NodeId n) const { return classes[size_t(nodeRef[size_t(n)].classId)]; }
};

struct FoldOptions {
    int refineRounds = 3; // Weisfeiler–Lehman rounds for the tie-breaking hashes
    // A stretch that repeats nothing is cut into blocks of at most this many nodes (at segment
    // boundaries, or along a segment's canonical order when one segment alone is larger).
    int maxUniqueBlockNodes = 200;
};

// Longest common name scope of `nodes` by whole path components ("/h.0/attn", "/h.0/mlp" -> "/h.0").
std::string commonScope(const Graph& g, const std::vector<NodeId>& nodes);
// Parameter elements `nodes` read, counting an Identity-aliased weight as the weight itself.
int64_t parametersRead(const Graph& g, const std::vector<NodeId>& nodes);

// Never reads node names or relies on the file's node order: a model with scrubbed names or
// shuffled nodes folds into the same classes with the same signatures.
Result<FoldedGraph> foldGraph(const Graph& g, const FoldOptions& options = {}, const Progress& progress = {});

} // namespace tapas
