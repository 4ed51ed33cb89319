#pragma once
// The import's shape stage: the proto becomes a Graph whose tensors carry dtypes and shapes.
// Internal to core/onnx (the importer and the batch probe both run it).
//
// ONNX's own inference (onnx::shape_inference, twice: plain, then with data propagation) was
// the slowest stage on big graphs (about 45% of importing a 100k-node GPT). Tapas's shape pass
// derives the same shapes for most models by itself, so with OnnxShapeInference::WhenNeeded the
// graph is converted and our pass run first; only when it leaves some tensor without a complete
// type (an unknown dim, rank or dtype, or a rule that failed) is the result thrown away and the
// full pipeline run: ONNX's inference, conversion, our pass, exactly as with ::Always.
#include "core/ir/graph.h"
#include "core/onnx/onnx_importer.h"
#include "core/onnx/onnx_tensors.h"
#include "core/ops/shape_fill.h"
#include "core/util/progress.h"

#include <onnx/onnx_pb.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace tapas::onnximport {

struct TypedGraph {
    Graph graph;
    ShapeFillReport fill;              // what our pass reported on the graph that is kept
    std::vector<std::string> warnings; // from ONNX's inference, when it ran
    bool onnxInferenceRan = false;
};

// Whether every activation has a dtype, a rank and every dim a number or a named symbol (no
// unknown dims, no "unk__N" placeholders), and no shape rule failed: nothing ONNX's inference
// could add.
bool typesComplete(const Graph& g, const ShapeFillReport& fill);

// `model` has its dims bound (bindProtoDims) and output-only symbols cleared; `dims` are the
// bindings, applied again to the Graph. ONNX's inference writes value_info into `model` when
// it runs. Reports "converting", "filling shapes" (our pass) and "shape inference" (ONNX's) on
// `progress` within 0.4-0.7; once cancelled, what it returns is to be thrown away. Until ONNX's
// inference runs, `model` is only read; `beforeEditingModel` is called before it runs (the
// importer's checker reads the model meanwhile on another thread).
TypedGraph convertWithShapes(onnx::ModelProto& model, const DropReport& drops, const std::set<std::string>& fileSymbols,
                             const DimBindings& dims, OnnxShapeInference mode, const Progress& progress = {},
                             const std::function<void()>& beforeEditingModel = {});

} // namespace tapas::onnximport
