#pragma once
// Reading and parsing a ModelProto, with the checks protobuf itself does not make: protobuf
// happily "parses" many garbage files, so a model must also have a graph, an IR version and an
// opset. Internal to core/onnx (includes the ONNX protobuf classes).
#include "core/util/result.h"

#include <onnx/onnx_pb.h>

#include <string>
#include <string_view>

namespace tapas::onnximport {

// Parses the file at `path` straight from disk (the raw bytes are never held as one buffer).
Status parseModelFile(const std::string& path, onnx::ModelProto& model);
// Parses an in-memory model; `displayName` names it in messages.
Status parseModelBytes(std::string_view bytes, const std::string& displayName, onnx::ModelProto& model);

} // namespace tapas::onnximport
