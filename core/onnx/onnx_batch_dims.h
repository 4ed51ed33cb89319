#pragma once
// Which dims of a model's tensors scale with its batch. A data-parallel replica holds 1/dp of
// each such dim, and a tensor-parallel split of it must divide that share, not the whole; the
// bound shapes alone cannot say which dims those are (seq*batch after a Reshape is a number).
// Internal to core/onnx.
#include "core/ir/graph.h"
#include "core/onnx/onnx_tensors.h"

#include <onnx/onnx_pb.h>

#include <set>
#include <string>

namespace tapas::onnximport {

// dim_param of dim 0 of the first run-time input that is symbolic there, "" when none.
std::string protoBatchSymbol(const onnx::GraphProto& graph);

// Imports `unbound` (the proto before its dims were bound) once more with the batch doubled and
// sets Tensor::batchScaledDims on `g` where a dim doubled with it. Leaves `g` as it is when the
// batch is not bound or the doubled model does not import alike (a batch baked into a Reshape).
void markBatchScaledDims(Graph& g, onnx::ModelProto unbound, const DimBindings& dims, const DropReport& drops,
                         const std::set<std::string>& fileSymbols);

} // namespace tapas::onnximport
