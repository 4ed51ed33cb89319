#include "core/cost/family_time.h"

#include "core/ir/trained_weights.h"
#include "core/ops/control_bodies.h"

#include <algorithm>

namespace tapas {

std::optional<double> familyComputeSeconds(const ClusterSpec& c, const std::string& family, double flops, double bytes,
                                           double unitFlops)
{
    const auto it = c.opFamilies.find(family);
    if (it == c.opFamilies.end()) return std::nullopt;
    const OpFamilyRate& r = it->second;
    const double flopRate = r.flopRateAt(unitFlops > 0 ? unitFlops : flops);
    const double byFlops = flopRate > 0 ? flops / flopRate : 0;
    const double byteRate = r.byteRateAt(bytes);
    const double byBytes = byteRate > 0 ? bytes / byteRate : 0;
    return r.overhead + std::max(byFlops, byBytes);
}

double matmulUnitFlops(const Graph& g, const Node& n, double flops, double share)
{
    double products = 1;
    if (n.opType == "MatMul" && n.inputs.size() >= 2) {
        const Shape& a = g.tensor(n.input(0)).shape;
        const Shape& b = g.tensor(n.input(1)).shape;
        const TensorId out = n.outputs.empty() ? kNoTensor : n.outputs[0];
        if (a.rank() >= 3 && b.rank() >= 3 && out != kNoTensor) {
            const Shape& y = g.tensor(out).shape;
            for (int d = 0; d + 2 < y.rank(); ++d)
                if (y.dims[size_t(d)].isKnown()) products *= double(y.dims[size_t(d)].value);
        }
    }
    const double local = flops * share;
    return products > 1 ? local / std::max(1.0, products * share) : local;
}

double collectiveOverheadSeconds(const ClusterSpec& c)
{
    const auto it = c.opFamilies.find("collective");
    return it == c.opFamilies.end() ? 0 : it->second.overhead;
}

bool stridedBatchedMatMul(const Graph& g, const Node& n)
{
    if (n.opType != "MatMul" || n.inputs.size() < 2 || n.input(0) == kNoTensor || n.input(1) == kNoTensor) return false;
    bool view = false;
    for (int i = 0; i < 2; ++i) {
        const Tensor& x = g.tensor(n.input(i));
        if (x.shape.rank() < 3) return false;
        view = view || (x.producer != kNoNode && g.node(x.producer).opType == "Transpose");
    }
    return view;
}

bool gatherFillsTable(const Graph& g, const Node& n)
{
    if (n.opType != "Gather" || n.inputs.size() < 2 || n.input(0) == kNoTensor) return false;
    const Tensor& data = g.tensor(n.input(0));
    // Float data the importer does not know as a value (a weight, or an activation): autograd
    // takes its gradient; a folded constant table takes none.
    return dtypeIsFloating(data.dtype) && data.kind != TensorKind::Input &&
           (!data.value || data.kind == TensorKind::Weight || data.kind == TensorKind::Constant);
}

bool boundAgainstConstant(const Graph& g, const Node& n)
{
    if ((n.opType != "Max" && n.opType != "Min") || n.inputs.size() != 2 || n.input(0) == kNoTensor || n.input(1) == kNoTensor)
        return false;
    for (int i = 0; i < 2; ++i) {
        const TensorId st = n.input(i), xt = n.input(1 - i);
        const Tensor &s = g.tensor(st), &x = g.tensor(xt);
        const bool constant = s.kind != TensorKind::Input && s.kind != TensorKind::Activation && !isTrainedWeight(g, st);
        const bool folded = s.value.has_value(); // the importer knows it: no gradient reaches it
        if ((constant || folded) && s.shape.numElementsOr(0) == 1 && dtypeIsFloating(x.dtype) && x.shape.rank() >= s.shape.rank() &&
            x.shape.numElementsOr(2) > 1)
            return true;
    }
    return false;
}

std::vector<int64_t> localConvInput(const Graph& g, const Node& n, int split, int tp, int batchShards)
{
    if ((n.opType != "Conv" && n.opType != "ConvTranspose") || n.inputs.empty() || n.input(0) == kNoTensor) return {};
    const Shape& x = g.tensor(n.input(0)).shape;
    std::vector<int64_t> dims;
    for (const auto& d : x.dims) {
        if (!d.isKnown()) return {};
        dims.push_back(d.value);
    }
    if (!dims.empty()) dims[0] = std::max<int64_t>(1, dims[0] / std::max(1, batchShards));
    if (split >= 0 && size_t(split) < dims.size()) dims[size_t(split)] = std::max<int64_t>(1, dims[size_t(split)] / std::max(1, tp));
    return dims;
}

ConvShape convShapeOf(const Graph& g, const Node& n, std::vector<int64_t> input)
{
    ConvShape s;
    s.input = std::move(input);
    s.kernel = n.attrInts("kernel_shape");
    if (s.kernel.empty() && n.inputs.size() > 1 && n.input(1) != kNoTensor) {
        const Shape& w = g.tensor(n.input(1)).shape;
        for (int d = 2; d < w.rank(); ++d) s.kernel.push_back(w.dims[size_t(d)].isKnown() ? w.dims[size_t(d)].value : 1);
    }
    s.strides = n.attrInts("strides");
    s.dilations = n.attrInts("dilations");
    s.groups = n.attrInt("group", 1);
    s.transposed = n.opType == "ConvTranspose";
    return s;
}

std::string pricingFamily(const ClusterSpec& c, const Graph& g, const Node& n, const std::vector<int64_t>& localInput)
{
    const OpDef* def = OpRegistry::instance().find(n.opType);
    if (!def) return {};
    if (c.opFamilies.count("matmul_strided") && stridedBatchedMatMul(g, n)) return "matmul_strided";
    auto finer = [&](const std::string& family, const std::string& otherwise) {
        return c.opFamilies.count(family) ? family : otherwise;
    };
    if (n.opType == "Conv" || n.opType == "ConvTranspose") {
        const int64_t group = n.attrInt("group", 1);
        if (group > 1) {
            // Depthwise (a group per input channel): torch's depthwise kernels, not grouped GEMMs.
            const Shape& x = g.tensor(n.input(0)).shape;
            const bool depthwise = x.rank() >= 2 && x.dims[1].isKnown() && x.dims[1].value == group;
            const std::string grouped = finer("conv_grouped", def->family);
            if (!depthwise) return grouped;
            const std::string dw = finer("conv_depthwise", grouped);
            const std::vector<int64_t> strides = n.attrInts("strides");
            const bool strided = std::any_of(strides.begin(), strides.end(), [](int64_t s) { return s > 1; });
            return strided ? finer("conv_depthwise_strided", dw) : dw;
        }
        if (n.opType == "Conv") {
            std::vector<int64_t> input = localInput;
            if (input.empty()) input = localConvInput(g, n, -1, 1, 1);
            // Unknown dims: the kernel most of each kind runs (oneDNN for 2-D, torch's own for 1-D).
            const bool oneDnn = input.empty() ? g.tensor(n.input(0)).shape.rank() != 3 : torchConvRunsOneDnn(convShapeOf(g, n, input));
            if (g.tensor(n.input(0)).shape.rank() == 3) { // torch runs it as a 2-D conv of height 1
                const std::string conv1d = finer("conv1d", def->family);
                return oneDnn ? finer("conv1d.onednn", conv1d) : conv1d;
            }
            const std::vector<int64_t> k = n.attrInts("kernel_shape");
            const bool pointwise = !k.empty() && std::all_of(k.begin(), k.end(), [](int64_t d) { return d == 1; });
            if (pointwise) return finer("conv_pointwise", def->family); // a GEMM over the pixels, no unfold
            return oneDnn ? def->family : finer("conv.native", def->family);
        }
        return def->family;
    }
    if (n.opType == "MaxPool") return finer("max_pool", finer("pool", def->family));
    if (n.opType == "GlobalAveragePool" || n.opType == "GlobalMaxPool") return finer("global_pool", finer("pool", def->family));
    if (n.opType == "AveragePool") return finer("pool", def->family);
    if (n.opType == "LayerNormalization") return finer("layer_norm", def->family);
    if (n.opType == "BatchNormalization") return finer("batchnorm", def->family);
    if (c.opFamilies.count("gather") && gatherFillsTable(g, n)) return "gather";
    // An element-wise op the calibration timed on its own (a clamp's backward builds masks, a
    // broadcast maximum reduces one): its own rate, the family's otherwise.
    if ((n.opType == "Max" || n.opType == "Min") && !boundAgainstConstant(g, n))
        return finer(n.opType == "Max" ? "elementwise.maximum" : "elementwise.minimum", def->family);
    if (def->family == "elementwise") return finer("elementwise." + n.opType, def->family);
    return def->family;
}

namespace {

// Every output a value the importer already knows as integers (shape arithmetic): the worker
// skips the node, so it costs nothing.
bool foldedAway(const Graph& g, const Node& n)
{
    if (n.outputs.empty()) return false;
    for (TensorId t : n.outputs) {
        if (t == kNoTensor) continue;
        const Tensor& x = g.tensor(t);
        if (!x.value || !x.value->isInteger()) return false;
    }
    return true;
}

// LSTM, GRU and RNN run on the worker as torch ops per time step and direction (one recurrent
// matmul and the gates' element-wise ops, each with its backward): priced as that many matmul
// and element-wise nodes, plus the FLOPs at the matmul rate.
std::optional<double> recurrentSeconds(const ClusterSpec& c, const Graph& g, const Node& n, const OpCost& cost, double share)
{
    const auto mm = c.opFamilies.find("matmul");
    const auto ew = c.opFamilies.find("elementwise");
    if (mm == c.opFamilies.end() || ew == c.opFamilies.end()) return std::nullopt;
    const Shape& x = g.tensor(n.input(0)).shape;
    const int seqAxis = n.attrInt("layout", 0) == 1 ? 1 : 0;
    const double steps = x.rank() > seqAxis && x.dims[size_t(seqAxis)].isKnown() ? double(x.dims[size_t(seqAxis)].value) : 1.0;
    const double dirs = n.attrString("direction", "forward") == "bidirectional" ? 2.0 : 1.0;
    // Element-wise torch ops per step as runtime/exec/kernels/recurrent_kernels composes them.
    const double gateOps = n.opType == "LSTM" ? 12 : n.opType == "GRU" ? 14 : 3;
    const double perStep = mm->second.overhead + gateOps * ew->second.overhead;
    // Each step's recurrent product is one small GEMM: its rate is that size's.
    const double rate = mm->second.flopRateAt(cost.flops * share / (dirs * steps));
    return dirs * steps * perStep + (rate > 0 ? cost.flops * share / rate : 0);
}

// If, Loop and Scan: their body's nodes, each priced by its own family (an If's branch when its
// condition is known before it runs, else its dearer branch; a Loop's body times its trip count).
std::optional<double> controlSeconds(const ClusterSpec& c, const Graph& g, const Node& n, double share)
{
    const ControlBodies bodies = controlBodies(g, n);
    if (bodies.alternatives.empty()) return std::nullopt;
    double dearest = 0;
    for (const auto& body : bodies.alternatives) {
        double seconds = 0;
        for (const Node& m : body->nodes) {
            const OpCost mc = nodeCost(*body, m);
            seconds += nodeFamilySeconds(c, *body, m, mc, share).value_or(0);
        }
        dearest = std::max(dearest, seconds);
    }
    return bodies.runs * dearest;
}

// Bytes of t, when its shape is known (pricedChains keeps only chains whose are).
std::optional<double> knownBytes(const Graph& g, TensorId t)
{
    if (t == kNoTensor || !g.tensor(t).shape.isFullyKnown()) return std::nullopt;
    return tensorBytes(g, t);
}

// The fused function of `chain`, doing `share` of its work: one dispatch of its family, its
// input read and its output written once (the calibration's layernorm and gelu cases count
// bytes so), and an addmm's FLOPs as the MatMul's.
std::optional<double> chainSeconds(const ClusterSpec& c, const Graph& g, const NodeChain& chain, double share)
{
    const std::optional<double> in = knownBytes(g, chain.inputs.front().tensor), out = knownBytes(g, chain.output);
    if (!in || !out) return std::nullopt;
    switch (chain.kind) {
    case NodeChain::Kind::LayerNorm:
        return familyComputeSeconds(c, c.opFamilies.count("layer_norm") ? "layer_norm" : "normalization", 0, (*in + *out) * share);
    case NodeChain::Kind::Gelu:
        return familyComputeSeconds(c, c.opFamilies.count("gelu") ? "gelu" : "elementwise", 0, (*in + *out) * share);
    case NodeChain::Kind::MatMulBias: {
        const Node& mm = g.node(chain.nodes.front());
        const OpCost mc = nodeCost(g, mm);
        const double bias = knownBytes(g, chain.inputs.back().tensor).value_or(0);
        return familyComputeSeconds(c, "matmul", mc.flops * share, (mc.bytesRead + mc.bytesWritten + bias) * share,
                                    matmulUnitFlops(g, mm, mc.flops, share));
    }
    }
    return std::nullopt;
}

} // namespace

PricedChains pricedChains(const Graph& g)
{
    PricedChains p;
    for (NodeChain& chain : findNodeChains(g, {}))
        if (knownBytes(g, chain.inputs.front().tensor) && knownBytes(g, chain.output)) p.chains.push_back(std::move(chain));
    p.chainOf.assign(g.nodes.size(), -1);
    for (size_t i = 0; i < p.chains.size(); ++i)
        for (NodeId n : p.chains[i].nodes) p.chainOf[size_t(n)] = int(i);
    return p;
}

namespace {

// Node n's kernels: nodeFamilySeconds without what running a node inside a step adds. `runs`: the
// nodes the worker runs for it (0 for a folded node or a chain member other than the carrier,
// 2 for a partial addmm run as MatMul and Add).
std::optional<double> kernelSeconds(const ClusterSpec& c, const Graph& g, const Node& n, const OpCost& cost, double share,
                                    const PricedChains* chains, bool outputPartial, double dataShare,
                                    const std::vector<int64_t>& localInput, int& runs)
{
    const std::string family = pricingFamily(c, g, n, localInput);
    if (family.empty()) return std::nullopt;
    runs = 0;
    if (foldedAway(g, n)) return 0.0;
    const NodeId id = NodeId(&n - g.nodes.data());
    if (chains && id >= 0 && size_t(id) < chains->chainOf.size() && chains->chainOf[size_t(id)] >= 0) {
        const NodeChain& chain = chains->chains[size_t(chains->chainOf[size_t(id)])];
        if (chain.kind != NodeChain::Kind::MatMulBias) {
            if (chain.nodes.back() != id) return 0.0;
            runs = 1;
            return chainSeconds(c, g, chain, share);
        }
        // An addmm is carried by its MatMul, whose layout says whether it stays whole: a partial
        // product (row-parallel) is reduced before the bias is added, so the worker runs the
        // MatMul and the Add apart, each at its own family's price, both carried here.
        if (chain.nodes.front() != id) return 0.0;
        if (!outputPartial) {
            runs = 1;
            return chainSeconds(c, g, chain, share);
        }
        const Node& add = g.node(chain.nodes.back());
        int alone = 0, biasRuns = 0;
        const std::optional<double> mm = kernelSeconds(c, g, n, cost, share, nullptr, false, -1, {}, alone);
        const std::optional<double> bias = kernelSeconds(c, g, add, nodeCost(g, add), share, nullptr, false, -1, {}, biasRuns);
        if (!mm || !bias) return std::nullopt;
        runs = alone + biasRuns;
        return *mm + *bias;
    }
    runs = 1;
    if (family == "control") return controlSeconds(c, g, n, share);
    if (family == "recurrent") return recurrentSeconds(c, g, n, cost, share);
    if (family == "gather") { // the rows read and written, and the table's gradient filled
        const double rows = cost.bytesWritten * share;
        return familyComputeSeconds(c, family, 0, tensorBytes(g, n.input(0)) * (dataShare >= 0 ? dataShare : share) + 2 * rows);
    }
    const double unit = family == "matmul" || family == "matmul_strided" ? matmulUnitFlops(g, n, cost.flops, share) : 0;
    return familyComputeSeconds(c, family, cost.flops * share, (cost.bytesRead + cost.bytesWritten) * share, unit);
}

} // namespace

std::optional<double> nodeFamilySeconds(const ClusterSpec& c, const Graph& g, const Node& n, const OpCost& cost, double share,
                                        const PricedChains* chains, bool outputPartial, double dataShare,
                                        const std::vector<int64_t>& localInput)
{
    if (c.opFamilies.empty()) return std::nullopt;
    int runs = 0;
    const std::optional<double> kernels = kernelSeconds(c, g, n, cost, share, chains, outputPartial, dataShare, localInput, runs);
    if (!kernels) return std::nullopt;
    return *kernels + runs * inStepSeconds(c, "node_in_step");
}

double inStepSeconds(const ClusterSpec& c, const std::string& family)
{
    const auto it = c.opFamilies.find(family);
    return it == c.opFamilies.end() ? 0 : it->second.overhead;
}

double drawnTensorSeconds(const ClusterSpec& c, const Graph& g, TensorId t, double elements)
{
    if (t == kNoTensor || !dtypeIsFloating(g.tensor(t).dtype) || elements <= 0) return 0;
    const bool output = std::find(g.outputs.begin(), g.outputs.end(), t) != g.outputs.end();
    const bool input = std::find(g.inputs.begin(), g.inputs.end(), t) != g.inputs.end();
    if (!output && !input) return 0;
    double seconds = 0;
    // A tensor that is both (an input passed through) is drawn as an input and as a target.
    if (input) seconds += familyComputeSeconds(c, "synthetic_input", 0, 4 * elements).value_or(0);
    if (output) seconds += familyComputeSeconds(c, "loss", 0, 4 * elements).value_or(0);
    return seconds;
}

double optimizerSeconds(const ClusterSpec& c, double paramBytes)
{
    const auto it = c.opFamilies.find("optimizer");
    if (it == c.opFamilies.end()) return 0;
    const OpFamilyRate& r = it->second;
    return r.overhead + (r.byteRate > 0 ? paramBytes / r.byteRate : 0);
}

} // namespace tapas
