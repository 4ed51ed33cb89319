#pragma once
// Topological order of a GraphProto's nodes. Exporters almost always write nodes in order, but
// the ONNX format does not force it on readers, and hand-edited files break it; shape inference
// only propagates along the file's order, so we sort before inferring. Internal to core/onnx.
#include "core/util/result.h"

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

namespace tapas::onnximport {

struct TopoReport {
    bool reordered = false;               // the file's order was not topological
    std::vector<std::string> dangling;    // "node 'x' reads 't', which nothing defines"
    std::vector<std::string> duplicates;  // "tensor 't' is produced by both 'a' and 'b'"
};

// Sorts graph.node() topologically (stable: an already sorted graph keeps its order). Inputs a
// node's subgraphs read from the enclosing scope count as its inputs. On a cycle, returns an
// error naming nodes on it and leaves the graph unchanged.
Result<TopoReport> sortNodesTopologically(onnx::GraphProto& graph, const std::string& fileName);

// "'/enc/MatMul_3' (MatMul)" or "#12 (MatMul)" for a node without a name.
std::string nodeLabel(const onnx::NodeProto& node, int index);

} // namespace tapas::onnximport
