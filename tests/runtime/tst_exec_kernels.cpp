// The executor's control-flow (If, Loop) and recurrent (LSTM, GRU, RNN) kernels against torch
// itself: small torch.nn models exported to ONNX by tests/data/kernels/make_models.py, with
// torch's outputs and input gradients beside them, run through the importer and the unsharded
// interpreter with the file's weights. Then a finite-difference check of the weight gradients,
// the directions and layout torch's exporter does not write, Einsum, Pad's reflect and edge
// modes, and bad attributes. And Megatron's f (copyToTpRegion) on a replicated input of split
// compute: its forward is the input itself, no copy for the backward to keep.
#include "runtime/exec/graph_interpreter.h"
#include "runtime/exec/layout_analysis.h"
#include "runtime/exec/op_kernels.h"
#include "runtime/exec/tp_collectives.h"

#include "core/onnx/onnx_importer.h"
#include "core/onnx/onnx_stored_data.h"
#include "core/onnx/onnx_subgraph.h"
#include "core/ops/shard_helpers.h"

#include <QtTest>

#include <fstream>

using namespace tapas;
using namespace tapas::runtime;

namespace {

const std::string kDir = TAPAS_SOURCE_DIR "/tests/data/kernels/";

torch::Tensor readF32(const std::string& file, const std::vector<int64_t>& shape)
{
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    std::vector<float> v(size_t(std::max<int64_t>(n, 0)));
    std::ifstream f(kDir + file, std::ios::binary);
    f.read(reinterpret_cast<char*>(v.data()), std::streamsize(v.size() * sizeof(float)));
    if (!f || f.peek() != std::char_traits<char>::eof()) return {};
    return torch::from_blob(v.data(), shape, torch::kFloat32).clone();
}

struct Ran {
    Graph graph;
    std::map<std::string, torch::Tensor> outputs; // by the graph's output names
    torch::Tensor dx;                            // dL/dx, L = sum of every output squared
    std::map<std::string, torch::Tensor> grads;  // weight gradients by name (undefined: none)
    std::string error;
};

Ran run(const std::string& model)
{
    Ran r;
    const std::string path = kDir + model + ".onnx";
    Result<Graph> g = importOnnxFile(path);
    if (!g.ok()) return {Graph(), {}, {}, {}, g.error()};
    r.graph = std::move(*g);
    Result<StoredWeights> stored = readStoredWeights(path);
    Result<ExecLayouts> layouts = analyseLayouts(r.graph, nullptr, 1);
    if (!stored.ok() || !layouts.ok()) return {Graph(), {}, {}, {}, "cannot set up " + model};
    GraphInterpreter interp(r.graph, *layouts, 0, &*stored);
    std::unordered_map<TensorId, torch::Tensor> params, feeds;
    for (TensorId t = 0; t < TensorId(r.graph.tensors.size()); ++t)
        if (isTrainable(r.graph, t)) params[t] = storedValue(r.graph, t, &*stored).requires_grad_(true);
    for (TensorId t : r.graph.inputs) {
        const Tensor& x = r.graph.tensor(t);
        torch::Tensor v = readF32(model + "." + x.name + ".f32", x.shape.knownDims());
        if (!v.defined()) return {Graph(), {}, {}, {}, "no data for input " + x.name};
        feeds[t] = x.name == "x" ? v.requires_grad_(true) : v;
    }
    try {
        std::vector<LocalValue> out = interp.forward(params, feeds);
        torch::Tensor loss = torch::zeros({});
        for (size_t i = 0; i < out.size(); ++i) {
            r.outputs[r.graph.tensor(r.graph.outputs[i]).name] = out[i].t;
            loss = loss + (out[i].t * out[i].t).sum();
        }
        loss.backward();
    } catch (const std::exception& e) {
        r.error = e.what();
        return r;
    }
    for (const auto& [t, v] : feeds)
        if (r.graph.tensor(t).name == "x") r.dx = v.grad();
    for (const auto& [t, v] : params) r.grads[r.graph.tensor(t).name] = v.grad();
    return r;
}

// Largest |a - b| relative to the largest |b| (1 when shapes differ or one is missing).
double relErr(const torch::Tensor& a, const torch::Tensor& b)
{
    if (!a.defined() || !b.defined() || a.sizes() != b.sizes()) return 1;
    return (a - b).abs().max().item<double>() / std::max(b.abs().max().item<double>(), 1e-6);
}

// Every output and dL/dx against the files torch wrote.
void expectTorch(const std::string& model, const std::vector<std::string>& outputs)
{
    const Ran r = run(model);
    QVERIFY2(r.error.empty(), r.error.c_str());
    for (const std::string& o : outputs) {
        QVERIFY2(r.outputs.count(o), (model + ": no output " + o).c_str());
        const torch::Tensor want = readF32(model + "." + o + ".f32", r.outputs.at(o).sizes().vec());
        QVERIFY2(want.defined(), (model + ": expected " + o + " has another size than " + c10::str(r.outputs.at(o).sizes())).c_str());
        const double e = relErr(r.outputs.at(o), want);
        QVERIFY2(e < 1e-5, (model + " output " + o + ": relative error " + std::to_string(e)).c_str());
    }
    QVERIFY2(r.dx.defined(), (model + ": no gradient reached x").c_str());
    const double e = relErr(r.dx, readF32(model + ".dx.f32", r.dx.sizes().vec()));
    QVERIFY2(e < 1e-5, (model + " dL/dx: relative error " + std::to_string(e)).c_str());
}

// The graph's one node of `op`.
const Node* nodeOf(const Graph& g, const std::string& op)
{
    for (const Node& n : g.nodes)
        if (n.opType == op) return &n;
    return nullptr;
}

void setAttr(Node& n, const std::string& name, Attribute a)
{
    a.name = name;
    for (Attribute& x : n.attrs)
        if (x.name == name) {
            x = a;
            return;
        }
    n.attrs.push_back(a);
}

Attribute stringAttr(const std::string& s)
{
    Attribute a;
    a.kind = Attribute::Kind::String;
    a.s = s;
    return a;
}

Attribute intAttr(int64_t i)
{
    Attribute a;
    a.kind = Attribute::Kind::Int;
    a.i = i;
    return a;
}

std::vector<torch::Tensor> call(const Graph& g, const Node& n, std::vector<torch::Tensor> in)
{
    const OpStrategy whole = replicateStrategy(n);
    KernelCall c{g, n, whole, std::move(in), {}, 1, 0};
    return runKernel(c);
}

// LSTM / GRU inputs in float64: X [5,3,4], W, R, B for `gates` gates and `dirs` directions.
std::vector<torch::Tensor> recurrentInputs(int gates, int dirs, bool withC)
{
    torch::manual_seed(3);
    auto o = torch::TensorOptions().dtype(torch::kFloat64);
    std::vector<torch::Tensor> in{torch::randn({5, 3, 4}, o), torch::randn({dirs, gates * 6, 4}, o) * 0.5,
                                  torch::randn({dirs, gates * 6, 6}, o) * 0.5, torch::randn({dirs, 2 * gates * 6}, o) * 0.5,
                                  torch::Tensor(), torch::randn({dirs, 3, 6}, o)};
    if (withC) in.push_back(torch::randn({dirs, 3, 6}, o));
    return in;
}

double lossOf(const std::vector<torch::Tensor>& out)
{
    double l = 0;
    for (const torch::Tensor& t : out) l += (t * t).sum().item<double>();
    return l;
}

// Autograd's gradient of input `which` against central differences, at a few elements.
void finiteDifferences(const Graph& g, const Node& n, std::vector<torch::Tensor> in, size_t which)
{
    in[which].requires_grad_(true);
    torch::Tensor loss = torch::zeros({}, torch::kFloat64);
    for (const torch::Tensor& t : call(g, n, in)) loss = loss + (t * t).sum();
    loss.backward();
    const torch::Tensor grad = in[which].grad().reshape({-1});
    torch::NoGradGuard noGrad;
    const int64_t count = in[which].numel();
    for (int64_t k : {int64_t(0), count / 3, count / 2, count - 1}) {
        std::vector<torch::Tensor> plus = in, minus = in;
        plus[which] = in[which].detach().clone();
        minus[which] = in[which].detach().clone();
        const double h = 1e-6;
        plus[which].view({-1})[k] += h;
        minus[which].view({-1})[k] -= h;
        const double numeric = (lossOf(call(g, n, plus)) - lossOf(call(g, n, minus))) / (2 * h);
        const double analytic = grad[k].item<double>();
        QVERIFY2(std::abs(numeric - analytic) <= 1e-5 * std::max(1.0, std::abs(numeric)),
                 (n.opType + " input " + std::to_string(which) + " element " + std::to_string(k) + ": autograd " +
                  std::to_string(analytic) + ", finite differences " + std::to_string(numeric)).c_str());
    }
}

std::string errorOf(const Graph& g, const Node& n, std::vector<torch::Tensor> in)
{
    try {
        call(g, n, std::move(in));
    } catch (const std::exception& e) {
        return e.what();
    }
    return {};
}

// A tensor-parallel group of two ranks holding the same values: an all-reduce doubles them.
class TwinRanks final : public Communicator {
public:
    int rank() const override { return 0; }
    int size() const override { return 2; }
    std::string backend() const override { return "twin"; }
    void allReduceSum(float* data, size_t count) override
    {
        for (size_t i = 0; i < count; ++i) data[i] *= 2;
    }
    std::unique_ptr<PendingCollective> allReduceSumAsync(float*, size_t) override { return nullptr; }
    void allGather(const float*, size_t, float*) override {}
    void reduceScatterSum(const float*, size_t, float*) override {}
    void allToAll(const float*, size_t, float*) override {}
    void broadcast(float*, size_t, int) override {}
    void allReduceMax(double*, size_t) override {}
    void barrier() override {}
    std::unique_ptr<PendingCollective> sendAsync(const void*, size_t, int, int) override { return nullptr; }
    void recv(void*, size_t, int, int) override {}
    std::unique_ptr<Communicator> split(int, int) override { return nullptr; }
};

} // namespace

class TstExecKernels : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // A weight kept whole that split compute reads goes through Megatron's f: the identity
    // forward, the all-reduce of its gradient backward. The forward hands on the weight's own
    // storage (a copy would be saved by the op reading it and held until its backward, beside the
    // weight: the cost model's working set counts the weight once), and the gradient is summed
    // over the group.
    void megatron_f_hands_on_its_input_and_sums_the_gradient()
    {
        TwinRanks twin;
        TpGroup group;
        group.comm = &twin;
        group.tp = 2;
        setActiveTpGroup(&group);
        const torch::Tensor w = torch::randn({4, 3}).set_requires_grad(true);
        const torch::Tensor y = copyToTpRegion(w);
        QCOMPARE(y.data_ptr(), w.data_ptr());
        (y * 3).sum().backward();
        setActiveTpGroup(nullptr);
        QVERIFY(w.grad().defined());
        QVERIFY(torch::allclose(w.grad(), torch::full({4, 3}, 6.0f)));
    }

    void lstm_bidirectional_matches_torch() { expectTorch("lstm_bidir", {"y", "h", "c"}); }
    void gru_linear_before_reset_matches_torch() { expectTorch("gru", {"y", "h"}); }
    void rnn_bidirectional_matches_torch() { expectTorch("rnn_bidir", {"y", "h"}); }
    // sequence_lens [5, 2, 4]: torch ran each sample alone on its cut sequence.
    void lstm_sequence_lengths_match_torch_per_sample() { expectTorch("lstm_lengths", {"y", "h", "c"}); }

    void if_runs_the_branch_the_data_chooses()
    {
        expectTorch("branchy_then", {"y", "s"});
        expectTorch("branchy_else", {"y", "s"});
        // The untaken branch's weights get no gradient, the taken one's do, both through the If.
        const Ran then = run("branchy_then");
        QVERIFY2(then.error.empty(), then.error.c_str());
        QVERIFY(then.grads.count("a.weight") && then.grads.count("b.weight"));
        QVERIFY(then.grads.at("a.weight").defined() && then.grads.at("a.weight").abs().sum().item<double>() > 0);
        QVERIFY(!then.grads.at("b.weight").defined() || then.grads.at("b.weight").abs().sum().item<double>() == 0);
        // The branches' weights are the If's implicit inputs in the main graph.
        const Node* ifNode = nodeOf(then.graph, "If");
        QVERIFY(ifNode);
        QCOMPARE(int(formalInputs(*ifNode)), 1);
        QVERIFY(ifNode->inputs.size() >= 5); // x and the two layers' weights and biases
    }

    // Trip count 4, condition false after the third iteration: y carried, s stacked over 3.
    void loop_carries_values_and_stacks_scan_outputs() { expectTorch("loop_scan", {"y", "s"}); }

    void recurrent_weight_gradients_match_finite_differences()
    {
        const Ran lstm = run("lstm_bidir");
        QVERIFY2(lstm.error.empty(), lstm.error.c_str());
        const Node* n = nodeOf(lstm.graph, "LSTM");
        QVERIFY(n);
        for (size_t input : {0, 1, 2, 3, 5, 6}) finiteDifferences(lstm.graph, *n, recurrentInputs(4, 2, true), input);
        const Ran gru = run("gru");
        QVERIFY2(gru.error.empty(), gru.error.c_str());
        Node g = *nodeOf(gru.graph, "GRU");
        for (int64_t lbr : {1, 0}) {
            setAttr(g, "linear_before_reset", intAttr(lbr));
            for (size_t input : {1, 2, 3}) finiteDifferences(gru.graph, g, recurrentInputs(3, 1, false), input);
        }
    }

    // direction "reverse" is the bidirectional node's second half; layout 1 is layout 0 with
    // batch and sequence swapped.
    void reverse_direction_and_batch_first_layout_agree_with_the_bidirectional_node()
    {
        const Ran r = run("lstm_bidir");
        QVERIFY2(r.error.empty(), r.error.c_str());
        const Node& bi = *nodeOf(r.graph, "LSTM");
        const std::vector<torch::Tensor> in = recurrentInputs(4, 2, true);
        const std::vector<torch::Tensor> both = call(r.graph, bi, in);
        Node rev = bi;
        setAttr(rev, "direction", stringAttr("reverse"));
        std::vector<torch::Tensor> half = in;
        for (size_t i : {1, 2, 3, 5, 6}) half[i] = in[i].narrow(0, 1, 1);
        const std::vector<torch::Tensor> back = call(r.graph, rev, half);
        QVERIFY(relErr(back[0], both[0].narrow(1, 1, 1)) < 1e-12);
        QVERIFY(relErr(back[1], both[1].narrow(0, 1, 1)) < 1e-12);
        QVERIFY(relErr(back[2], both[2].narrow(0, 1, 1)) < 1e-12);
        Node first = bi;
        setAttr(first, "layout", intAttr(1));
        std::vector<torch::Tensor> swapped = in;
        for (size_t i : {0, 5, 6}) swapped[i] = in[i].transpose(0, 1);
        const std::vector<torch::Tensor> bf = call(r.graph, first, swapped);
        QVERIFY(relErr(bf[0], both[0].permute({2, 0, 1, 3})) < 1e-12);
        QVERIFY(relErr(bf[1], both[1].transpose(0, 1)) < 1e-12);
    }

    // Einsum through torch::einsum: a batched matmul and a contraction against torch's own ops,
    // gradients by finite differences; a missing or malformed equation names the node.
    void einsum_matches_torch_and_refuses_a_bad_equation()
    {
        Graph g;
        Node n;
        n.name = "/attn/Einsum";
        n.opType = "Einsum";
        setAttr(n, "equation", stringAttr("bhqd,bhkd->bhqk"));
        auto o = torch::TensorOptions().dtype(torch::kFloat64);
        torch::manual_seed(5);
        const torch::Tensor q = torch::randn({2, 3, 4, 5}, o), k = torch::randn({2, 3, 6, 5}, o);
        QVERIFY(relErr(call(g, n, {q, k})[0], torch::matmul(q, k.transpose(-1, -2))) < 1e-12);
        finiteDifferences(g, n, {q, k}, 0);
        finiteDifferences(g, n, {q, k}, 1);
        setAttr(n, "equation", stringAttr("ij,jk"));
        const torch::Tensor a = torch::randn({3, 4}, o), b = torch::randn({4, 2}, o);
        QVERIFY(relErr(call(g, n, {a, b})[0], torch::matmul(a, b)) < 1e-12);
        setAttr(n, "equation", stringAttr("ij,jk->ik"));
        std::string e = errorOf(g, n, {a, a});
        QVERIFY2(e.find("node '/attn/Einsum' (Einsum)") != std::string::npos && e.find("ij,jk->ik") != std::string::npos, e.c_str());
        n.attrs.clear();
        e = errorOf(g, n, {a, b});
        QVERIFY2(e.find("node '/attn/Einsum' (Einsum)") != std::string::npos && e.find("equation") != std::string::npos, e.c_str());
    }

    // Pad's reflect and edge modes (Silero VAD's STFT pads its input by reflection) against
    // torch's reflection and replication padding; gradients by finite differences.
    void pad_reflect_and_edge_match_torch()
    {
        Graph g;
        Node n;
        n.name = "/stft/Pad";
        n.opType = "Pad";
        auto o = torch::TensorOptions().dtype(torch::kFloat64);
        torch::manual_seed(9);
        const torch::Tensor x = torch::randn({2, 3, 7}, o);
        const torch::Tensor pads = torch::tensor({0, 0, 3, 0, 0, 2}, torch::kLong);
        setAttr(n, "mode", stringAttr("reflect"));
        QVERIFY(relErr(call(g, n, {x, pads})[0], torch::reflection_pad1d(x, {3, 2})) < 1e-12);
        finiteDifferences(g, n, {x, pads}, 0);
        setAttr(n, "mode", stringAttr("edge"));
        QVERIFY(relErr(call(g, n, {x, pads})[0], torch::replication_pad1d(x, {3, 2})) < 1e-12);
        setAttr(n, "mode", stringAttr("reflect"));
        std::string e = errorOf(g, n, {x, torch::tensor({0, 0, 7, 0, 0, 0}, torch::kLong)});
        QVERIFY2(e.find("node '/stft/Pad' (Pad)") != std::string::npos && e.find("reflect padding of 7") != std::string::npos, e.c_str());
        setAttr(n, "mode", stringAttr("wrap"));
        e = errorOf(g, n, {x, pads});
        QVERIFY2(e.find("node '/stft/Pad' (Pad)") != std::string::npos && e.find("'wrap'") != std::string::npos, e.c_str());
    }

    // Clip with bounds known as numbers, HardSigmoid and a Max or Min against a constant scalar
    // (tf2onnx's ReLU) run as torch's hardtanh, whose backward does not branch on the data:
    // clamp's values, the gradient of PyTorch's ReLU6 (one strictly inside the bounds, zero
    // outside). A Max of two tensors stays torch::maximum. BatchNorm's inference form equals
    // torch's batch_norm with the stored statistics.
    void clamps_run_as_hardtanh_and_batch_norm_in_inference_form()
    {
        Graph g;
        auto o = torch::TensorOptions().dtype(torch::kFloat64);
        torch::manual_seed(11);
        const torch::Tensor x = torch::randn({2, 3, 4, 5}, o) * 4;
        auto gradOf = [&](const Node& n, std::vector<torch::Tensor> in) {
            in[0] = in[0].detach().clone().requires_grad_(true);
            call(g, n, in)[0].sum().backward();
            return in[0].grad();
        };
        Node clip;
        clip.name = "clip";
        clip.opType = "Clip";
        const torch::Tensor lo = torch::tensor(0.0, o), hi = torch::tensor(6.0, o);
        QVERIFY(relErr(call(g, clip, {x, lo, hi})[0], x.clamp(0, 6)) < 1e-12);
        QVERIFY(relErr(gradOf(clip, {x, lo, hi}), ((x > 0) & (x < 6)).to(torch::kFloat64)) < 1e-12);
        finiteDifferences(g, clip, {x.clone(), lo, hi}, 0); // clones: it sets requires_grad
        QVERIFY(relErr(call(g, clip, {x, torch::Tensor(), hi})[0], x.clamp_max(6)) < 1e-12);

        Node hs;
        hs.name = "hs";
        hs.opType = "HardSigmoid";
        QVERIFY(relErr(call(g, hs, {x})[0], (x * 0.2 + 0.5).clamp(0, 1)) < 1e-12);
        finiteDifferences(g, hs, {x.clone()}, 0);

        Node mx;
        mx.name = "max";
        mx.opType = "Max";
        const torch::Tensor zero = torch::zeros({1, 1, 1, 1}, o);
        for (const auto& in : {std::vector<torch::Tensor>{x, zero}, std::vector<torch::Tensor>{zero, x}}) {
            const torch::Tensor y = call(g, mx, in)[0];
            QCOMPARE(y.sizes().vec(), x.sizes().vec());
            QVERIFY(relErr(y, torch::relu(x)) < 1e-12);
        }
        QVERIFY(relErr(gradOf(mx, {x, zero}), (x > 0).to(torch::kFloat64)) < 1e-12);
        const torch::Tensor other = torch::randn({2, 3, 4, 5}, o);
        QVERIFY(relErr(call(g, mx, {x, other})[0], torch::maximum(x, other)) < 1e-12);
        Node mn = mx;
        mn.opType = "Min";
        QVERIFY(relErr(call(g, mn, {x, zero})[0], x.clamp_max(0)) < 1e-12);

        Node bn;
        bn.name = "bn";
        bn.opType = "BatchNormalization";
        const torch::Tensor scale = torch::randn({3}, o), shift = torch::randn({3}, o), mean = torch::randn({3}, o),
                            var = torch::rand({3}, o) + 0.5;
        const torch::Tensor want = torch::batch_norm(x, scale, shift, mean, var, false, 0.1, 1e-5, false);
        QVERIFY(relErr(call(g, bn, {x, scale, shift, mean, var})[0], want) < 1e-12);
        finiteDifferences(g, bn, {x.clone(), scale, shift, mean, var}, 0);
        finiteDifferences(g, bn, {x, scale.clone(), shift, mean, var}, 1);
    }

    void bad_attributes_are_refused_naming_the_node()
    {
        const Ran r = run("lstm_bidir");
        QVERIFY2(r.error.empty(), r.error.c_str());
        Node n = *nodeOf(r.graph, "LSTM");
        const std::string who = "node '" + n.name + "' (LSTM)";
        setAttr(n, "direction", stringAttr("sideways"));
        std::string e = errorOf(r.graph, n, recurrentInputs(4, 2, true));
        QVERIFY2(e.find(who) != std::string::npos && e.find("direction 'sideways'") != std::string::npos, e.c_str());
        n = *nodeOf(r.graph, "LSTM");
        n.attrs.erase(std::remove_if(n.attrs.begin(), n.attrs.end(), [](const Attribute& a) { return a.name == "hidden_size"; }),
                      n.attrs.end());
        e = errorOf(r.graph, n, recurrentInputs(4, 2, true));
        QVERIFY2(e.find(who) != std::string::npos && e.find("hidden_size") != std::string::npos, e.c_str());
        n = *nodeOf(r.graph, "LSTM");
        Attribute acts;
        acts.kind = Attribute::Kind::Strings;
        acts.strings = {"Relu", "Tanh", "Tanh"};
        setAttr(n, "activations", acts);
        e = errorOf(r.graph, n, recurrentInputs(4, 2, true));
        QVERIFY2(e.find(who) != std::string::npos && e.find("Relu") != std::string::npos, e.c_str());
        e = errorOf(r.graph, *nodeOf(r.graph, "LSTM"), recurrentInputs(4, 1, true)); // one direction's weights
        QVERIFY2(e.find(who) != std::string::npos && e.find("W is") != std::string::npos, e.c_str());

        const Ran b = run("branchy_then");
        QVERIFY2(b.error.empty(), b.error.c_str());
        Node ifNode = *nodeOf(b.graph, "If");
        ifNode.attrs.erase(std::remove_if(ifNode.attrs.begin(), ifNode.attrs.end(),
                                          [](const Attribute& a) { return a.name == "else_branch"; }),
                           ifNode.attrs.end());
        std::vector<torch::Tensor> in(ifNode.inputs.size(), torch::ones({3, 4}));
        in[0] = torch::zeros({}, torch::kBool);
        e = errorOf(b.graph, ifNode, in);
        QVERIFY2(e.find("node '" + ifNode.name + "' (If)") != std::string::npos && e.find("else_branch") != std::string::npos, e.c_str());
        in[0] = torch::ones({2}, torch::kBool);
        e = errorOf(b.graph, *nodeOf(b.graph, "If"), in);
        QVERIFY2(e.find("condition has 2 elements") != std::string::npos, e.c_str());
    }
};

QTEST_GUILESS_MAIN(TstExecKernels)
#include "tst_exec_kernels.moc"
