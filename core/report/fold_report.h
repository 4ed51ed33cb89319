#pragma once
// The fold result for people (a table) and for scripts (JSON): each block class with its
// instance count, size, parameters and name scope, and the share of the graph that repeats.
#include "core/fold/folded_graph.h"
#include "core/ir/graph.h"

#include <nlohmann/json.hpp>

#include <string>

namespace tapas {

// {"graph", "nodes", "segments", "coverage", "repeated_classes", "classes": [{"id",
// "instances", "nodes_per_instance", "params_per_instance", "scope", "signature", "repeated",
// "first_node"}]}; classes with one instance are listed too.
nlohmann::json foldToJson(const Graph& g, const FoldedGraph& fg);

std::string foldToText(const Graph& g, const FoldedGraph& fg);

} // namespace tapas
