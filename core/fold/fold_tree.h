#pragma once
// The fold as a tree, the way a person reads a model: model -> stage -> group -> block ->
// sub-block. Every level is a list of children, some of them instances of a repeated class.
//
// - Block: one block of FoldedGraph::chain (the unit the search runs once per class).
// - Group: a repeat whose period holds several blocks (a Swin stage repeats (window, shifted)
//   pairs; an MoE stack repeats (dense, MoE) layers), or the pieces a long unique stretch was cut
//   into (at most ~200 nodes each), so that no level shows a thousand-node blob.
// - Stage: a stretch of the chain whose stream keeps one shape (a ResNet stage: its
//   down-sampling block and the bottlenecks after it), or one region (encoder, decoder). Only
//   present when the model has at least two stages of several children.
// - SubBlock: a block's own parts, cut at the tensors every path crosses (attention and MLP of a
//   transformer layer), when it has several.
//
// A class is a set of structurally identical subtrees under one parent class, so every class has
// exactly one parent class and `instances` lists its occurrences in chain order. Like the rest
// of the fold, the tree never depends on names: scopes only label it.
#include <cstdint>
#include <string>
#include <vector>

namespace tapas {

enum class FoldLevel : uint8_t { Model, Stage, Group, Block, SubBlock };
const char* foldLevelName(FoldLevel level); // "model", "stage", "group", "block", "sub-block"

struct FoldTreeNode {              // one occurrence
    int cls = -1;                  // its class, an index into FoldTree::classes
    int parent = -1;               // parent occurrence; -1 for the root
    int instance = 0;              // its index among the class's instances
    int chainBegin = 0, chainEnd = 0;       // the blocks [chainBegin, chainEnd) of FoldedGraph::chain
    int positionBegin = 0, positionEnd = 0; // SubBlock: node positions in its block instance
    std::vector<int> children;     // occurrences, in chain order
};

struct FoldTreeClass {
    int id = 0;
    int parent = -1;               // parent class; -1 for the model
    FoldLevel level = FoldLevel::Block;
    uint64_t signature = 0;        // equal under one parent <=> the same class
    int blockClass = -1;           // Block: the FoldedGraph class id; else -1
    std::vector<int> instances;    // occurrences in chain order
    std::vector<int> children;     // child classes, in order of first appearance
    int nodesPerInstance = 0;
    int64_t paramsPerInstance = 0;
    double coverage = 0;           // share of the graph's nodes inside this class's instances
    std::string scope;             // common name scope of the first instance, "" without names
    // Its instances are consecutive copies of a tandem repeat (layers, stage blocks, unrolled
    // iterations), not identical parts met apart inside a long unique stretch.
    bool fromRun = false;
    // Its instances apply one set of weights (one module run on several inputs: a detector head on
    // every pyramid level), found by tied_applications.h.
    bool tied = false;
    // Tied instances that see tensors of other shapes, or read constants where their twins read
    // activations (tied_run_copies.h): each instance's block class (through
    // FoldTreeNode::chainBegin and FoldedGraph::chain) holds one shape, so the search, which
    // replays a block class's costs for all its instances, costs every shape apart. blockClass is
    // the first instance's then.
    bool shapesDiffer = false;
    bool repeated() const { return instances.size() >= 2; }
};

struct FoldTree {
    std::vector<FoldTreeClass> classes; // classes[0] is the model
    std::vector<FoldTreeNode> nodes;    // nodes[0] is the root occurrence
    std::vector<int> blockNode;         // per chain index: its Block occurrence

    bool empty() const { return classes.empty(); }
    int depth() const; // levels below the model
    // Repeated classes at the stage, group and block levels that come from a tandem repeat or a
    // tied module, hold
    // more than one node and read weights (more than a scalar), and none of whose ancestors repeats, in order of first
    // appearance: what a person counts as the model's repeats.
    std::vector<int> outerRepeats() const;
    // The path of classes from the model down to `cls`, both included.
    std::vector<int> pathTo(int cls) const;
};

} // namespace tapas
