#pragma once
// Our own shape pass, run after onnx::shape_inference: walks the graph in topological order,
// folds small integer constants (Shape -> Gather -> Concat -> Reshape chains), and fills every
// shape that the op and its constant inputs determine. What stays unknown truly depends on
// run-time data; each such tensor gets a warning naming it. A rule that throws (none should;
// a hostile file might make one) leaves that node's outputs as they were and is reported.
#include "core/ir/graph.h"

#include <string>
#include <vector>

namespace tapas {

struct ShapeFillReport {
    int filled = 0;                  // tensors whose shape this pass determined
    std::vector<std::string> unknown; // tensor names still without a shape
    // One sentence per node whose rule threw, naming the node, its op and the exception.
    std::vector<std::string> ruleFailures;
};

class OpRegistry;

ShapeFillReport fillMissingShapes(Graph& g);
// With the rules of `rules` instead of the global registry's (tests plant rules here).
ShapeFillReport fillMissingShapes(Graph& g, const OpRegistry& rules);

// Replaces symbolic dims by bound values everywhere in the graph (after import).
void bindDims(Graph& g, const DimBindings& dims);

} // namespace tapas
