#pragma once
// The fold result for people (a table) and for scripts (JSON): each block class with its
// instance count, size, parameters and name scope, and the share of the graph that repeats.
#include "core/fold/folded_graph.h"
#include "core/ir/graph.h"

#include <nlohmann/json.hpp>

#include <string>

namespace tapas {

// {"graph", "nodes", "segments", "blocks", "coverage", "repeated_classes", "depth", "classes":
// [{"id", "level", "parent", "children", "instances", "nodes_per_instance", "params_per_instance",
// "coverage", "scope", "signature", "repeated", "first_node", "block_class"}]}: every class of the
// fold tree, the model first (its "parent" is null), each listed after its parent. "level" is
// model, stage, group, block or sub-block; "block_class" (blocks only) is the id of the flat
// block class the search and plans use; "coverage" is the share of the graph's nodes inside the
// class's instances. Classes with one instance are listed too. "repeated_classes" counts the
// repeated block classes of the flat chain.
nlohmann::json foldToJson(const Graph& g, const FoldedGraph& fg);

// The flat table of block classes.
std::string foldToText(const Graph& g, const FoldedGraph& fg);

// The fold tree, one line per class under its parent: level, instances, nodes and parameters
// per instance, coverage, and the scope (or the first node when the model has no names).
std::string foldTreeToText(const Graph& g, const FoldedGraph& fg);

} // namespace tapas
