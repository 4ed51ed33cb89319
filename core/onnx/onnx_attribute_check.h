#pragma once
// Our own validation of the attribute values that ONNX's shape inference divides by or indexes
// with, run before it: a Conv with strides=[0,0] or group=0 kills ONNX 1.x's inference with
// SIGFPE, and a hostile file must get an error naming the node instead. Also the graph-input
// dims: a dim value must be in [0, kMaxPlausibleDim]. Internal to core/onnx.
#include "core/util/result.h"

#include <onnx/onnx_pb.h>

namespace tapas::onnximport {

// Fails naming the first invalid attribute (node, op, attribute, value and what is allowed) or
// graph-input dim in the graph and its subgraphs.
Status checkAttributeValues(const onnx::GraphProto& g);

} // namespace tapas::onnximport
