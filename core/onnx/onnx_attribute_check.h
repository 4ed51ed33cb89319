#pragma once
// Our own validation of the attribute values that ONNX's shape inference divides by or indexes
// with, run before it: a Conv with strides=[0,0] or group=0 kills ONNX 1.x's inference with
// SIGFPE, and a hostile file must get an error naming the node instead. Also the graph-input
// dims: a dim value must be in [0, kMaxPlausibleDim]. Internal to core/onnx.
#include <onnx/onnx_pb.h>

#include <string>

namespace tapas::onnximport {

// The first invalid attribute (node, op, attribute, value and what is allowed) or graph-input
// dim in the graph and its subgraphs, described for an error message; "" when all are valid.
std::string findInvalidAttribute(const onnx::GraphProto& g);

} // namespace tapas::onnximport
