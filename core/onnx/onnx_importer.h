#pragma once
// ONNX -> Graph. Uses the ONNX library's protobuf classes, onnx::shape_inference (with data
// propagation) and the checker, then fills the shapes ONNX leaves empty with our own op rules.
// Weight bytes are dropped right after parsing: planning needs shapes, not values.
#include "core/ir/graph.h"
#include "core/util/progress.h"
#include "core/util/result.h"

#include <string>
#include <string_view>

namespace tapas {

// Whether ONNX's own shape inference runs on every import or only when Tapas's shape pass leaves
// some tensor without a complete type (see onnx_shape_stage.h). Both give the same shapes on the
// corpus (tst_onnx_shape_stage); Always is for that comparison.
enum class OnnxShapeInference { WhenNeeded, Always };

struct ImportOptions {
    DimBindings dims;        // symbolic dim name -> value, applied before shape inference
    bool runChecker = true;  // onnx::checker problems become warnings, never silent
    // Find the batch axis (Graph::batch) by probing, fixed input axes included, once no input dim
    // is left open. The probe also runs whenever an input dim is bound or `batch` is set.
    bool probeBatch = false;
    // Re-batch: bind the probed batch axis to this many samples (0 = as the file or `dims` say).
    // A fixed-batch export is re-batched through its inputs; the probe has checked that no size
    // in the graph bakes the batch in. An error when no axis qualifies, naming why.
    int64_t batch = 0;
    OnnxShapeInference onnxInference = OnnxShapeInference::WhenNeeded;
    Progress progress;
};

// Errors name the file and, where one is at fault, the node or tensor.
Result<Graph> importOnnxFile(const std::string& path, const ImportOptions& options = {});
// `displayName` stands in for the file name in messages; `baseDir` is where external data lives.
Result<Graph> importOnnxBytes(std::string_view bytes, const std::string& displayName,
                              const std::string& baseDir, const ImportOptions& options = {});

} // namespace tapas
