#include "runtime/exec/graph_interpreter.h"

#include "runtime/exec/op_kernels.h"
#include "runtime/exec/tp_collectives.h"

#include <stdexcept>

namespace tapas::runtime {

namespace {

std::string shapeText(const std::vector<int64_t>& s)
{
    std::string out = "[";
    for (size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
    return out + "]";
}

bool knownValue(const Graph& g, TensorId t)
{
    const Tensor& x = g.tensor(t);
    if (!x.value || isTrainable(g, t)) return false;
    // Integer values are shape arithmetic; float ones only for constants and initializers.
    if (x.value->isInteger()) return true;
    return x.producer == kNoNode || g.node(x.producer).opType == "Constant";
}

} // namespace

torch::Tensor untrainedWeight(const Graph& g, TensorId t)
{
    const Tensor& x = g.tensor(t);
    const std::vector<int64_t> shape = x.shape.isFullyKnown() ? x.shape.knownDims() : std::vector<int64_t>{};
    const auto type = torchType(x.dtype);
    if (x.dtype == DType::Bool) {
        torch::Tensor ones = torch::ones(shape, torch::kBool);
        if (shape.size() >= 2 && shape[shape.size() - 1] == shape[shape.size() - 2]) return torch::tril(ones);
        return ones;
    }
    for (NodeId c : x.consumers) {
        const Node& n = g.node(c);
        if (n.opType == "BatchNormalization" && n.input(4) == t) return torch::ones(shape, type);
    }
    if (dtypeIsFloating(x.dtype) && x.shape.numElementsOr(1) <= 1) return torch::ones(shape, type);
    return torch::zeros(shape, type);
}

torch::Tensor storedValue(const Graph& g, TensorId t, const StoredWeights* stored)
{
    if (!stored) return {};
    const Tensor& x = g.tensor(t);
    const auto it = stored->tensors.find(x.name);
    if (it == stored->tensors.end() || !x.shape.isFullyKnown()) return {};
    const std::vector<int64_t> shape = x.shape.knownDims();
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    const std::vector<float>& v = it->second.values;
    if (int64_t(v.size()) != n) return {};
    // from_blob borrows the bytes; the clone owns them, so the map may go away.
    return torch::from_blob(const_cast<float*>(v.data()), {n}, torch::kFloat32).clone().reshape(shape);
}

GraphInterpreter::GraphInterpreter(const Graph& g, ExecLayouts layouts, int tpIndex, const StoredWeights* stored)
    : g_(g), L_(std::move(layouts)), tpIndex_(tpIndex)
{
    for (TensorId t = 0; t < TensorId(g.tensors.size()); ++t) {
        const Tensor& x = g.tensor(t);
        if (knownValue(g, t)) {
            constants_[t] = constTensor(*x.value);
        } else if (x.producer == kNoNode && (x.kind == TensorKind::Weight || x.kind == TensorKind::Constant) &&
                   !isTrainable(g, t)) {
            torch::Tensor v = storedValue(g, t, stored);
            constants_[t] = v.defined() ? v : untrainedWeight(g, t);
        } else if (x.producer != kNoNode && g.node(x.producer).opType == "Constant" && dtypeIsFloating(x.dtype) &&
                   !isTrainable(g, t)) {
            // The IR keeps only small values; a Constant node's weight comes from the file, and
            // the node is then skipped as already computed.
            if (torch::Tensor v = storedValue(g, t, stored); v.defined()) constants_[t] = v;
        }
    }
}

// An element-wise op whose output is split while a replicated input still spans the whole
// split extent (a bias whose values the importer kept is planned as a constant): that input
// is cut to this rank's part so the shapes broadcast as the plan intends.
bool GraphInterpreter::followsSplitOutput(NodeId n, size_t i, const torch::Tensor& in, size_t, torch::Tensor& out) const
{
    static const char* const kBroadcasting[] = {"Add", "Sub", "Mul", "Div", "Pow", "Where", "Max", "Min", "Sum",
                                                "Mean", "Equal", "Less", "Greater", "And", "Or", "PRelu"};
    const Node& node = g_.node(n);
    bool broadcasting = false;
    for (const char* op : kBroadcasting) broadcasting = broadcasting || node.opType == op;
    if (!broadcasting || L_.tp <= 1 || node.outputs.empty() || node.outputs[0] == kNoTensor) return false;
    const TensorLayout& o = L_.nodes[size_t(n)].outputs[0];
    if (o.kind != TensorLayout::S) return false;
    const Shape& os = g_.tensor(node.outputs[0]).shape;
    const int a = o.dim - (os.rank() - int(in.dim()));
    if (a < 0 || a >= in.dim() || !os.dims[size_t(o.dim)].isKnown()) return false;
    const int64_t whole = os.dims[size_t(o.dim)].value;
    if (whole <= 1 || in.size(a) != whole) return false;
    out = reshard(in, TensorLayout::replicated(), 1, TensorLayout::split(a), L_.producedK[size_t(node.outputs[0])]);
    (void)i;
    return true;
}

std::optional<std::vector<int64_t>> GraphInterpreter::localShape(TensorId t, const TensorLayout& layout) const
{
    const Shape& s = g_.tensor(t).shape;
    if (!s.isFullyKnown()) return std::nullopt;
    std::vector<int64_t> d = s.knownDims();
    if (layout.kind == TensorLayout::S && layout.dim >= 0 && size_t(layout.dim) < d.size()) d[size_t(layout.dim)] /= L_.tp;
    return d;
}

std::vector<LocalValue> GraphInterpreter::forward(const std::unordered_map<TensorId, torch::Tensor>& params,
                                                  const std::unordered_map<TensorId, torch::Tensor>& feeds) const
{
    std::vector<LocalValue> outputs = run(params, feeds, {}, {}, g_.outputs);
    for (LocalValue& v : outputs) v = finalOutput(std::move(v));
    return outputs;
}

LocalValue GraphInterpreter::finalOutput(LocalValue v) const
{
    if (v.layout.kind == TensorLayout::P) {
        v.t = reshard(v.t, v.layout, 1, TensorLayout::replicated(), 1);
        v.layout = TensorLayout::replicated();
    } else if (v.k > 1) {
        v.t = reshard(v.t, v.layout, v.k, v.layout, 1);
        v.k = 1;
    }
    return v;
}

std::vector<LocalValue> GraphInterpreter::run(const std::unordered_map<TensorId, torch::Tensor>& params,
                                              const std::unordered_map<TensorId, torch::Tensor>& feeds,
                                              const std::unordered_map<TensorId, LocalValue>& received,
                                              const std::vector<char>& runs, const std::vector<TensorId>& wanted) const
{
    std::vector<LocalValue> values(g_.tensors.size());
    std::vector<bool> set(g_.tensors.size(), false);
    auto put = [&](TensorId t, torch::Tensor v, TensorLayout l, int k) {
        values[size_t(t)] = {std::move(v), l, k};
        set[size_t(t)] = true;
    };
    for (const auto& [t, v] : constants_) put(t, v, TensorLayout::replicated(), 1);
    for (const auto& [t, v] : feeds) put(t, v, TensorLayout::replicated(), 1);
    for (const auto& [t, v] : params) put(t, v, L_.storage[size_t(t)], L_.producedK[size_t(t)]);
    for (const auto& [t, v] : received) put(t, v.t, v.layout, v.k);

    for (NodeId n = 0; n < NodeId(g_.nodes.size()); ++n) {
        if (!runs.empty() && !runs[size_t(n)]) continue;
        const Node& node = g_.node(n);
        bool allKnown = !node.outputs.empty();
        for (TensorId o : node.outputs) allKnown = allKnown && (o == kNoTensor || set[size_t(o)]);
        if (allKnown) continue; // constants folded by the importer
        const OpStrategy& s = L_.nodes[size_t(n)];
        const bool split = splitsWork(s);
        KernelCall call{g_, node, s, {}, {}, L_.tp, tpIndex_};
        for (size_t i = 0; i < node.inputs.size(); ++i) {
            const TensorId t = node.inputs[i];
            if (t == kNoTensor) {
                call.in.emplace_back();
                continue;
            }
            if (!set[size_t(t)])
                throw std::runtime_error("node '" + node.name + "' (" + node.opType + "): input '" + g_.tensor(t).name +
                                         "' has no value (unsupported producer or missing feed)");
            const LocalValue& v = values[size_t(t)];
            torch::Tensor x = reshard(v.t, v.layout, v.k, s.inputs[i], L_.needK[size_t(n)][i]);
            if (split && s.inputs[i].kind == TensorLayout::R && followsSplitOutput(n, i, x, call.in.size(), x)) {
                // sliced to the output's split: its gradient comes back whole through the slice
            } else if (split && s.inputs[i].kind == TensorLayout::R && x.is_floating_point()) {
                x = copyToTpRegion(x);
            }
            call.in.push_back(std::move(x));
        }
        for (size_t o = 0; o < node.outputs.size(); ++o)
            call.outShapes.push_back(node.outputs[o] == kNoTensor ? std::nullopt
                                                                  : localShape(node.outputs[o], s.outputs[o]));
        std::vector<torch::Tensor> out;
        try {
            out = runKernel(call);
        } catch (const c10::Error& e) {
            throw std::runtime_error("node '" + node.name + "' (" + node.opType + "): " + e.what_without_backtrace());
        }
        for (size_t o = 0; o < node.outputs.size() && o < out.size(); ++o) {
            const TensorId t = node.outputs[o];
            if (t == kNoTensor || !out[o].defined()) continue;
            if (call.outShapes[o] && out[o].sizes().vec() != *call.outShapes[o])
                throw std::runtime_error("node '" + node.name + "' (" + node.opType + "): output '" +
                                         g_.tensor(t).name + "' came out " + shapeText(out[o].sizes().vec()) +
                                         " on this rank, the plan expects " + shapeText(*call.outShapes[o]));
            torch::Tensor v = out[o];
            if (dtypeIsFloating(g_.tensor(t).dtype) && v.scalar_type() != torch::kFloat32) v = v.to(torch::kFloat32);
            put(t, std::move(v), s.outputs[o], L_.producedK[size_t(t)]);
        }
    }
    std::vector<LocalValue> outputs;
    for (TensorId t : wanted) {
        if (!set[size_t(t)]) throw std::runtime_error("tensor '" + g_.tensor(t).name + "' was never computed");
        outputs.push_back(values[size_t(t)]);
    }
    return outputs;
}

} // namespace tapas::runtime
