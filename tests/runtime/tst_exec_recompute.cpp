// Selective recomputation in the executor (GraphInterpreter::run with recomputeCores, over
// runtime/exec/region_checkpoint): on the zoo GPT each layer's attention core (the product of Q
// and K, the scale, the causal mask, the softmax and the product with V) is one region; run
// checkpointed, the outputs and every weight's gradient are the same floats as keeping
// everything, and autograd holds less after the forward: exactly each layer's softmax output,
// the one tensor inside the core the backward otherwise keeps (the scores before it are read by
// ops whose backward needs no copy of them). A graph without
// attention (a small ResNet) has no region, and the flag changes nothing there. What a forward
// leaves alive is what the cost model counts as kept.
#include "core/cluster/cluster_spec.h"
#include "core/cost/cost_model.h"
#include "core/shard/op_sharding.h"
#include "runtime/exec/graph_interpreter.h"
#include "runtime/exec/layout_analysis.h"
#include "runtime/exec/memory_figures.h"

#include "tests/common/float_tensor.h"
#include "tests/common/zoo_graph.h"

#include <QtTest>

#include <map>

using namespace tapas;
using namespace tapas::runtime;

namespace {

struct Outcome {
    std::vector<torch::Tensor> outputs;
    std::map<TensorId, torch::Tensor> grads;
    double heldAfterForward = 0; // tensor bytes alive between the forward and the backward
    size_t regions = 0;
};

// Forward + backward of L = sum of every float output squared (weights seeded, ids in range).
Outcome runOnce(const Graph& g, bool recomputeCores, int64_t idRange)
{
    Result<ExecLayouts> layouts = analyseLayouts(g, nullptr, 1);
    if (!layouts) qFatal("layouts: %s", layouts.error().c_str());
    GraphInterpreter interp(g, *layouts, 0);
    torch::manual_seed(7);
    std::unordered_map<TensorId, torch::Tensor> params, feeds;
    for (TensorId t = 0; t < TensorId(g.tensors.size()); ++t)
        if (isTrainable(g, t)) params[t] = (torch::randn(g.tensor(t).shape.knownDims()) * 0.5).requires_grad_(true);
    for (TensorId t : g.inputs)
        feeds[t] = dtypeIsFloating(g.tensor(t).dtype) ? torch::randn(g.tensor(t).shape.knownDims())
                                                      : torch::randint(0, idRange, g.tensor(t).shape.knownDims(), torch::kLong);
    Outcome r;
    r.regions = interp.coreRegions().size();
    const double before = tensorBytesNow();
    std::vector<LocalValue> out = interp.run(params, feeds, {}, {}, g.outputs, recomputeCores);
    for (LocalValue& v : out) v = interp.finalOutput(std::move(v));
    torch::Tensor loss = torch::zeros({});
    for (const LocalValue& v : out)
        if (v.t.is_floating_point()) loss = loss + (v.t * v.t).sum();
    r.heldAfterForward = tensorBytesNow() - before;
    loss.backward();
    for (const LocalValue& v : out) r.outputs.push_back(v.t.detach());
    for (const auto& [t, p] : params) r.grads[t] = p.grad().defined() ? p.grad() : torch::zeros_like(p);
    return r;
}

// What the cost model says one device keeps between a forward and its backward: the sum of the
// nodes' activation memory on one CPU device (fp32, every node whole).
double predictedKept(const Graph& g)
{
    ClusterSpec one = *loadClusterSpec("cpu-mpi");
    one.nodes = one.devicesPerNode = 1;
    const CostModel model(g, one, DeviceMesh{1, 1});
    double kept = 0;
    for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n) {
        const std::vector<OpStrategy> all = nodeStrategies(g, n, 1);
        if (!all.empty()) kept += model.nodeCost(n, all.front()).activationMemory;
    }
    return kept;
}

// X[seq 6, batch 2, 8] -> `op` (LSTM or GRU, hidden 16, the initial states left out: zeros)
// -> Y, Y_h. The worker composes each time step of torch ops (recurrent_kernels), and autograd
// keeps every step's activations: the cost model's innerKept.
Graph recurrentGraph(const std::string& op)
{
    const int64_t seq = 6, batch = 2, input = 8, hidden = 16, gates = op == "LSTM" ? 4 : 3;
    Graph g;
    const TensorId x = testing::addFloatTensor(g, "X", {seq, batch, input}, TensorKind::Input);
    const TensorId w = testing::addFloatTensor(g, "W", {1, gates * hidden, input}, TensorKind::Weight);
    const TensorId r = testing::addFloatTensor(g, "R", {1, gates * hidden, hidden}, TensorKind::Weight);
    const TensorId b = testing::addFloatTensor(g, "B", {1, 2 * gates * hidden}, TensorKind::Weight);
    const TensorId y = testing::addFloatTensor(g, "Y", {seq, 1, batch, hidden}, TensorKind::Activation);
    const TensorId yh = testing::addFloatTensor(g, "Y_h", {1, batch, hidden}, TensorKind::Activation);
    const NodeId n = testing::addNode(g, "cell", op, {x, w, r, b}, {y, yh});
    Attribute size; // tests/runtime may not include tests/core's attribute one-liners
    size.name = "hidden_size";
    size.kind = Attribute::Kind::Int;
    size.i = hidden;
    g.nodes[size_t(n)].attrs.push_back(size);
    g.inputs = {x};
    g.outputs = {y, yh};
    return g;
}

} // namespace

class TestExecRecompute : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { countTensorMemory(); }

    void eachLayersAttentionCoreIsOneRegion()
    {
        const Graph g = testing::zooGraphOf("gpt", {.layers = 3, .hidden = 16, .heads = 2, .vocab = 11, .seq = 8, .batch = 2});
        Result<ExecLayouts> layouts = analyseLayouts(g, nullptr, 1);
        QVERIFY(layouts.ok());
        GraphInterpreter interp(g, *layouts, 0);
        QCOMPARE(int(interp.coreRegions().size()), 3);
        for (const GraphInterpreter::CoreRegion& r : interp.coreRegions()) {
            std::vector<std::string> ops;
            for (NodeId n : r.nodes) ops.push_back(g.node(n).opType);
            QCOMPARE(ops, (std::vector<std::string>{"MatMul", "Div", "Where", "Softmax", "MatMul"}));
            QCOMPARE(r.outputs, g.node(r.nodes.back()).outputs); // only the context leaves it
            QVERIFY(r.inputs.size() >= 3);                       // Q, K transposed, V (and the mask when not known)
        }
        QCOMPARE(interp.coreRegionsIn({}), 3);
        // A call that runs only part of a core (a stage boundary inside it) holds no region.
        std::vector<char> runs(g.nodes.size(), 1);
        runs[size_t(interp.coreRegions()[1].nodes[2])] = 0;
        QCOMPARE(interp.coreRegionsIn(runs), 2);
    }

    void checkpointedCoresGiveTheSameFloatsAndHoldLess()
    {
        const int64_t batch = 2, heads = 2, seq = 32, layers = 2;
        const Graph g = testing::zooGraphOf("gpt", {.layers = layers, .hidden = 16, .heads = heads, .vocab = 11, .seq = seq,
                                                    .batch = batch});
        const Outcome kept = runOnce(g, false, 11), rerun = runOnce(g, true, 11);
        QCOMPARE(rerun.regions, size_t(layers));
        QCOMPARE(kept.outputs.size(), rerun.outputs.size());
        for (size_t i = 0; i < kept.outputs.size(); ++i)
            QVERIFY2(torch::equal(kept.outputs[i], rerun.outputs[i]), g.tensor(g.outputs[i]).name.c_str());
        for (const auto& [t, grad] : kept.grads)
            QVERIFY2(torch::equal(rerun.grads.at(t), grad), ("gradient of " + g.tensor(t).name).c_str());
        // Each layer's softmax output (batch x heads x seq x seq floats) is what the backward of
        // the softmax and of the product with V keep; checkpointed, neither is held.
        const double probs = double(batch * heads * seq * seq) * 4 * layers;
        const double saved = kept.heldAfterForward - rerun.heldAfterForward;
        QVERIFY2(saved == probs, qPrintable(QString("held after the forward: %1 B keeping, %2 B checkpointed; the "
                                                    "softmax outputs are %3 B")
                                                .arg(kept.heldAfterForward, 0, 'f', 0)
                                                .arg(rerun.heldAfterForward, 0, 'f', 0)
                                                .arg(probs, 0, 'f', 0)));
        qInfo("held between forward and backward: %.0f B keeping, %.0f B with the cores checkpointed (softmax outputs %.0f B)",
              kept.heldAfterForward, rerun.heldAfterForward, probs);
    }

    // The interpreter lets each value go after its last reader, so what a forward leaves alive
    // is what autograd saved plus the outputs: the figure the cost model predicts as kept
    // (core/cost/saved_activations). Before, every value of the forward lived until run()
    // returned, and a stage's forward in flight held all of them.
    void aForwardLeavesWhatTheCostModelCountsAsKept()
    {
        struct Case {
            const char* name;
            Graph g;
            int64_t ids;
        };
        std::vector<Case> cases;
        cases.push_back({"gpt", testing::zooGraphOf("gpt", {.layers = 2, .hidden = 32, .heads = 2, .vocab = 11, .seq = 32, .batch = 2}), 11});
        cases.push_back({"resnet18", testing::zooGraphOf("resnet50", {.batch = 2, .imageSize = 32, .classes = 4, .depth = 18}), 4});
        cases.push_back({"lstm", recurrentGraph("LSTM"), 1});
        cases.push_back({"gru", recurrentGraph("GRU"), 1});
        for (const Case& c : cases) {
            const Outcome kept = runOnce(c.g, false, c.ids);
            const double predicted = predictedKept(c.g);
            qInfo("%s: %.0f B alive between forward and backward, the cost model keeps %.0f B (%.3f)", c.name,
                  kept.heldAfterForward, predicted, kept.heldAfterForward / predicted);
            // Measured 1.011 (GPT: layer_norm's mean and rstd, which the model does not count) and
            // 1.000 (ResNet: 1.103 before the model counted max pool's int64 indices and batch
            // norm's 1 / sqrt(var + eps) per channel). The recurrent cells: LSTM 6,276 / 6,272 B
            // and GRU 5,508 / 5,504 B (1.001, the loss's scalar) with each step's kept activations
            // counted; as an opaque op keeping its inputs and outputs, 896 B (7.0x and 6.1x).
            const double ratio = kept.heldAfterForward / predicted;
            QVERIFY2(ratio >= 1.0 && ratio < 1.02, qPrintable(QString("%1: alive / predicted %2").arg(c.name).arg(ratio)));
        }
    }

    void withoutAttentionNothingIsCheckpointed()
    {
        const Graph g = testing::zooGraphOf("resnet50", {.batch = 2, .imageSize = 32, .classes = 4, .depth = 18});
        const Outcome kept = runOnce(g, false, 4), rerun = runOnce(g, true, 4);
        QCOMPARE(rerun.regions, size_t(0));
        for (size_t i = 0; i < kept.outputs.size(); ++i) QVERIFY(torch::equal(kept.outputs[i], rerun.outputs[i]));
        for (const auto& [t, grad] : kept.grads) QVERIFY(torch::equal(rerun.grads.at(t), grad));
        QCOMPARE(rerun.heldAfterForward, kept.heldAfterForward);
    }
};

QTEST_GUILESS_MAIN(TestExecRecompute)
#include "tst_exec_recompute.moc"
