#include "core/onnx/onnx_batch_dims.h"

#include "core/onnx/onnx_convert.h"
#include "core/onnx/onnx_infer.h"
#include "core/ops/shape_fill.h"

#include <unordered_set>

namespace tapas::onnximport {

std::string protoBatchSymbol(const onnx::GraphProto& graph)
{
    std::unordered_set<std::string> initializers;
    for (const auto& t : graph.initializer()) initializers.insert(t.name());
    for (const auto& vi : graph.input()) {
        if (initializers.count(vi.name()) || !vi.type().has_tensor_type()) continue;
        const auto& shape = vi.type().tensor_type().shape();
        if (shape.dim_size() > 0 && shape.dim(0).has_dim_param()) return shape.dim(0).dim_param();
    }
    return {};
}

void markBatchScaledDims(Graph& g, onnx::ModelProto unbound, const DimBindings& dims, const DropReport& drops,
                         const std::set<std::string>& fileSymbols)
{
    const auto bound = dims.find(g.batchSymbol);
    if (g.batchSymbol.empty() || bound == dims.end() || bound->second <= 0 || bound->second > (int64_t(1) << 40))
        return;
    DimBindings doubled = dims;
    doubled[g.batchSymbol] = bound->second * 2;
    bindProtoDims(unbound, doubled);
    clearOutputOnlySymbols(unbound);
    runShapeInference(unbound);
    Graph probe = convertModel(unbound, drops, fileSymbols);
    bindDims(probe, doubled);
    fillMissingShapes(probe);
    if (probe.nodes.size() != g.nodes.size() || probe.tensors.size() != g.tensors.size()) return;
    for (Tensor& t : g.tensors) {
        const TensorId p = probe.findTensor(t.name);
        if (p == kNoTensor) continue;
        const Shape& a = t.shape;
        const Shape& b = probe.tensor(p).shape;
        if (!a.rankKnown || !b.rankKnown || a.rank() != b.rank()) continue;
        for (int d = 0; d < a.rank() && d < 32; ++d) {
            const Dim& x = a.dims[size_t(d)];
            const Dim& y = b.dims[size_t(d)];
            // y == 2x, written so that hostile dims near INT64_MAX cannot overflow.
            if (x.isKnown() && y.isKnown() && x.value > 0 && y.value % 2 == 0 && y.value / 2 == x.value)
                t.batchScaledDims |= 1u << d;
        }
    }
}

} // namespace tapas::onnximport
