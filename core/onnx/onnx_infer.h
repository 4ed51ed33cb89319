#pragma once
// ONNX's own shape inference, run so that it cannot take the process down. Internal to core/onnx.
#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

namespace tapas::onnximport {

// Runs onnx::shape_inference::InferShapes on `model` (types and shapes land in value_info).
// Returns warnings; never throws. Data propagation (which folds Shape->Gather->Concat chains)
// runs only when it is safe: ONNX 1.12's data-propagation functions dereference the type of
// every input, so a node reading a tensor without a type (the output of an unknown op, a name
// nothing defines) crashes it. A first pass without data propagation settles which tensors
// have types; the second pass, with it, runs only when every input of every node that has a
// data-propagation function is typed.
std::vector<std::string> runShapeInference(onnx::ModelProto& model);

} // namespace tapas::onnximport
