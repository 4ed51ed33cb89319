#include "core/onnx/onnx_shape_stage.h"

#include "core/onnx/onnx_convert.h"
#include "core/onnx/onnx_infer.h"
#include "core/ops/dim_expr.h"

namespace tapas::onnximport {

namespace {

TypedGraph convertAndFill(const onnx::ModelProto& model, const DropReport& drops, const std::set<std::string>& fileSymbols,
                          const DimBindings& dims, const Progress& progress, double from)
{
    TypedGraph out;
    progress(from, "converting");
    out.graph = convertModel(model, drops, fileSymbols);
    progress(from + 0.05, "filling shapes");
    bindDims(out.graph, dims);
    out.fill = fillMissingShapes(out.graph);
    return out;
}

} // namespace

bool typesComplete(const Graph& g, const ShapeFillReport& fill)
{
    if (!fill.unknown.empty() || !fill.ruleFailures.empty()) return false;
    for (const Tensor& t : g.tensors) {
        if (t.kind != TensorKind::Activation || t.producer == kNoNode) continue;
        if (t.dtype == DType::Undefined || !t.shape.rankKnown) return false;
        for (const Dim& d : t.shape.dims)
            if (!d.isKnown() && !(d.isSymbolic() && !isPlaceholderSymbol(d.symbol))) return false;
    }
    return true;
}

TypedGraph convertWithShapes(onnx::ModelProto& model, const DropReport& drops, const std::set<std::string>& fileSymbols,
                             const DimBindings& dims, OnnxShapeInference mode, const Progress& progress,
                             const std::function<void()>& beforeEditingModel)
{
    if (mode == OnnxShapeInference::WhenNeeded) {
        TypedGraph ours = convertAndFill(model, drops, fileSymbols, dims, progress, 0.4);
        if (typesComplete(ours.graph, ours.fill) || progress.cancelled()) return ours;
    }
    if (beforeEditingModel) beforeEditingModel();
    progress(0.5, "shape inference");
    std::vector<std::string> warnings = runShapeInference(model);
    if (progress.cancelled()) return {};
    TypedGraph full = convertAndFill(model, drops, fileSymbols, dims, progress, 0.6);
    full.warnings = std::move(warnings);
    full.onnxInferenceRan = true;
    return full;
}

} // namespace tapas::onnximport
