#pragma once
// Which axis of a model's inputs is its batch, and which dims of every tensor scale with it.
// Found by a probe, not by a name or a position: each candidate axis (a symbolic input dim, or,
// for a fixed-batch export, one axis of the inputs) is doubled and the model imported again.
// The batch is the one candidate that grows every graph output and changes no weight, no tensor
// along more than one axis (a sequence axis grows attention scores along two) and no size baked
// into a node. A data-parallel replica holds 1/dp of each such dim, and a tensor-parallel split
// of it must divide that share; the bound shapes alone cannot say which dims those are
// (seq*batch after a Reshape is a number). Internal to core/onnx.
#include "core/ir/graph.h"
#include "core/onnx/onnx_importer.h"
#include "core/onnx/onnx_tensors.h"

#include <onnx/onnx_pb.h>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace tapas::onnximport {

struct BatchProbe {
    std::vector<std::pair<std::string, int>> inputs; // input name, axis; empty when none qualified
    std::string symbol;                              // "" for a fixed axis
    std::map<std::string, uint32_t> scaledDims;      // tensor name -> bit d: dim d grows with the batch
    std::string why;                                 // why none qualified
    bool found() const { return !inputs.empty(); }
};

// Probes `model` (weight bytes dropped, dims not yet bound). `dims` are the user's bindings; input
// symbols they leave unbound are probed at a base of 64. Fixed input axes are candidates only
// when `tryFixedAxes` and no symbolic one qualifies. Each probe import runs its shape stage with
// `mode` (see onnx_shape_stage.h).
BatchProbe probeBatchAxis(const onnx::ModelProto& model, const DimBindings& dims, bool tryFixedAxes,
                          const DropReport& drops, const std::set<std::string>& fileSymbols, OnnxShapeInference mode);

// Drops the shapes the file states for value_info and graph outputs: derived from the inputs,
// they would contradict inputs that were changed (a fixed-batch export says its output is [1, N]).
void forgetDerivedShapes(onnx::ModelProto& model);

// Sets the input dims of a fixed batch axis to `value` in the proto (re-batching an export whose
// batch is baked into its inputs).
void setFixedBatch(onnx::ModelProto& model, const BatchProbe& probe, int64_t value);

// Fills g.batch, g.batchSymbol and Tensor::batchScaledDims from the probe.
void applyBatchProbe(Graph& g, const BatchProbe& probe, const DimBindings& dims);

} // namespace tapas::onnximport
