#pragma once
// What the user picked in the graph view, for the Inspector: one node, one block instance (a
// collapsed box or an expanded instance's frame) or one tensor (an edge).
#include "core/ir/graph.h"

#include <QMetaType>

namespace tapas {

struct GraphSelection {
    enum class Kind { None, Node, Block, Tensor };
    Kind kind = Kind::None;
    NodeId node = kNoNode;
    int classId = -1;
    int instance = -1;
    TensorId tensor = kNoTensor;

    static GraphSelection ofNode(NodeId n) { return {Kind::Node, n, -1, -1, kNoTensor}; }
    static GraphSelection ofBlock(int c, int i) { return {Kind::Block, kNoNode, c, i, kNoTensor}; }
    static GraphSelection ofTensor(TensorId t) { return {Kind::Tensor, kNoNode, -1, -1, t}; }
    bool operator==(const GraphSelection&) const = default;
};

} // namespace tapas

Q_DECLARE_METATYPE(tapas::GraphSelection)
