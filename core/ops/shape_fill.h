#pragma once
// Our own shape pass, run after onnx::shape_inference: walks the graph in topological order,
// folds small integer constants (Shape -> Gather -> Concat -> Reshape chains), and fills every
// shape that the op and its constant inputs determine. What stays unknown truly depends on
// run-time data; each such tensor gets a warning naming it.
#include "core/ir/graph.h"

#include <string>
#include <vector>

namespace tapas {

struct ShapeFillReport {
    int filled = 0;                  // tensors whose shape this pass determined
    std::vector<std::string> unknown; // tensor names still without a shape
};

ShapeFillReport fillMissingShapes(Graph& g);

// Replaces symbolic dims by bound values everywhere in the graph (after import).
void bindDims(Graph& g, const DimBindings& dims);

} // namespace tapas
