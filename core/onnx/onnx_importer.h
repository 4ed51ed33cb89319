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

struct ImportOptions {
    DimBindings dims;        // symbolic dim name -> value, applied before shape inference
    bool runChecker = true;  // onnx::checker problems become warnings, never silent
    Progress progress;
};

// Errors name the file and, where one is at fault, the node or tensor.
Result<Graph> importOnnxFile(const std::string& path, const ImportOptions& options = {});
// `displayName` stands in for the file name in messages; `baseDir` is where external data lives.
Result<Graph> importOnnxBytes(std::string_view bytes, const std::string& displayName,
                              const std::string& baseDir, const ImportOptions& options = {});

} // namespace tapas
