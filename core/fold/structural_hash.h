#pragma once
// Structural hashes of nodes: what a node computes and on what kinds of tensors, never its
// name or its place in the file. The fold compares segments by these, so two layers that
// differ only in names (or in the order the exporter wrote them) hash the same.
#include "core/fold/compact_graph.h"
#include "core/ir/graph.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace tapas {

// Order-sensitive combination of 64-bit values (splitmix64 finaliser over a rotate-xor).
uint64_t hashMix(uint64_t seed, uint64_t value);
uint64_t hashString(std::string_view s);
uint64_t hashShape(const Shape& s);

// Meta nodes: Shape/Size and everything computed from weights, constants and shapes alone
// (Constant, Range, position ids, the causal-mask Slice). They carry no activations; a tensor
// they produce counts as a constant wherever it is read. `topo`: every node, topologically.
std::vector<char> metaNodes(const CompactGraph& cg, const std::vector<NodeId>& topo);

// What an operation is, whatever it reads: op type, domain and attributes (with their values, in
// name order, since attribute order is the exporter's choice).
uint64_t operationHash(const Node& n);

// Per node: op type, domain, attributes (with their values), the dtype/shape/kind of every
// input and output slot, the values of integer constants (shape arithmetic), and the shapes of
// weight inputs. Float constant values are never hashed, scalars included: weights differ per
// layer by design, and a learned scalar cannot be told from an eps.
std::vector<uint64_t> localNodeHashes(const CompactGraph& cg, const std::vector<char>& meta);

// What a node computes, its activations' shapes left out: op type, domain, attributes, slot
// counts, and per slot whether it holds a constant, its dtype and (constants only) its shape.
// One module applied to inputs of other sizes (a detector head run on every pyramid level) hashes
// the same at every application.
uint64_t shapeFreeNodeHash(const Graph& g, const std::vector<char>& meta, NodeId v);

// Weisfeiler–Lehman refinement over producers (by input slot) and consumers (as a multiset),
// `rounds` times. The labels of the first and last layer differ from the middle ones (their
// neighbourhoods do), so the fold uses these only to break ties, never to compare segments.
std::vector<uint64_t> refineHashes(const CompactGraph& cg, std::vector<uint64_t> labels, int rounds);

struct NodeHashes {
    std::vector<char> meta;        // metaNodes
    std::vector<uint64_t> local;   // localNodeHashes: segment signatures are built from these
    std::vector<uint64_t> refined; // refineHashes: tie-breaks where structure alone decides
};
NodeHashes computeNodeHashes(const CompactGraph& cg, const std::vector<NodeId>& topo, int rounds = 3);

} // namespace tapas
