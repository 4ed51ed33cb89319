#include "core/ir/trained_weights.h"

namespace tapas {

bool isTrainedWeight(const Graph& g, TensorId t)
{
    const Tensor& x = g.tensor(t);
    if (!dtypeIsFloating(x.dtype)) return false;
    if (x.producer != kNoNode) {
        // Exporters such as paddle2onnx keep every weight as a Constant node: a float one of
        // two or more elements is a weight unless it is read as a size, scale or bound.
        if (x.kind != TensorKind::Constant || g.node(x.producer).opType != "Constant") return false;
        if (x.shape.numElementsOr(0) < 2) return false;
        for (NodeId c : x.consumers) {
            const Node& n = g.node(c);
            const bool asData = (n.input(0) == t && n.opType != "ConstantOfShape") ||
                                n.opType == "MatMul" || n.opType == "Gemm" || n.opType == "Conv" ||
                                n.opType == "ConvTranspose" || n.opType == "Add" || n.opType == "Sub" ||
                                n.opType == "Mul" || n.opType == "Div" || n.opType == "PRelu" ||
                                n.opType == "LayerNormalization" || n.opType == "InstanceNormalization" ||
                                (n.opType == "BatchNormalization" && (n.input(1) == t || n.input(2) == t));
            if (!asData) return false;
        }
        return !x.consumers.empty();
    }
    if (x.kind != TensorKind::Weight) return false;
    if (x.value && x.value->size() <= 1) return false; // eps, scale factors kept as initializers
    for (NodeId c : x.consumers) {
        const Node& n = g.node(c);
        if (n.opType == "BatchNormalization" && (n.input(3) == t || n.input(4) == t)) return false;
    }
    return true;
}

bool isHeldWeight(const Graph& g, TensorId t)
{
    const Tensor& x = g.tensor(t);
    return (x.isParameter() && !x.value) || isTrainedWeight(g, t);
}

} // namespace tapas
