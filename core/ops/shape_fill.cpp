#include "core/ops/shape_fill.h"

#include "core/ops/dim_expr.h"
#include "core/ops/op_registry.h"

#include <exception>
#include <set>

namespace tapas {

namespace {
// Our rules know the ONNX semantics; an op of the same name in a custom domain may differ.
bool knownDomain(const std::string& d)
{
    return d.empty() || d == "ai.onnx" || d == "com.microsoft";
}
} // namespace

ShapeFillReport fillMissingShapes(Graph& g)
{
    return fillMissingShapes(g, OpRegistry::instance());
}

ShapeFillReport fillMissingShapes(Graph& g, const OpRegistry& registry)
{
    ShapeFillReport report;
    // Symbolic elements of shape vectors live only for the duration of the pass.
    SymbolicValues symbolic;
    std::set<TensorId> filled;
    std::vector<Shape> before;
    for (size_t n = 0; n < g.nodes.size(); ++n) {
        const Node& node = g.nodes[n];
        if (!knownDomain(node.domain)) continue;
        const OpDef* def = registry.find(node.opType);
        if (!def || !def->inferShape) continue;
        before.clear();
        for (TensorId t : node.outputs) before.push_back(t == kNoTensor ? Shape() : g.tensor(t).shape);
        ShapeContext ctx(g, NodeId(n), &symbolic);
        // A rule never throws on purpose; a hostile file must not take the import down, and
        // the user must learn which node's shapes were left to ONNX's inference and why.
        std::string failure;
        try {
            def->inferShape(ctx);
        } catch (const std::exception& e) {
            failure = e.what();
        } catch (...) {
            failure = "an unknown exception";
        }
        if (!failure.empty()) {
            report.ruleFailures.push_back(nodeLabel(g, NodeId(n)) + ": its shape rule failed (" + failure +
                                          "); its outputs keep the shapes ONNX inference gave them");
            continue;
        }
        if (!ctx.changed()) continue;
        for (size_t i = 0; i < node.outputs.size(); ++i) {
            const TensorId t = node.outputs[i];
            if (t != kNoTensor && !(g.tensor(t).shape == before[i])) filled.insert(t);
        }
    }
    report.filled = int(filled.size());
    for (const Tensor& t : g.tensors)
        if (t.kind == TensorKind::Activation && t.producer != kNoNode && !t.shape.rankKnown)
            report.unknown.push_back(t.name);
    return report;
}

void bindDims(Graph& g, const DimBindings& dims)
{
    if (dims.empty()) return;
    for (Tensor& t : g.tensors)
        for (Dim& d : t.shape.dims) d = bindDim(d, dims);
    // Shape values that were symbolic can now be folded: re-derive what follows from them.
    fillMissingShapes(g);
}

} // namespace tapas
