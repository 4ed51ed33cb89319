#include "core/cost/saved_activations.h"
#include "core/ir/trained_weights.h"

#include <optional>
#include <string_view>
#include <unordered_map>

namespace tapas {

namespace {

bool among(std::string_view op, std::initializer_list<std::string_view> ops)
{
    for (std::string_view o : ops)
        if (op == o) return true;
    return false;
}

// What an op's backward keeps of its floating values, checked in this order.
enum class SaveRule : uint8_t {
    Nothing,    // linear in every input, or a shape or index op: the Add of a mask, a scale by a constant, every view
    Operands,   // a product: each operand is needed for the other one's gradient
    Div,
    Pow,
    Output,     // element-wise functions whose derivative torch computes from their output
    FirstInput, // functions whose derivative torch computes from their (first) input
    Extremes,   // max/min reductions: inputs and output
    Recurrent,  // LSTM, GRU, RNN as the worker composes them (recurrentSaves)
    Everything, // control flow and ops without a rule here
};

// One lookup per node (the cost model asks for every node of the graph).
SaveRule saveRule(std::string_view op)
{
    static const std::unordered_map<std::string_view, SaveRule> rules = [] {
        std::unordered_map<std::string_view, SaveRule> r;
        auto add = [&](SaveRule rule, std::initializer_list<std::string_view> ops) {
            for (std::string_view o : ops) r.emplace(o, rule); // the first rule named wins
        };
        add(SaveRule::Nothing,
            {"Add", "Sub", "Neg", "Sum", "Mean", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose", "Concat", "Split",
             "Slice", "Expand", "Tile", "Identity", "Cast", "CastLike", "Pad", "ReduceMean", "ReduceSum", "GlobalAveragePool",
             "AveragePool", "Dropout", "Resize", "Upsample", "DepthToSpace", "SpaceToDepth", "Gather", "GatherElements",
             "GatherND", "Where", "CumSum", "Trilu", "Floor", "Ceil", "Round", "Sign", "Shape", "Size", "ConstantOfShape",
             "Range", "Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual", "Not", "And", "Or", "Xor", "ArgMax",
             "ArgMin", "NonZero", "OneHot", "ScatterND", "ScatterElements", "EyeLike", "RandomNormalLike",
             "RandomUniformLike"});
        add(SaveRule::Operands, {"MatMul", "Gemm", "Mul", "Conv", "ConvTranspose", "Einsum"});
        add(SaveRule::Div, {"Div"});
        add(SaveRule::Pow, {"Pow"});
        add(SaveRule::Output, {"Softmax", "LogSoftmax", "Sigmoid", "Tanh", "Exp", "Sqrt", "Relu", "Reciprocal", "Elu", "Selu"});
        add(SaveRule::FirstInput,
            {"Erf", "Log", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Gelu", "Abs", "LeakyRelu",
             "HardSigmoid", "HardSwish", "Softplus", "Softsign", "Mish", "Clip", "ThresholdedRelu", "Celu",
             "BatchNormalization", "LayerNormalization", "InstanceNormalization", "GroupNormalization", "LpNormalization",
             "MaxPool", "ReduceSumSquare", "ReduceL1", "ReduceL2", "ReduceLogSumExp"});
        add(SaveRule::Extremes, {"ReduceMax", "ReduceMin", "GlobalMaxPool", "Max", "Min", "PRelu"});
        add(SaveRule::Recurrent, {"LSTM", "GRU", "RNN"});
        return r;
    }();
    const auto it = rules.find(op);
    return it == rules.end() ? SaveRule::Everything : it->second;
}

// A view of its first input (when that input is laid out contiguously, for a Reshape).
bool isView(const Node& n)
{
    return among(n.opType, {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Transpose", "Split", "Slice", "Expand"});
}

// The view keeps its input's contiguous layout: a reshape of it is again a view.
bool keepsContiguous(const Node& n)
{
    if (among(n.opType, {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Dropout"})) return true;
    if (n.opType == "Transpose") {
        const std::vector<int64_t> perm = n.attrInts("perm");
        for (size_t i = 0; i < perm.size(); ++i)
            if (perm[i] != int64_t(i)) return false;
        return !perm.empty();
    }
    if (n.opType == "Split") return n.attrInt("axis", 0) == 0;
    return false; // Slice, Expand: strided
}

// A Dropout that draws a mask: training_mode known true and a ratio above 0 (opset 12 on; an
// older Dropout, and one whose mode is left to run time, is taken as not training).
bool drawsMask(const Graph& g, const Node& n)
{
    if (n.opType != "Dropout" || n.inputs.size() < 3 || n.inputs[2] == kNoTensor) return false;
    const std::optional<ConstValue>& training = g.tensor(n.inputs[2]).value;
    if (!training || training->size() < 1 || training->floatAt(0) == 0) return false;
    if (n.inputs[1] == kNoTensor) return true; // the default ratio, 0.5
    const std::optional<ConstValue>& ratio = g.tensor(n.inputs[1]).value;
    return !ratio || ratio->size() < 1 || ratio->floatAt(0) > 0;
}

// What a recurrent cell keeps, as runtime/exec/kernels/recurrent_kernels composes it: the input
// product of all steps at once, matmul(X, W^T), keeps X when W takes a gradient and W when X
// does; each step's recurrent matmul(h, R^T) keeps h (the initial state at step 0, then the
// step before's h', counted inside) when R takes a gradient and R when h does; LSTM's
// sigmoid(f) * c keeps the initial cell state. Returns the elements kept inside, over all steps
// and directions (the defaults; clip keeps each step's gate sum too, which is counted).
template <typename Save, typename GradOf>
double recurrentSaves(const Graph& g, const Node& n, Save save, GradOf gradOf)
{
    const TensorId x = n.input(0), w = n.input(1), r = n.input(2), h0 = n.input(5), c0 = n.input(6);
    const Shape& xs = g.tensor(x).shape;
    const int64_t hidden = n.attrInt("hidden_size", 0);
    if (xs.rank() != 3 || !xs.isFullyKnown() || hidden <= 0) return 0;
    const bool batchFirst = n.attrInt("layout", 0) == 1;
    const double steps = double(xs.dims[batchFirst ? 1 : 0].value), batch = double(xs.dims[batchFirst ? 0 : 1].value);
    const double dirs = n.attrString("direction", "forward") == "bidirectional" ? 2 : 1;
    bool upstream = false; // h' of a step takes a gradient
    for (size_t i : {0, 1, 2, 3, 5, 6, 7}) upstream = upstream || gradOf(n.input(i));
    if (gradOf(w)) save(x);
    if (gradOf(x)) save(w);
    if (gradOf(r)) save(h0);
    if (gradOf(h0) || (steps > 1 && upstream)) save(r);
    if (!upstream) return 0;
    const int gates = n.opType == "LSTM" ? 4 : n.opType == "GRU" ? 3 : 1;
    double perStep = 0, carried = 0; // per step; per step but the last (read by the next one)
    if (n.opType == "LSTM") {
        save(c0);
        perStep = 5;  // sigmoid(i), sigmoid(f), tanh(g), sigmoid(o), tanh(c')
        carried = 2;  // c' (the next sigmoid(f) * c) and h' (the next recurrent matmul)
    } else if (n.opType == "GRU") {
        perStep = 5;  // z, r, r * h (or R_h h + b), tanh(h~), 1 - z
        carried = 1;  // h'
    } else {
        perStep = 1;  // tanh's output, which is h'
    }
    if (n.attrFloat("clip", 0) > 0) perStep += gates; // clamp keeps its input, the step's gate sum
    // An initial state left out is zeros the kernel makes: step 0's matmul (h) and sigmoid(f) * c
    // (LSTM's c) keep them.
    double zeros = 0;
    if (h0 == kNoTensor && gradOf(r)) zeros += 1;
    if (n.opType == "LSTM" && c0 == kNoTensor) zeros += 1;
    return dirs * batch * double(hidden) * (perStep * steps + carried * (steps - 1) + zeros);
}

} // namespace

SavedActivations savedActivations(const Graph& g, const std::vector<NodeChain>& chains)
{
    const size_t T = g.tensors.size();
    SavedActivations out;
    out.kept.assign(T, 0);
    out.storage.resize(T);
    out.dropoutMask.assign(g.nodes.size(), 0);
    out.poolIndices.assign(g.nodes.size(), 0);
    out.batchNormScale.assign(g.nodes.size(), 0);
    out.innerKept.assign(g.nodes.size(), 0);
    for (size_t t = 0; t < T; ++t) out.storage[t] = TensorId(t);
    std::vector<char> contiguous(T, 1);
    std::vector<char> grad(T, 0); // takes a gradient
    std::vector<char> saved(T, 0);
    for (size_t t = 0; t < T; ++t) grad[t] = isHeldWeight(g, TensorId(t));

    std::vector<int> chainOf(g.nodes.size(), -1);
    for (size_t c = 0; c < chains.size(); ++c)
        for (NodeId n : chains[c].nodes) chainOf[size_t(n)] = int(c);

    auto floating = [&](TensorId t) { return t != kNoTensor && dtypeIsFloating(g.tensor(t).dtype) && !g.tensor(t).value; };
    auto gradOf = [&](TensorId t) { return t != kNoTensor && grad[size_t(t)]; };
    out.releasedAfter.assign(T, kNoNode);
    NodeId current = kNoNode; // the node whose backward reads what save() is given
    auto save = [&](TensorId t) {
        if (!floating(t)) return;
        saved[size_t(t)] = 1;
        NodeId& r = out.releasedAfter[size_t(out.storage[size_t(t)])];
        if (r == kNoNode || current < r) r = current;
    };

    for (NodeId id = 0; id < NodeId(g.nodes.size()); ++id) {
        current = id;
        const Node& n = g.node(id);
        bool anyGrad = false;
        for (TensorId t : n.inputs) anyGrad = anyGrad || gradOf(t);
        for (TensorId o : n.outputs)
            if (floating(o)) grad[size_t(o)] = anyGrad;

        out.dropoutMask[size_t(id)] = drawsMask(g, n);
        // Storage: a view shares its input's.
        const bool view = isView(n) || (n.opType == "Dropout" && !out.dropoutMask[size_t(id)]);
        if (view && !n.inputs.empty() && n.inputs[0] != kNoTensor) {
            const TensorId in = n.inputs[0];
            const bool copies = (n.opType == "Reshape" || n.opType == "Flatten") && !contiguous[size_t(in)];
            for (TensorId o : n.outputs) {
                if (o == kNoTensor || copies || !floating(o)) continue;
                out.storage[size_t(o)] = out.storage[size_t(in)];
                contiguous[size_t(o)] = contiguous[size_t(in)] && keepsContiguous(n);
            }
        }

        if (const int c = chainOf[size_t(id)]; c >= 0) {
            const NodeChain& chain = chains[size_t(c)];
            if (id != chain.nodes.back()) continue; // the fused function runs (and saves) at the last node
            bool chainGrad = false;
            for (const NodeChain::Port& p : chain.inputs) chainGrad = chainGrad || gradOf(p.tensor);
            if (chain.output != kNoTensor && floating(chain.output)) grad[size_t(chain.output)] = chainGrad;
            if (!chainGrad || chain.inputs.empty()) continue;
            if (chain.kind == NodeChain::Kind::MatMulBias) {
                if (chain.inputs.size() >= 2) {
                    if (gradOf(chain.inputs[1].tensor)) save(chain.inputs[0].tensor);
                    if (gradOf(chain.inputs[0].tensor)) save(chain.inputs[1].tensor);
                }
            } else {
                save(chain.inputs[0].tensor); // layer_norm and gelu keep their input
            }
            continue;
        }
        if (!anyGrad) continue;
        const SaveRule rule = saveRule(n.opType);
        if (rule == SaveRule::Nothing) continue;
        out.poolIndices[size_t(id)] = n.opType == "MaxPool";
        out.batchNormScale[size_t(id)] = n.opType == "BatchNormalization";
        const TensorId a = n.inputs.size() > 0 ? n.inputs[0] : kNoTensor;
        const TensorId b = n.inputs.size() > 1 ? n.inputs[1] : kNoTensor;
        switch (rule) {
        case SaveRule::Nothing:
            break;
        case SaveRule::Operands:
            if (gradOf(b)) save(a);
            if (gradOf(a)) save(b);
            if (n.opType == "Einsum")
                for (TensorId t : n.inputs) save(t);
            break;
        case SaveRule::Div:
            if (gradOf(a) || gradOf(b)) save(b);
            if (gradOf(b)) save(a);
            break;
        case SaveRule::Pow:
            save(a);
            if (gradOf(b)) {
                save(b);
                if (!n.outputs.empty()) save(n.outputs[0]);
            }
            break;
        case SaveRule::Output:
            if (!n.outputs.empty()) save(n.outputs[0]);
            break;
        case SaveRule::FirstInput:
            save(a);
            break;
        case SaveRule::Extremes:
            for (TensorId t : n.inputs) save(t);
            if (!n.outputs.empty() && n.opType != "PRelu") save(n.outputs[0]);
            break;
        case SaveRule::Recurrent:
            out.innerKept[size_t(id)] = recurrentSaves(g, n, save, gradOf);
            break;
        case SaveRule::Everything:
            // More than autograd may keep, never less.
            for (TensorId t : n.inputs) save(t);
            for (TensorId o : n.outputs) save(o);
            break;
        }
    }
    for (TensorId t : g.outputs)
        if (floating(t)) {
            saved[size_t(t)] = 1;
            out.releasedAfter[size_t(out.storage[size_t(t)])] = kNoNode; // held until the loss is read
        }
    for (size_t t = 0; t < T; ++t)
        if (saved[t]) out.kept[size_t(out.storage[t])] = 1;
    out.needsGrad = std::move(grad);
    for (size_t t = 0; t < T; ++t) out.needsGrad[t] = out.needsGrad[t] && floating(TensorId(t));
    return out;
}

} // namespace tapas
