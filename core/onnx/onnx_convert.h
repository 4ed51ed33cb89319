#pragma once
// ModelProto (after weight dropping, sorting and shape inference) -> tapas::Graph.
// Internal to core/onnx.
#include "core/ir/graph.h"
#include "core/onnx/onnx_tensors.h"

#include <onnx/onnx_pb.h>

#include <set>
#include <string>
#include <vector>

namespace tapas::onnximport {

// The dim_param names the file itself writes on the main graph's inputs, outputs and
// value_info. ONNX's inference invents "unk__N" names for dims it cannot name; those are not
// user-bindable dims, so the converter turns them into unknown dims.
std::set<std::string> collectFileSymbols(const onnx::ModelProto& model);

// Sets dim_value for every dim_param of the main graph's inputs, outputs and value_info that
// `dims` binds. Returns the bound names that matched at least one dim.
std::set<std::string> bindProtoDims(onnx::ModelProto& model, const DimBindings& dims);

// Exporters name output dims on their own ("Gemmlogits_dim_0" where the input says "batch").
// Such an output-only name blocks ONNX from writing the derived dim, so it is cleared before
// inference and put back only where no one could derive the dim.
struct ClearedOutputDim {
    std::string output;
    int index = 0;
    std::string param;
};
std::vector<ClearedOutputDim> clearOutputOnlySymbols(onnx::ModelProto& model);
void restoreOutputSymbols(Graph& g, const std::vector<ClearedOutputDim>& cleared);

// Builds the Graph: graph nodes one to one in the proto's order, tensors with dtype and shape
// from initializers, Constant values and value_info, and attributes. Control-flow bodies stay
// out of the main graph, kept as onnx_subgraph.h describes; what they read from outside
// becomes their node's implicit inputs.
Graph convertModel(const onnx::ModelProto& model, const DropReport& drops,
                   const std::set<std::string>& fileSymbols);

// A control-flow body kept by convertModel (a ModelProto holding the body as its graph) as a
// Graph: its inputs, initializers, nodes (nested bodies kept the same way) and outputs. The
// names it reads from the enclosing scope are tensors without a producer.
Graph convertBody(const onnx::ModelProto& body);

// Nodes of a subgraph including nested subgraphs.
int64_t countSubgraphNodes(const onnx::GraphProto& g);

} // namespace tapas::onnximport
