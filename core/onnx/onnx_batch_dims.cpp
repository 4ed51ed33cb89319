#include "core/onnx/onnx_batch_dims.h"

#include "core/onnx/onnx_convert.h"
#include "core/onnx/onnx_shape_stage.h"
#include "core/ops/shape_fill.h"

#include <algorithm>
#include <optional>
#include <unordered_set>

namespace tapas::onnximport {

namespace {

// Input symbols the user leaves unbound are probed at this size: large enough that strided
// convolutions and pooling keep every spatial dim above 1, small enough to import quickly.
constexpr int64_t kProbeBase = 64;
constexpr size_t kMaxReasons = 4;

struct Candidate {
    std::string symbol;                        // a symbolic input dim, or
    std::vector<std::pair<int, int>> axes;     // proto input index, axis (a fixed axis)
    std::string label;
};

std::vector<int> runTimeInputs(const onnx::GraphProto& graph)
{
    std::unordered_set<std::string> initializers;
    for (const auto& t : graph.initializer()) initializers.insert(t.name());
    std::vector<int> out;
    for (int i = 0; i < graph.input_size(); ++i) {
        const auto& vi = graph.input(i);
        if (!initializers.count(vi.name()) && vi.type().has_tensor_type() && vi.type().tensor_type().has_shape())
            out.push_back(i);
    }
    return out;
}

// `axes` of the candidate set to value(old) on a copy of the model, which is then imported.
// A fixed axis changes numbers the file also states for value_info and outputs, so those are
// forgotten (`forget`); a symbolic one is bound consistently everywhere, and the stated shapes
// (an output declared [batch, 1]) stay as evidence.
template <typename F>
Graph importProbe(onnx::ModelProto m, const DimBindings& dims, const std::vector<std::pair<int, int>>& axes, F value,
                  bool forget, const DropReport& drops, const std::set<std::string>& fileSymbols, OnnxShapeInference mode)
{
    for (const auto& [i, k] : axes) {
        auto* d = m.mutable_graph()->mutable_input(i)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(k);
        d->set_dim_value(value(d->dim_value()));
    }
    if (forget) forgetDerivedShapes(m);
    bindProtoDims(m, dims);
    clearOutputOnlySymbols(m);
    return convertWithShapes(m, drops, fileSymbols, dims, mode).graph;
}

// Empty when `doubledGraph` is `base` with one batch axis doubled; else what rules it out.
std::string compare(const Graph& base, const Graph& doubledGraph, std::map<std::string, uint32_t>& scaled)
{
    if (base.nodes.size() != doubledGraph.nodes.size() || base.tensors.size() != doubledGraph.tensors.size())
        return "the model imports with other nodes when it is doubled";
    for (const Tensor& t : base.tensors) {
        if (!t.shape.rankKnown) continue;
        const TensorId p = doubledGraph.findTensor(t.name);
        if (p == kNoTensor) continue;
        const Shape& a = t.shape;
        const Shape& b = doubledGraph.tensor(p).shape;
        const std::string change = "tensor '" + t.name + "' goes from " + a.toString() + " to " + b.toString();
        if (!b.rankKnown || b.rank() != a.rank()) {
            const NodeId producer = doubledGraph.tensor(p).producer;
            return "tensor '" + t.name + "' loses its shape" +
                   (producer == kNoNode ? std::string() : " after " + nodeLabel(doubledGraph, producer)) +
                   " (a size baked into the graph)";
        }
        uint32_t mask = 0;
        int grown = 0;
        for (int d = 0; d < a.rank(); ++d) {
            const Dim& x = a.dims[size_t(d)];
            const Dim& y = b.dims[size_t(d)];
            if (x == y) continue;
            // y == 2x, written so that hostile dims near INT64_MAX cannot overflow.
            if (x.isKnown() && y.isKnown() && x.value > 0 && y.value % 2 == 0 && y.value / 2 == x.value) {
                if (d < 32) mask |= 1u << d;
                ++grown;
                continue;
            }
            return change + " (a size baked into the graph, or not a batch)";
        }
        if (grown && t.isParameter()) return "weight '" + t.name + "' changes shape (" + change + ")";
        if (grown > 1) return change + ": it grows along " + std::to_string(grown) + " axes (a sequence or spatial axis, not a batch)";
        if (mask) scaled[t.name] = mask;
    }
    bool anyKnown = false;
    for (TensorId o : base.outputs) {
        const Tensor& t = base.tensor(o);
        if (!t.shape.rankKnown) continue;
        anyKnown = true;
        if (scaled.count(t.name)) continue;
        // Name where the batch stops: a node some input of which grew and no output of which did.
        for (const Node& n : base.nodes) {
            bool in = false, out = false;
            for (TensorId i : n.inputs) in = in || (i != kNoTensor && scaled.count(base.tensor(i).name));
            for (TensorId x : n.outputs) out = out || (x != kNoTensor && (scaled.count(base.tensor(x).name) || base.tensor(x).value));
            if (in && !out)
                return "graph output '" + t.name + "' " + t.shape.toString() + " does not grow with it: it stops growing at " +
                       nodeLabel(base, NodeId(&n - base.nodes.data())) + " (a size baked into the graph)";
        }
        return "graph output '" + t.name + "' " + t.shape.toString() + " does not grow with it";
    }
    if (!anyKnown) return "no graph output has a shape to grow";
    return {};
}

} // namespace

BatchProbe probeBatchAxis(const onnx::ModelProto& model, const DimBindings& dims, bool tryFixedAxes,
                          const DropReport& drops, const std::set<std::string>& fileSymbols, OnnxShapeInference mode)
{
    BatchProbe out;
    const onnx::GraphProto& graph = model.graph();
    const std::vector<int> inputs = runTimeInputs(graph);
    if (inputs.empty()) {
        out.why = "the model has no run-time inputs";
        return out;
    }
    DimBindings base = dims;
    std::vector<Candidate> candidates;
    for (int i : inputs) {
        const auto& shape = graph.input(i).type().tensor_type().shape();
        for (int k = 0; k < shape.dim_size(); ++k) {
            if (!shape.dim(k).has_dim_param()) continue;
            const std::string& s = shape.dim(k).dim_param();
            if (!base.count(s)) base[s] = kProbeBase;
            bool seen = false;
            for (const Candidate& c : candidates) seen = seen || c.symbol == s;
            if (!seen) candidates.push_back({s, {}, "'" + s + "'"});
        }
    }
    auto same = [](int64_t v) { return v; };
    auto twice = [](int64_t v) { return v * 2; };
    std::optional<Graph> reference, fixedReference; // imported when the first candidate of their kind is tried
    std::vector<std::string> reasons;
    using Qualified = std::vector<std::pair<const Candidate*, std::map<std::string, uint32_t>>>;
    Qualified qualified;
    std::vector<Candidate> fixed;
    auto tryCandidate = [&](const Candidate& c) {
        DimBindings d = base;
        if (!c.symbol.empty()) d[c.symbol] *= 2;
        std::map<std::string, uint32_t> scaled;
        const bool fixedAxis = c.symbol.empty();
        std::optional<Graph>& ref = fixedAxis ? fixedReference : reference;
        if (!ref) ref = importProbe(model, base, {}, same, fixedAxis, drops, fileSymbols, mode);
        const std::string why = compare(*ref, importProbe(model, d, c.axes, twice, fixedAxis, drops, fileSymbols, mode), scaled);
        if (why.empty()) qualified.emplace_back(&c, std::move(scaled));
        else reasons.push_back(c.label + ": " + why);
    };
    // A spatial axis of a fully convolutional model (a segmentation map) also grows every output
    // along one axis; from an odd size, its stride-2 layers no longer double exactly, while a batch
    // axis does. So when several qualify, each is probed again from an odd size.
    auto fromOddSize = [&](const Candidate& c) {
        auto odd = [](int64_t v) { return v % 2 ? v : v + 1; };
        auto oddTwice = [odd](int64_t v) { return odd(v) * 2; };
        DimBindings r = base, d = base;
        if (!c.symbol.empty()) {
            r[c.symbol] = odd(base[c.symbol]);
            d[c.symbol] = r[c.symbol] * 2;
        }
        std::map<std::string, uint32_t> scaled;
        const bool fixedAxis = c.symbol.empty();
        const Graph oddReference = importProbe(model, r, c.axes, odd, fixedAxis, drops, fileSymbols, mode);
        return compare(oddReference, importProbe(model, d, c.axes, oddTwice, fixedAxis, drops, fileSymbols, mode), scaled);
    };
    auto narrow = [&] {
        if (qualified.size() < 2) return;
        Qualified kept;
        for (auto& q : qualified) {
            const std::string why = fromOddSize(*q.first);
            if (why.empty()) kept.push_back(std::move(q));
            else reasons.push_back(q.first->label + " (from an odd size): " + why);
        }
        qualified = std::move(kept);
    };
    for (const Candidate& c : candidates) tryCandidate(c);
    narrow();
    if (qualified.empty() && tryFixedAxes) {
        int maxRank = 0;
        for (int i : inputs) maxRank = std::max(maxRank, graph.input(i).type().tensor_type().shape().dim_size());
        for (int k = 0; k < maxRank; ++k) {
            Candidate c;
            for (int i : inputs) {
                const auto& shape = graph.input(i).type().tensor_type().shape();
                if (k < shape.dim_size() && shape.dim(k).has_dim_value() && shape.dim(k).dim_value() > 0) {
                    c.axes.emplace_back(i, k);
                    c.label += (c.label.empty() ? "" : ", ") + ("'" + graph.input(i).name() + "'");
                }
            }
            if (c.axes.empty()) continue;
            c.label = "axis " + std::to_string(k) + " of " + c.label;
            fixed.push_back(std::move(c));
        }
        for (const Candidate& c : fixed) tryCandidate(c);
        narrow();
    }
    if (qualified.size() > 1) {
        out.why = "more than one input axis scales like a batch (";
        for (size_t i = 0; i < qualified.size(); ++i) out.why += (i ? ", " : "") + qualified[i].first->label;
        out.why += "): the batch is ambiguous";
        return out;
    }
    if (qualified.empty()) {
        out.why = "no input axis scales like a batch: ";
        for (size_t i = 0; i < reasons.size() && i < kMaxReasons; ++i) out.why += (i ? "; " : "") + reasons[i];
        if (reasons.size() > kMaxReasons) out.why += "; and " + std::to_string(reasons.size() - kMaxReasons) + " more axes";
        if (reasons.empty()) out.why += "its inputs have no symbolic dims (give a batch to probe fixed ones)";
        return out;
    }
    const Candidate& c = *qualified.front().first;
    out.symbol = c.symbol;
    out.scaledDims = std::move(qualified.front().second);
    if (!c.symbol.empty()) {
        for (int i : inputs) {
            const auto& shape = graph.input(i).type().tensor_type().shape();
            for (int k = 0; k < shape.dim_size(); ++k)
                if (shape.dim(k).has_dim_param() && shape.dim(k).dim_param() == c.symbol) out.inputs.emplace_back(graph.input(i).name(), k);
        }
    } else {
        for (const auto& [i, k] : c.axes) out.inputs.emplace_back(graph.input(i).name(), k);
    }
    return out;
}

void forgetDerivedShapes(onnx::ModelProto& model)
{
    auto* g = model.mutable_graph();
    g->clear_value_info();
    for (auto& out : *g->mutable_output())
        if (out.type().has_tensor_type()) out.mutable_type()->mutable_tensor_type()->clear_shape();
}

void setFixedBatch(onnx::ModelProto& model, const BatchProbe& probe, int64_t value)
{
    if (!probe.symbol.empty()) return;
    forgetDerivedShapes(model);
    for (const auto& [name, axis] : probe.inputs)
        for (auto& in : *model.mutable_graph()->mutable_input())
            if (in.name() == name) in.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(axis)->set_dim_value(value);
}

void applyBatchProbe(Graph& g, const BatchProbe& probe, const DimBindings& dims)
{
    g.batch = {};
    g.batch.probed = true;
    g.batch.why = probe.why;
    g.batch.symbol = probe.symbol;
    g.batchSymbol = probe.symbol;
    for (const auto& [name, axis] : probe.inputs) {
        const TensorId t = g.findTensor(name);
        if (t != kNoTensor) g.batch.inputs.emplace_back(t, axis);
    }
    if (!g.batch.inputs.empty()) {
        const auto bound = probe.symbol.empty() ? dims.end() : dims.find(probe.symbol);
        const auto& [t, axis] = g.batch.inputs.front();
        const Shape& s = g.tensor(t).shape;
        if (bound != dims.end()) g.batch.size = bound->second;
        else if (axis < s.rank() && s.dims[size_t(axis)].isKnown()) g.batch.size = s.dims[size_t(axis)].value;
    }
    for (Tensor& t : g.tensors) {
        const auto it = probe.scaledDims.find(t.name);
        t.batchScaledDims = it == probe.scaledDims.end() ? 0 : it->second;
    }
}

} // namespace tapas::onnximport
