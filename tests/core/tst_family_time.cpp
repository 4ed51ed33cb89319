// How a calibrated cluster prices nodes by op family (core/cost/family_time): the finer families
// the calibration measures apart (grouped and depthwise convolutions, pooling), nodes the worker
// never runs (shape arithmetic the importer folded), recurrences by their time steps, and
// control flow by the nodes of its body, and the node chains the worker runs as one torch
// function (decomposed LayerNorm, erf GELU, MatMul + bias) as that function. GPU presets (no
// op_families) keep peak x efficiency.
#include "core/cost/cost_model.h"
#include "core/cost/family_time.h"
#include "core/onnx/onnx_importer.h"
#include "core/ops/control_bodies.h"
#include "core/ops/node_chains.h"
#include "core/ops/op_registry.h"
#include "core/ops/shard_helpers.h"
#include "core/shard/sharding_plan.h"
#include "tests/common/float_tensor.h"
#include "tests/core/op_test_graph.h"
#include "tests/common/zoo_plan.h"
#include "core/zoo/zoo.h"
#include "tests/common/zoo_graph.h"

#include <QtTest>

using namespace tapas;

namespace {

ClusterSpec calibrated()
{
    ClusterSpec c;
    c.name = "calibrated";
    c.nodes = 1;
    c.devicesPerNode = 2;
    c.peakFp32 = c.peakFp16 = c.peakBf16 = 1e11;
    c.efficiency = 0.5;
    c.memoryBytes = 1e10;
    c.intraNode = c.interNode = {1e9, 1e-6};
    c.opFamilies["conv"] = {1e10, 0, 5e-5};
    c.opFamilies["matmul"] = {2e10, 0, 4e-5};
    c.opFamilies["elementwise"] = {0, 3e9, 3e-5};
    c.opFamilies["shape"] = {0, 0, 2e-5};
    return c;
}

// x -> Conv(W, group, `attrs`) -> y, y with W's output channels.
Graph convGraph(std::vector<int64_t> x, std::vector<int64_t> w, int64_t group, std::vector<Attribute> attrs)
{
    Graph g;
    std::vector<int64_t> y = x;
    y[1] = w[0];
    const TensorId tx = testing::addFloatTensor(g, "x", x, TensorKind::Input);
    const TensorId tw = testing::addFloatTensor(g, "W", w, TensorKind::Weight);
    const TensorId ty = testing::addFloatTensor(g, "y", y, TensorKind::Activation);
    g.inputs = {tx};
    g.outputs = {ty};
    const NodeId n = testing::addNode(g, "conv", "Conv", {tx, tw}, {ty});
    g.nodes[size_t(n)].attrs = std::move(attrs);
    g.nodes[size_t(n)].attrs.push_back(testing::intAttr("group", group));
    return g;
}

// x [8,64,28,28] -> Conv(W [64, 64/group, 3, 3], group, padded) -> y
Graph convGraph(int64_t group)
{
    return convGraph({8, 64, 28, 28}, {64, 64 / group, 3, 3}, group, {testing::intsAttr("pads", {1, 1, 1, 1})});
}

double price(const ClusterSpec& c, const Graph& g, NodeId n, const PricedChains* chains = nullptr)
{
    return nodeFamilySeconds(c, g, g.node(n), nodeCost(g, g.node(n)), 1.0, chains).value_or(-1);
}

// The zoo GPT as torch 1.13 exports it (LayerNorm decomposed, GELU as Erf), 2 layers.
Graph exportedGpt()
{
    return testing::zooGraphOf("gpt", {.layers = 2, .hidden = 64, .heads = 2, .vocab = 50, .seq = 16, .batch = 4});
}

const NodeChain* firstChain(const PricedChains& p, NodeChain::Kind k)
{
    for (const NodeChain& c : p.chains)
        if (c.kind == k) return &c;
    return nullptr;
}

// Every node replicated on one device.
ShardingPlan replicatedPlan(const Graph& g)
{
    std::vector<OpStrategy> s;
    for (const Node& n : g.nodes) s.push_back(replicateStrategy(n));
    return buildPlan(g, DeviceMesh{1, 1}, std::move(s));
}

// A model whose If's condition reads data (the sign of a sum): its branches differ in work.
Result<Graph> branchyGraph()
{
    return importOnnxFile(TAPAS_SOURCE_DIR "/tests/data/kernels/branchy_then.onnx");
}

// The calibrated cluster with a price for every family the If's branches run.
ClusterSpec branchyCluster()
{
    ClusterSpec c = calibrated();
    for (const char* f : {"normalization", "reduce", "indexing", "generator", "resize"}) c.opFamilies[f] = {0, 0, 1e-3};
    return c;
}

// `g` with the condition of its If made a known value, as the importer folds a constant one.
Graph withKnownCondition(const Graph& g, NodeId ifNode, bool taken)
{
    Graph known = g;
    ConstValue v;
    v.dtype = DType::Bool;
    v.ints = {taken ? 1 : 0};
    known.tensor(known.node(ifNode).input(0)).value = v;
    return known;
}

// A plan that splits every node's first input along its last axis (LayerNorm's normalised one).
struct SplitsLastAxis : ChainLayouts {
    bool splitAlong(NodeId, size_t, int) const override { return true; }
};

} // namespace

class TstFamilyTime : public QObject {
    Q_OBJECT
private slots:
    // A depthwise convolution does 1/64 of the dense one's FLOPs; torch's CPU kernel runs it far
    // below the dense rate, so a calibrated "conv_grouped" rate prices it, and without one the
    // conv family still does.
    void grouped_convolutions_are_priced_by_their_own_family_when_calibrated()
    {
        ClusterSpec c = calibrated();
        const Graph depthwise = convGraph(64);
        const OpCost oc = nodeCost(depthwise, depthwise.node(0));
        QCOMPARE(pricingFamily(c, depthwise, depthwise.node(0)), std::string("conv"));
        QCOMPARE(price(c, depthwise, 0), 5e-5 + oc.flops / 1e10);
        c.opFamilies["conv_grouped"] = {1e8, 0, 6e-5};
        QCOMPARE(pricingFamily(c, depthwise, depthwise.node(0)), std::string("conv_grouped"));
        QCOMPARE(price(c, depthwise, 0), 6e-5 + oc.flops / 1e8);
        // A dense convolution stays in "conv".
        const Graph dense = convGraph(1);
        QCOMPARE(pricingFamily(c, dense, dense.node(0)), std::string("conv"));
        QCOMPARE(price(c, dense, 0), 5e-5 + nodeCost(dense, dense.node(0)).flops / 1e10);
        // The cost model uses it.
        CostModel m(depthwise, c, {1, 1});
        QCOMPARE(m.nodeCost(0, nodeStrategies(depthwise, 0, 1).front()).compute - optimizerSeconds(c, 64.0 * 9 * 4),
                 6e-5 + oc.flops / 1e8);
    }

    void pooling_is_priced_by_bytes_when_calibrated()
    {
        ClusterSpec c = calibrated();
        Graph g;
        const TensorId x = testing::addFloatTensor(g, "x", {8, 64, 56, 56}, TensorKind::Input);
        const TensorId y = testing::addFloatTensor(g, "y", {8, 64, 1, 1}, TensorKind::Activation);
        g.inputs = {x};
        g.outputs = {y};
        Node n;
        n.name = "gap";
        n.opType = "GlobalAveragePool";
        n.inputs = {x};
        n.outputs = {y};
        g.addNode(n);
        QCOMPARE(pricingFamily(c, g, g.node(0)), std::string("conv"));
        c.opFamilies["pool"] = {0, 2e9, 1e-5};
        const OpCost oc = nodeCost(g, g.node(0));
        QCOMPARE(pricingFamily(c, g, g.node(0)), std::string("pool"));
        QCOMPARE(price(c, g, 0), 1e-5 + (oc.bytesRead + oc.bytesWritten) / 2e9);
    }

    // Shape arithmetic whose outputs the importer already knows is skipped by the worker.
    void nodes_the_importer_folded_cost_nothing()
    {
        const ClusterSpec c = calibrated();
        Graph g;
        const TensorId x = testing::addFloatTensor(g, "x", {8, 64}, TensorKind::Input);
        Tensor s;
        s.name = "shape";
        s.dtype = DType::Int64;
        s.kind = TensorKind::Activation;
        s.shape = Shape::of({2});
        const TensorId st = g.addTensor(s);
        g.inputs = {x};
        g.outputs = {st};
        Node n;
        n.name = "shape_of_x";
        n.opType = "Shape";
        n.inputs = {x};
        n.outputs = {st};
        g.addNode(n);
        QCOMPARE(price(c, g, 0), 2e-5); // not yet known: the shape family's overhead
        ConstValue v;
        v.dtype = DType::Int64;
        v.shape = Shape::of({2});
        v.ints = {8, 64};
        g.tensor(st).value = v;
        QCOMPARE(price(c, g, 0), 0.0);
    }

    // The worker runs an LSTM as torch ops per time step and direction (a matmul and twelve
    // element-wise ops with their backward): priced as such, plus its FLOPs at the matmul rate.
    void recurrences_are_priced_per_time_step()
    {
        const ClusterSpec c = calibrated();
        const QString path = QStringLiteral(TAPAS_SOURCE_DIR "/tests/data/kernels/lstm_bidir.onnx");
        Result<Graph> g = importOnnxFile(path.toStdString());
        QVERIFY2(g.ok(), g.ok() ? "" : g.error().c_str());
        const NodeId lstm = testing::findNode(*g, "", "LSTM");
        QVERIFY(lstm != kNoNode);
        const Node& n = g->node(lstm);
        QCOMPARE(n.attrString("direction", ""), std::string("bidirectional"));
        const Shape& x = g->tensor(n.input(0)).shape;
        QVERIFY(x.isFullyKnown());
        const double steps = double(x.dims[n.attrInt("layout", 0) == 1 ? 1 : 0].value);
        const OpCost oc = nodeCost(*g, n);
        QCOMPARE(price(c, *g, lstm), 2 * steps * (4e-5 + 12 * 3e-5) + oc.flops / 2e10);
    }

    // An If costs its dearer branch's nodes, each by its own family: at least one node's
    // overhead, where FLOPs at peak x efficiency would have priced it at microseconds.
    void control_flow_is_priced_by_the_nodes_of_its_body()
    {
        ClusterSpec c = calibrated();
        for (const char* f : {"normalization", "reduce", "indexing", "generator", "resize", "conv"})
            c.opFamilies[f] = {0, 0, 1e-3};
        for (auto& [family, r] : c.opFamilies) r = {0, 0, 1e-3}; // every node the same overhead, nothing else
        Result<Graph> g = branchyGraph();
        QVERIFY2(g.ok(), g.ok() ? "" : g.error().c_str());
        const NodeId ifNode = testing::findNode(*g, "", "If");
        QVERIFY(ifNode != kNoNode);
        const ControlBodies bodies = controlBodies(*g, g->node(ifNode));
        QCOMPARE(bodies.alternatives.size(), size_t(2));
        size_t most = 0;
        for (const auto& b : bodies.alternatives) {
            size_t run = 0;
            for (const Node& m : b->nodes) {
                bool folded = !m.outputs.empty();
                for (TensorId t : m.outputs)
                    folded = folded && t != kNoTensor && b->tensor(t).value && b->tensor(t).value->isInteger();
                run += folded ? 0 : 1;
            }
            most = std::max(most, run);
        }
        QVERIFY(most >= 2);
        QCOMPARE(price(c, *g, ifNode), 1e-3 * double(most));
    }

    // An If whose condition the importer knows (a constant, or shape arithmetic it folded)
    // runs that branch on the worker, which reads the same value: it is priced by that branch
    // alone. A condition on data keeps the dearer branch, and the cost report says so.
    void an_if_with_a_known_condition_is_priced_by_the_branch_it_takes()
    {
        const ClusterSpec c = branchyCluster();
        Result<Graph> g = branchyGraph();
        QVERIFY2(g.ok(), g.ok() ? "" : g.error().c_str());
        const NodeId ifNode = testing::findNode(*g, "", "If");
        QVERIFY(ifNode != kNoNode);
        const Node& n = g->node(ifNode);
        QVERIFY(!ifTakenBranch(*g, n)); // the sign of a sum: data
        const double dearer = price(c, *g, ifNode);
        const CostModel data(*g, c, DeviceMesh{1, 1});
        const CostReport r = evaluatePlan(replicatedPlan(*g), data);
        QCOMPARE(r.notes.size(), size_t(1));
        QVERIFY(r.notes[0].find("'" + n.name + "'") != std::string::npos);
        QVERIFY(r.notes[0].find("dearer branch") != std::string::npos);

        // Each branch on its own, the condition made a known value.
        double branch[2] = {0, 0};
        for (int taken = 0; taken < 2; ++taken) {
            const Graph known = withKnownCondition(*g, ifNode, taken);
            QCOMPARE(std::string(ifTakenBranch(known, known.node(ifNode))), std::string(taken ? "then_branch" : "else_branch"));
            const ControlBodies bodies = controlBodies(known, known.node(ifNode));
            QCOMPARE(bodies.alternatives.size(), size_t(1));
            QVERIFY(bodies.branchKnown);
            branch[taken] = price(c, known, ifNode);
            QVERIFY(branch[taken] > 0);
            const CostModel model(known, c, DeviceMesh{1, 1});
            QVERIFY(evaluatePlan(replicatedPlan(known), model).notes.empty());
        }
        QCOMPARE(std::max(branch[0], branch[1]), dearer);
        QVERIFY(branch[0] != branch[1]); // the test tells the branches apart
    }

    // An If whose condition reads data is priced by the branch the workload states it takes
    // (--assume-branch), the report saying so; the option refuses, naming it, what it cannot mean.
    void an_if_on_data_is_priced_by_the_branch_the_workload_assumes()
    {
        const ClusterSpec c = branchyCluster();
        Result<Graph> g = branchyGraph();
        QVERIFY2(g.ok(), g.ok() ? "" : g.error().c_str());
        const NodeId ifNode = testing::findNode(*g, "", "If");
        QVERIFY(ifNode != kNoNode);
        const std::string name = g->node(ifNode).name;
        double branch[2] = {0, 0}; // else, then: each priced as if its condition were known
        for (int taken = 0; taken < 2; ++taken) {
            branch[taken] = price(c, withKnownCondition(*g, ifNode, taken), ifNode);
        }
        QVERIFY(branch[0] != branch[1]);
        for (int taken = 0; taken < 2; ++taken) {
            Graph assumed = *g;
            QVERIFY(assumeIfBranches(assumed, {name + (taken ? "=then" : "=else")}).ok());
            QCOMPARE(price(c, assumed, ifNode), branch[taken]);
            QVERIFY(!ifTakenBranch(assumed, assumed.node(ifNode))); // the executor still follows the data
            const CostModel model(assumed, c, DeviceMesh{1, 1});
            const CostReport r = evaluatePlan(replicatedPlan(assumed), model);
            QCOMPARE(r.notes.size(), size_t(1));
            QVERIFY(r.notes[0].find(std::string("priced as its ") + (taken ? "then" : "else") + " branch, as the workload assumes") !=
                    std::string::npos);
        }
        Graph other = *g;
        const Status unknown = assumeIfBranches(other, {"no_such_node=else"});
        QVERIFY(!unknown.ok() && unknown.error.find("no node 'no_such_node'") != std::string::npos);
        const Status bad = assumeIfBranches(other, {name + "=maybe"});
        QVERIFY(!bad.ok() && bad.error.find("expected NODE=then or NODE=else") != std::string::npos);
        NodeId notIf = kNoNode;
        for (NodeId n = 0; n < NodeId(other.nodes.size()); ++n)
            if (other.node(n).opType != "If") notIf = n;
        QVERIFY(notIf != kNoNode);
        const Status wrongOp = assumeIfBranches(other, {other.node(notIf).name + "=then"});
        QVERIFY(!wrongOp.ok() && wrongOp.error.find("not an If") != std::string::npos);
        Graph known = withKnownCondition(*g, ifNode, true);
        const Status nothing = assumeIfBranches(known, {name + "=else"});
        QVERIFY(!nothing.ok() && nothing.error.find("known before it runs") != std::string::npos);
        for (const Graph* h : {&other, &known})
            QCOMPARE(h->node(ifNode).attrString(kAssumedBranchAttr, ""), std::string()); // refused: nothing set
    }

    // A Gather from a trained table (an embedding): torch's backward zero-fills a gradient the
    // size of the table this device holds and adds the rows in, so a calibrated "gather" rate
    // prices the table's bytes; without one, the indexing family prices the rows read, as before.
    void a_gather_from_a_trained_table_is_priced_by_the_table_its_backward_fills()
    {
        Graph g;
        const TensorId table = testing::addFloatTensor(g, "table", {1000, 64}, TensorKind::Weight);
        const TensorId ids = testing::addTensorOf(g, "ids", DType::Int64, {2, 8}, TensorKind::Input);
        const TensorId y = testing::addFloatTensor(g, "y", {2, 8, 64}, TensorKind::Activation);
        g.inputs = {ids};
        g.outputs = {y};
        testing::addNode(g, "embed", "Gather", {table, ids}, {y});
        ClusterSpec c = calibrated();
        c.opFamilies["indexing"] = {0, 4e9, 3e-5};
        QVERIFY(gatherFillsTable(g, g.node(0)));
        const double rows = 2.0 * 8 * 64 * 4;
        QCOMPARE(pricingFamily(c, g, g.node(0)), std::string("indexing"));
        QCOMPARE(price(c, g, 0), 3e-5 + (2 * rows + 2.0 * 8 * 8) / 4e9); // the rows read and written, the indices
        c.opFamilies["gather"] = {0, 8e9, 2e-5};
        QCOMPARE(pricingFamily(c, g, g.node(0)), std::string("gather"));
        const double table4 = 1000.0 * 64 * 4;
        QCOMPARE(price(c, g, 0), 2e-5 + (table4 + 2 * rows) / 8e9);
        // Half the rows on this device, the table whole (a split batch) or split in two (its hidden axis).
        const OpCost oc = nodeCost(g, g.node(0));
        QCOMPARE(nodeFamilySeconds(c, g, g.node(0), oc, 0.5, nullptr, false, 1.0).value_or(-1), 2e-5 + (table4 + rows) / 8e9);
        QCOMPARE(nodeFamilySeconds(c, g, g.node(0), oc, 0.5, nullptr, false, 0.5).value_or(-1), 2e-5 + (table4 / 2 + rows) / 8e9);
        // A table the importer folded into integers (shape arithmetic) takes no gradient.
        Graph folded = g;
        folded.tensor(table).dtype = DType::Int64;
        QVERIFY(!gatherFillsTable(folded, folded.node(0)));
    }

    // Beside its nodes the worker's step draws every float input from a seeded stream and, for
    // every float output, a seeded target and the MSE loss against it: a cluster calibrated with
    // "synthetic_input" and "loss" rates charges them, each once, to the first reader of the input
    // and to the output's producer; integer inputs (token ids) and clusters without the rates
    // cost nothing more.
    void the_step_draws_its_inputs_and_targets_when_calibrated()
    {
        Graph g;
        const TensorId x = testing::addFloatTensor(g, "x", {4, 16}, TensorKind::Input);
        const TensorId h = testing::addFloatTensor(g, "h", {4, 16}, TensorKind::Activation);
        const TensorId y = testing::addFloatTensor(g, "y", {4, 16}, TensorKind::Activation);
        g.inputs = {x};
        g.outputs = {y};
        for (const auto& [name, in, out] : {std::tuple{"relu", x, h}, std::tuple{"relu2", h, y}}) {
            Node n;
            n.name = name;
            n.opType = "Relu";
            n.inputs = {in};
            n.outputs = {out};
            g.addNode(n);
        }
        ClusterSpec c = calibrated();
        OpStrategy s;
        s.computeFraction = 1;
        const CostModel plain(g, c, DeviceMesh{1, 1});
        QCOMPARE(plain.nodeCost(0, s).compute, price(c, g, 0));
        QCOMPARE(plain.nodeCost(1, s).compute, price(c, g, 1));
        c.opFamilies["synthetic_input"] = {0, 1e8, 1e-6};
        c.opFamilies["loss"] = {0, 5e7, 2e-5};
        const double elems = 4 * 16;
        QCOMPARE(drawnTensorSeconds(c, g, x, elems), 1e-6 + 4 * elems / 1e8);
        QCOMPARE(drawnTensorSeconds(c, g, y, elems), 2e-5 + 4 * elems / 5e7);
        QCOMPARE(drawnTensorSeconds(c, g, h, elems), 0.0);
        const CostModel model(g, c, DeviceMesh{1, 1});
        QCOMPARE(model.nodeCost(0, s).compute, price(c, g, 0) + 1e-6 + 4 * elems / 1e8);
        QCOMPARE(model.nodeCost(1, s).compute, price(c, g, 1) + 2e-5 + 4 * elems / 5e7);
        Graph ints = g;
        ints.tensor(x).dtype = DType::Int64;
        QCOMPARE(drawnTensorSeconds(c, ints, x, elems), 0.0);
    }

    // The worker runs an exported LayerNorm's nine nodes as one torch::layer_norm: one dispatch
    // and one pass over x and the output, not nine of each. Unfused they cost nine overheads.
    void a_decomposed_layer_norm_is_priced_as_one_layer_norm()
    {
        ClusterSpec c = calibrated();
        c.opFamilies["normalization"] = {0, 2e9, 2.5e-5};
        c.opFamilies["reduce"] = {0, 2e9, 5e-5};
        const Graph g = exportedGpt();
        const PricedChains chains = pricedChains(g);
        int layerNorms = 0, gelus = 0, addmms = 0;
        for (const NodeChain& ch : chains.chains) {
            layerNorms += ch.kind == NodeChain::Kind::LayerNorm;
            gelus += ch.kind == NodeChain::Kind::Gelu;
            addmms += ch.kind == NodeChain::Kind::MatMulBias;
        }
        QCOMPARE(layerNorms, 5); // two a layer and the final one, as the worker fuses them (tst_exec_fusion)
        QCOMPARE(gelus, 2);
        QCOMPARE(addmms, 8);
        const NodeChain* ln = firstChain(chains, NodeChain::Kind::LayerNorm);
        QVERIFY(ln);
        QCOMPARE(ln->nodes.size(), size_t(9));
        double unfused = 0, fused = 0;
        for (NodeId n : ln->nodes) {
            unfused += price(c, g, n);
            const double p = price(c, g, n, &chains);
            if (n != ln->nodes.back()) QCOMPARE(p, 0.0);
            fused += p;
        }
        const double bytes = tensorBytes(g, ln->inputs.front().tensor) + tensorBytes(g, ln->output);
        QCOMPARE(fused, 2.5e-5 + bytes / 2e9);
        QVERIFY(unfused > 5 * fused); // nine nodes' overheads (2-5e-5 s each) against one
    }

    // With a "layer_norm" rate (torch's layer_norm with its affine gradients, calibrated apart
    // from softmax), the fused chain and a LayerNormalization node take it.
    void a_layer_norm_takes_the_layer_norm_rate_when_calibrated()
    {
        ClusterSpec c = calibrated();
        c.opFamilies["normalization"] = {0, 2e9, 2.5e-5};
        c.opFamilies["reduce"] = {0, 2e9, 5e-5};
        c.opFamilies["layer_norm"] = {0, 1e9, 9e-5};
        const Graph g = exportedGpt();
        const PricedChains chains = pricedChains(g);
        const NodeChain* ln = firstChain(chains, NodeChain::Kind::LayerNorm);
        QVERIFY(ln);
        const double bytes = tensorBytes(g, ln->inputs.front().tensor) + tensorBytes(g, ln->output);
        QCOMPARE(price(c, g, ln->nodes.back(), &chains), 9e-5 + bytes / 1e9);

        Graph one;
        const TensorId x = testing::addFloatTensor(one, "x", {64, 256}, TensorKind::Input);
        const TensorId w = testing::addFloatTensor(one, "scale", {256}, TensorKind::Weight);
        const TensorId b = testing::addFloatTensor(one, "shift", {256}, TensorKind::Weight);
        const TensorId y = testing::addFloatTensor(one, "y", {64, 256}, TensorKind::Activation);
        one.inputs = {x};
        one.outputs = {y};
        Node n;
        n.name = "ln";
        n.opType = "LayerNormalization";
        n.inputs = {x, w, b};
        n.outputs = {y};
        one.addNode(n);
        QCOMPARE(pricingFamily(c, one, one.node(0)), std::string("layer_norm"));
        const OpCost oc = nodeCost(one, one.node(0));
        QCOMPARE(price(c, one, 0), 9e-5 + (oc.bytesRead + oc.bytesWritten) / 1e9);
        c.opFamilies.erase("layer_norm");
        QCOMPARE(pricingFamily(c, one, one.node(0)), std::string("normalization"));
    }

    // Convolutions are priced by what torch runs for them, each kind falling back to the coarser
    // family on a cluster calibrated without it: depthwise (a group per channel) apart from other
    // grouped convolutions, 1-D ones, 1x1 kernels, and dense ones with a spatial kernel.
    void convolutions_are_priced_by_the_kind_torch_runs()
    {
        ClusterSpec c = calibrated();
        auto conv = [](std::vector<int64_t> x, std::vector<int64_t> w, int64_t group, std::vector<int64_t> kernel) {
            return convGraph(std::move(x), std::move(w), group, {testing::intsAttr("kernel_shape", std::move(kernel))});
        };
        const Graph depthwise = conv({1, 64, 28, 28}, {64, 1, 3, 3}, 64, {3, 3});
        const Graph grouped = conv({1, 64, 28, 28}, {64, 8, 3, 3}, 8, {3, 3});
        const Graph oneD = conv({1, 64, 100}, {64, 64, 3}, 1, {3});
        const Graph pointwise = conv({1, 64, 28, 28}, {32, 64, 1, 1}, 1, {1, 1});
        const Graph dense = conv({1, 64, 28, 28}, {32, 64, 3, 3}, 1, {3, 3});
        for (const Graph* g : {&depthwise, &grouped, &oneD, &pointwise, &dense})
            QCOMPARE(pricingFamily(c, *g, g->node(0)), std::string("conv"));
        c.opFamilies["conv_grouped"] = {1e9, 0, 2e-5};
        QCOMPARE(pricingFamily(c, depthwise, depthwise.node(0)), std::string("conv_grouped"));
        c.opFamilies["conv_depthwise"] = {5e8, 0, 3e-5};
        c.opFamilies["conv1d"] = {2e9, 0, 1e-4};
        c.opFamilies["conv_pointwise"] = {3e10, 0, 1e-5};
        QCOMPARE(pricingFamily(c, depthwise, depthwise.node(0)), std::string("conv_depthwise"));
        QCOMPARE(pricingFamily(c, grouped, grouped.node(0)), std::string("conv_grouped"));
        QCOMPARE(pricingFamily(c, oneD, oneD.node(0)), std::string("conv1d"));
        QCOMPARE(pricingFamily(c, pointwise, pointwise.node(0)), std::string("conv_pointwise"));
        QCOMPARE(pricingFamily(c, dense, dense.node(0)), std::string("conv"));
        QCOMPARE(price(c, oneD, 0), 1e-4 + nodeCost(oneD, oneD.node(0)).flops / 2e9);
        QCOMPARE(price(c, depthwise, 0), 3e-5 + nodeCost(depthwise, depthwise.node(0)).flops / 5e8);
        // A conv family's rate by size: a small convolution pays the small size's rate.
        c.opFamilies["conv"].bySize = {{1e5, 1e9}, {1e7, 5e9}, {1e9, 2e10}};
        const double flops = nodeCost(dense, dense.node(0)).flops;
        QCOMPARE(price(c, dense, 0), 5e-5 + flops / c.opFamilies["conv"].flopRateAt(flops));
        QVERIFY(price(c, dense, 0) > 5e-5 + flops / 1e10); // below the one rate of `calibrated`
    }

    // Which kernel torch runs for a convolution (ConvParams::use_mkldnn, one thread): oneDNN's
    // for a batch above 1, a large input, a strided or grouped one; its own for a small input of
    // one sample, and for an unstrided 1x1 kernel below a batch of 16.
    void torch_picks_its_convolution_kernel_by_the_shapes()
    {
        QVERIFY(!torchConvRunsOneDnn({{1, 129, 3}, {3}, {1}, {}, 1}));    // Silero's encoder, one sample
        QVERIFY(torchConvRunsOneDnn({{2, 129, 3}, {3}, {1}, {}, 1}));     // its batch of 2 on a rank
        QVERIFY(!torchConvRunsOneDnn({{1, 96, 10, 2}, {3, 1}, {}, {}, 1})); // 1920 elements
        QVERIFY(torchConvRunsOneDnn({{1, 24, 74, 32}, {3, 1}, {}, {}, 1}));  // 56832 elements
        QVERIFY(!torchConvRunsOneDnn({{8, 64, 28, 28}, {1, 1}, {}, {}, 1})); // 1x1: a GEMM of torch's own
        QVERIFY(torchConvRunsOneDnn({{1, 64, 56, 56}, {1, 1}, {2, 2}, {}, 1}));
        QVERIFY(torchConvRunsOneDnn({{1, 8, 4, 4}, {3, 3}, {}, {}, 8}));  // depthwise
        QVERIFY(!torchConvRunsOneDnn({{1, 8, 4, 4}, {3, 3}, {}, {}, 8, true})); // depthwise transposed
    }

    // The finer conv families: by the kernel torch runs on this device's share of the input
    // (a plan that keeps the batch of 2 on each rank runs oneDNN where one sample runs torch's
    // own), and strided depthwise convolutions apart. Without them, the coarser family.
    void convolutions_are_priced_by_the_kernel_torch_runs_on_the_local_input()
    {
        ClusterSpec c = calibrated();
        c.opFamilies["conv1d"] = {2e9, 0, 2e-5};
        c.opFamilies["conv_depthwise"] = {5e8, 0, 3e-5};
        Graph oneD = convGraph(1);
        oneD.tensor(oneD.node(0).input(0)).shape = Shape::of({1, 64, 100});
        oneD.tensor(oneD.node(0).input(1)).shape = Shape::of({64, 64, 3});
        oneD.tensor(oneD.node(0).outputs[0]).shape = Shape::of({1, 64, 100});
        const Node& n1 = oneD.node(0);
        QCOMPARE(pricingFamily(c, oneD, n1, {2, 64, 100}), std::string("conv1d")); // no oneDNN family: the kind's
        c.opFamilies["conv1d.onednn"] = {2e9, 0, 8e-5};
        QCOMPARE(pricingFamily(c, oneD, n1), std::string("conv1d"));
        QCOMPARE(pricingFamily(c, oneD, n1, {2, 64, 100}), std::string("conv1d.onednn"));
        const OpCost oc = nodeCost(oneD, n1);
        QCOMPARE(*nodeFamilySeconds(c, oneD, n1, oc, 1.0, nullptr, false, -1, {2, 64, 100}), 8e-5 + oc.flops / 2e9);

        const Graph dense = convGraph(1); // x [8,64,28,28], 3x3
        QCOMPARE(localConvInput(dense, dense.node(0), 1, 2, 2), (std::vector<int64_t>{4, 32, 28, 28}));
        QCOMPARE(localConvInput(dense, dense.node(0), -1, 2, 8), (std::vector<int64_t>{1, 64, 28, 28}));
        QCOMPARE(pricingFamily(c, dense, dense.node(0), {1, 16, 28, 28}), std::string("conv"));
        c.opFamilies["conv.native"] = {1e10, 0, 1e-5};
        QCOMPARE(pricingFamily(c, dense, dense.node(0), {1, 16, 28, 28}), std::string("conv.native")); // 12544 elements
        QCOMPARE(pricingFamily(c, dense, dense.node(0), {1, 64, 28, 28}), std::string("conv"));
        QCOMPARE(pricingFamily(c, dense, dense.node(0)), std::string("conv"));

        Graph depthwise = convGraph(64);
        QCOMPARE(pricingFamily(c, depthwise, depthwise.node(0)), std::string("conv_depthwise"));
        depthwise.nodes[0].attrs.push_back(testing::intsAttr("strides", {2, 1}));
        QCOMPARE(pricingFamily(c, depthwise, depthwise.node(0)), std::string("conv_depthwise")); // no strided family
        c.opFamilies["conv_depthwise_strided"] = {2e8, 0, 3e-5};
        QCOMPARE(pricingFamily(c, depthwise, depthwise.node(0)), std::string("conv_depthwise_strided"));
        QCOMPARE(price(c, depthwise, 0), 3e-5 + nodeCost(depthwise, depthwise.node(0)).flops / 2e8);
    }

    // Pooling by kind, BatchNorm as its own family, and element-wise ops the calibration timed on
    // their own; a memory-bound family's byte rate by the bytes the node moves.
    void pools_batchnorm_and_costly_elementwise_ops_take_their_own_rates()
    {
        ClusterSpec c = calibrated();
        auto unary = [](const std::string& op, std::vector<int64_t> x, std::vector<int64_t> y, int extraInputs = 0) {
            Graph g;
            const TensorId tx = testing::addFloatTensor(g, "x", x, TensorKind::Input);
            const TensorId ty = testing::addFloatTensor(g, "y", y, TensorKind::Activation);
            g.inputs = {tx};
            g.outputs = {ty};
            Node n;
            n.name = "n";
            n.opType = op;
            n.inputs = {tx};
            for (int i = 0; i < extraInputs; ++i)
                n.inputs.push_back(testing::addFloatTensor(g, "p" + std::to_string(i), {x[1]}, TensorKind::Weight));
            n.outputs = {ty};
            g.addNode(n);
            return g;
        };
        const Graph maxPool = unary("MaxPool", {1, 64, 56, 56}, {1, 64, 28, 28});
        const Graph gap = unary("GlobalAveragePool", {1, 64, 56, 56}, {1, 64, 1, 1});
        const Graph bn = unary("BatchNormalization", {1, 64, 56, 56}, {1, 64, 56, 56}, 4);
        const Graph clip = unary("Clip", {1, 64, 56, 56}, {1, 64, 56, 56});
        const Graph relu = unary("Relu", {1, 64, 56, 56}, {1, 64, 56, 56});
        c.opFamilies["pool"] = {0, 1e9, 1e-5};
        c.opFamilies["normalization"] = {0, 5e9, 1e-5};
        QCOMPARE(pricingFamily(c, maxPool, maxPool.node(0)), std::string("pool"));
        QCOMPARE(pricingFamily(c, gap, gap.node(0)), std::string("pool"));
        QCOMPARE(pricingFamily(c, bn, bn.node(0)), std::string("normalization"));
        QCOMPARE(pricingFamily(c, clip, clip.node(0)), std::string("elementwise"));
        c.opFamilies["max_pool"] = {0, 2e9, 2e-5};
        c.opFamilies["global_pool"] = {0, 8e9, 3e-5};
        c.opFamilies["batchnorm"] = {0, 3e9, 6e-5};
        c.opFamilies["elementwise.Clip"] = {0, 1e9, 4e-5};
        QCOMPARE(pricingFamily(c, maxPool, maxPool.node(0)), std::string("max_pool"));
        QCOMPARE(pricingFamily(c, gap, gap.node(0)), std::string("global_pool"));
        QCOMPARE(pricingFamily(c, bn, bn.node(0)), std::string("batchnorm"));
        QCOMPARE(pricingFamily(c, clip, clip.node(0)), std::string("elementwise.Clip"));
        QCOMPARE(pricingFamily(c, relu, relu.node(0)), std::string("elementwise"));
        auto bytes = [](const Graph& g) {
            const OpCost oc = nodeCost(g, g.node(0));
            return oc.bytesRead + oc.bytesWritten;
        };
        QCOMPARE(price(c, bn, 0), 6e-5 + bytes(bn) / 3e9);
        QCOMPARE(price(c, clip, 0), 4e-5 + bytes(clip) / 1e9);
        QCOMPARE(price(c, gap, 0), 3e-5 + bytes(gap) / 8e9);
        // By size: a Relu whose bytes sit between two measured sizes pays the interpolated rate,
        // one past the largest the largest's.
        c.opFamilies["elementwise"].byteBySize = {{1e5, 2e10}, {bytes(relu) * 10, 5e9}};
        const double rate = c.opFamilies["elementwise"].byteRateAt(bytes(relu));
        QVERIFY(rate > 5e9 && rate < 2e10);
        QCOMPARE(price(c, relu, 0), 3e-5 + bytes(relu) / rate);
        c.opFamilies["elementwise"].byteBySize = {{1e3, 2e10}, {1e4, 5e9}};
        QCOMPARE(price(c, relu, 0), 3e-5 + bytes(relu) / 5e9);
    }

    // A Max or Min against a one-element constant runs as one clamp (hardtanh: "elementwise.Max"),
    // one of two tensors as torch's maximum / minimum, its own family; without that family the plain
    // element-wise rate, never the clamp's, which under-priced it several times.
    void max_and_min_of_two_tensors_are_priced_apart_from_a_clamp()
    {
        ClusterSpec c = calibrated();
        auto graph = [](const std::string& op, TensorKind otherKind, std::vector<int64_t> otherDims) {
            Graph g;
            const TensorId x = testing::addFloatTensor(g, "x", {1, 64, 56, 56}, TensorKind::Input);
            const TensorId o = testing::addFloatTensor(g, "o", otherDims, otherKind);
            const TensorId y = testing::addFloatTensor(g, "y", {1, 64, 56, 56}, TensorKind::Activation);
            if (otherKind == TensorKind::Weight) { // an initializer the importer reads: its value is known
                ConstValue v;
                v.dtype = DType::Float32;
                v.shape = g.tensor(o).shape;
                v.floats = {0.0};
                g.tensor(o).value = v;
            }
            g.inputs = {x};
            if (otherKind == TensorKind::Input) g.inputs.push_back(o);
            g.outputs = {y};
            Node n;
            n.name = "n";
            n.opType = op;
            n.inputs = {x, o};
            n.outputs = {y};
            g.addNode(n);
            return g;
        };
        const Graph relu = graph("Max", TensorKind::Weight, {1}); // tf2onnx's ReLU: Max(x, 0)
        const Graph pair = graph("Max", TensorKind::Input, {1, 64, 56, 56});
        const Graph pairMin = graph("Min", TensorKind::Input, {1, 64, 56, 56});
        const Graph scalarInput = graph("Max", TensorKind::Input, {1}); // fed each step: takes a gradient
        QVERIFY(boundAgainstConstant(relu, relu.node(0)));
        QVERIFY(!boundAgainstConstant(pair, pair.node(0)));
        QVERIFY(!boundAgainstConstant(scalarInput, scalarInput.node(0)));
        c.opFamilies["elementwise.Max"] = {0, 4e9, 1e-5};
        c.opFamilies["elementwise.Min"] = {0, 4e9, 1e-5};
        QCOMPARE(pricingFamily(c, relu, relu.node(0)), std::string("elementwise.Max"));
        QCOMPARE(pricingFamily(c, pair, pair.node(0)), std::string("elementwise"));
        QCOMPARE(pricingFamily(c, pairMin, pairMin.node(0)), std::string("elementwise"));
        QCOMPARE(pricingFamily(c, scalarInput, scalarInput.node(0)), std::string("elementwise"));
        c.opFamilies["elementwise.maximum"] = {0, 1e9, 5e-5};
        c.opFamilies["elementwise.minimum"] = {0, 1.5e9, 6e-5};
        QCOMPARE(pricingFamily(c, relu, relu.node(0)), std::string("elementwise.Max"));
        QCOMPARE(pricingFamily(c, pair, pair.node(0)), std::string("elementwise.maximum"));
        QCOMPARE(pricingFamily(c, pairMin, pairMin.node(0)), std::string("elementwise.minimum"));
        const OpCost pc = nodeCost(pair, pair.node(0)), rc = nodeCost(relu, relu.node(0));
        QCOMPARE(price(c, pair, 0), 5e-5 + (pc.bytesRead + pc.bytesWritten) / 1e9);
        QCOMPARE(price(c, pairMin, 0), 6e-5 + (pc.bytesRead + pc.bytesWritten) / 1.5e9);
        QCOMPARE(price(c, relu, 0), 1e-5 + (rc.bytesRead + rc.bytesWritten) / 4e9);
        QVERIFY(price(c, pair, 0) > 2 * price(c, relu, 0));
    }

    // A node's in-step cost ("node_in_step") is paid by every node the worker runs: a fused chain
    // once (at its carrier), an If's body node by node, a folded node never.
    void the_in_step_cost_is_paid_once_per_node_the_worker_runs()
    {
        ClusterSpec c = calibrated();
        c.opFamilies["normalization"] = {0, 5e9, 1e-5};
        c.opFamilies["layer_norm"] = {0, 4e9, 2e-5};
        const Graph g = exportedGpt();
        const PricedChains chains = pricedChains(g);
        const NodeChain* ln = firstChain(chains, NodeChain::Kind::LayerNorm);
        QVERIFY(ln);
        std::vector<double> before;
        for (const Node& n : g.nodes) before.push_back(nodeFamilySeconds(c, g, n, nodeCost(g, n), 1.0, &chains).value_or(-1));
        c.opFamilies["node_in_step"] = {0, 0, 7e-6};
        for (size_t i = 0; i < g.nodes.size(); ++i) {
            const NodeId id = NodeId(i);
            const double after = nodeFamilySeconds(c, g, g.node(id), nodeCost(g, g.node(id)), 1.0, &chains).value_or(-1);
            const int chain = chains.chainOf[i];
            const bool carrier = chain < 0 || (chains.chains[size_t(chain)].kind == NodeChain::Kind::MatMulBias
                                                   ? chains.chains[size_t(chain)].nodes.front() == id
                                                   : chains.chains[size_t(chain)].nodes.back() == id);
            if (before[i] < 0) continue; // no family for it
            if (!carrier || before[i] == 0) QCOMPARE(after, before[i]); // run by its chain's carrier, or folded away
            else QCOMPARE(after, before[i] + 7e-6);
        }
        // The nine nodes of a LayerNorm: one node's in-step cost.
        double lnBefore = 0, lnAfter = 0;
        for (NodeId m : ln->nodes) {
            lnBefore += before[size_t(m)];
            lnAfter += nodeFamilySeconds(c, g, g.node(m), nodeCost(g, g.node(m)), 1.0, &chains).value_or(0);
        }
        QCOMPARE(lnAfter, lnBefore + 7e-6);
    }

    // Matmul's rate by product size: a small GEMM pays the small size's rate, a batched MatMul
    // (both operands batched: one product per batch entry) the rate of one product's size, and
    // a [batch, seq, k] x [k, n] MatMul is one GEMM of all its FLOPs.
    void matmuls_are_priced_at_the_rate_of_their_product_size()
    {
        ClusterSpec c = calibrated();
        c.opFamilies["matmul"].bySize = {{1e5, 1e9}, {1e7, 5e9}, {1e9, 2e10}};
        auto matmulGraph = [](std::vector<int64_t> a, std::vector<int64_t> b, std::vector<int64_t> y, TensorKind bKind) {
            Graph g;
            const TensorId ta = testing::addFloatTensor(g, "a", a, TensorKind::Input);
            const TensorId tb = testing::addFloatTensor(g, "b", b, bKind);
            const TensorId ty = testing::addFloatTensor(g, "y", y, TensorKind::Activation);
            g.inputs = {ta};
            g.outputs = {ty};
            Node n;
            n.name = "mm";
            n.opType = "MatMul";
            n.inputs = {ta, tb};
            n.outputs = {ty};
            g.addNode(n);
            return g;
        };
        // One GEMM of 2·64·64·64 = 524,288 FLOPs: between 1e5 and 1e7.
        const Graph small = matmulGraph({64, 64}, {64, 64}, {64, 64}, TensorKind::Weight);
        const double f = nodeCost(small, small.node(0)).flops;
        QCOMPARE(f, 2.0 * 64 * 64 * 64);
        const double rate = c.opFamilies.at("matmul").flopRateAt(f);
        QVERIFY(rate > 1e9 && rate < 5e9);
        QCOMPARE(matmulUnitFlops(small, small.node(0), f, 1.0), f);
        QCOMPARE(price(c, small, 0), 4e-5 + f / rate);
        // 16 products of that size, batched: each at the small rate, 16 times the FLOPs.
        const Graph batched = matmulGraph({16, 64, 64}, {16, 64, 64}, {16, 64, 64}, TensorKind::Activation);
        const double fb = nodeCost(batched, batched.node(0)).flops;
        QCOMPARE(fb, 16 * f);
        QCOMPARE(matmulUnitFlops(batched, batched.node(0), fb, 1.0), f);
        QCOMPARE(price(c, batched, 0), 4e-5 + fb / rate);
        // Split in two (tp over the batch entries): 8 products of the same size.
        QCOMPARE(matmulUnitFlops(batched, batched.node(0), fb, 0.5), f);
        // [16, 64, 64] x [64, 64]: torch folds it into one GEMM of 1024 rows.
        const Graph folded = matmulGraph({16, 64, 64}, {64, 64}, {16, 64, 64}, TensorKind::Weight);
        QCOMPARE(matmulUnitFlops(folded, folded.node(0), fb, 1.0), fb);
        QCOMPARE(price(c, folded, 0), 4e-5 + fb / c.opFamilies.at("matmul").flopRateAt(fb));
        QVERIFY(price(c, folded, 0) < price(c, batched, 0));
    }

    // torch::gelu has a rate of its own when the cluster carries one (erf's polynomial runs well
    // below an add's pass over memory); without it the element-wise rate prices the fused GELU.
    void a_gelu_chain_is_priced_at_the_gelu_rate_when_calibrated()
    {
        ClusterSpec c = calibrated();
        const Graph g = exportedGpt();
        const PricedChains chains = pricedChains(g);
        const NodeChain* gelu = firstChain(chains, NodeChain::Kind::Gelu);
        QVERIFY(gelu);
        const NodeId last = gelu->nodes.back();
        const double bytes = tensorBytes(g, gelu->inputs.front().tensor) + tensorBytes(g, gelu->output);
        QCOMPARE(price(c, g, last, &chains), 3e-5 + bytes / 3e9);
        c.opFamilies["gelu"] = {0, 1e9, 1e-5};
        QCOMPARE(price(c, g, last, &chains), 1e-5 + bytes / 1e9);
    }

    // MatMul + bias runs as one addmm: the MatMul's FLOPs at the matmul rate, carried by the
    // MatMul, the Add free.
    void a_matmul_with_its_bias_is_priced_as_one_addmm()
    {
        const ClusterSpec c = calibrated();
        const Graph g = exportedGpt();
        const PricedChains chains = pricedChains(g);
        const NodeChain* addmm = firstChain(chains, NodeChain::Kind::MatMulBias);
        QVERIFY(addmm);
        QCOMPARE(addmm->nodes.size(), size_t(2));
        const NodeId mm = addmm->nodes.front(), add = addmm->nodes.back();
        QCOMPARE(price(c, g, add, &chains), 0.0);
        const OpCost oc = nodeCost(g, g.node(mm));
        QCOMPARE(price(c, g, mm, &chains), 4e-5 + oc.flops / 2e10);
        QVERIFY(price(c, g, mm, &chains) < price(c, g, mm) + price(c, g, add));
    }

    // A row-parallel MatMul leaves its output partial: the worker reduces it before the bias Add
    // and fuses nothing (runtime/exec/node_fusion), so the MatMul carries both nodes unfused and
    // the Add, which cannot see the MatMul's layout, stays free. The cost model passes the
    // layout from the node's strategy.
    void a_partial_matmul_and_its_bias_are_priced_apart()
    {
        const ClusterSpec c = calibrated();
        const Graph g = exportedGpt();
        const PricedChains chains = pricedChains(g);
        const NodeChain* addmm = firstChain(chains, NodeChain::Kind::MatMulBias);
        QVERIFY(addmm);
        const NodeId mm = addmm->nodes.front(), add = addmm->nodes.back();
        const Node& m = g.node(mm);
        const double apart = nodeFamilySeconds(c, g, m, nodeCost(g, m), 0.5, &chains, true).value_or(-1);
        const double fused = nodeFamilySeconds(c, g, m, nodeCost(g, m), 0.5, &chains, false).value_or(-1);
        const double alone = nodeFamilySeconds(c, g, m, nodeCost(g, m), 0.5).value_or(-1);
        const double bias = nodeFamilySeconds(c, g, g.node(add), nodeCost(g, g.node(add)), 0.5).value_or(-1);
        QVERIFY(alone > 0 && bias > 0);
        QCOMPARE(apart, alone + bias);
        QVERIFY(apart > fused);
        QCOMPARE(nodeFamilySeconds(c, g, g.node(add), nodeCost(g, g.node(add)), 0.5, &chains, false).value_or(-1), 0.0);

        // Through the cost model: the MatMul's strategy with a partial output prices it apart.
        const CostModel model(g, c, DeviceMesh{1, 2});
        OpStrategy whole, partial;
        whole.computeFraction = partial.computeFraction = 0.5;
        whole.outputs = {TensorLayout::split(1)};
        partial.outputs = {TensorLayout::partial()};
        QCOMPARE(model.nodeCost(mm, partial).compute, apart);
        QCOMPARE(model.nodeCost(mm, whole).compute, fused);
    }

    // Attention's products as exporters write them read Transpose outputs (strided views of
    // Q, K^T, V), which torch copies before its bmm and runs its backward's products on: a
    // calibrated "matmul_strided" rate prices them, by the size of one product; a contiguous
    // batched MatMul and a file without that family keep "matmul".
    void strided_batched_matmuls_are_priced_by_their_own_family()
    {
        ClusterSpec c = calibrated();
        const Graph g = exportedGpt();
        NodeId strided = kNoNode;
        for (NodeId n = 0; n < NodeId(g.nodes.size()) && strided == kNoNode; ++n)
            if (stridedBatchedMatMul(g, g.node(n))) strided = n;
        QVERIFY(strided != kNoNode); // the GPT's Q K^T reads Transposes
        QCOMPARE(pricingFamily(c, g, g.node(strided)), std::string("matmul"));
        const double plain = price(c, g, strided);

        c.opFamilies["matmul_strided"] = {5e8, 0, 6e-5};
        c.opFamilies["matmul_strided"].bySize = {{1e3, 1e8}, {1e6, 1e9}};
        QCOMPARE(pricingFamily(c, g, g.node(strided)), std::string("matmul_strided"));
        const Node& n = g.node(strided);
        const OpCost oc = nodeCost(g, n);
        const double unit = matmulUnitFlops(g, n, oc.flops, 1.0);
        QVERIFY(unit < oc.flops); // one product of the batch x heads
        QCOMPARE(price(c, g, strided), 6e-5 + oc.flops / c.opFamilies["matmul_strided"].flopRateAt(unit));
        QVERIFY(price(c, g, strided) > plain);

        // The same product on contiguous operands (no Transpose writes them) stays "matmul".
        Graph flat;
        const TensorId a = testing::addFloatTensor(flat, "a", {8, 16, 32}, TensorKind::Input);
        const TensorId b = testing::addFloatTensor(flat, "b", {8, 32, 16}, TensorKind::Input);
        const TensorId y = testing::addFloatTensor(flat, "y", {8, 16, 16}, TensorKind::Activation);
        flat.inputs = {a, b};
        flat.outputs = {y};
        Node mm;
        mm.name = "bmm";
        mm.opType = "MatMul";
        mm.inputs = {a, b};
        mm.outputs = {y};
        flat.addNode(mm);
        QVERIFY(!stridedBatchedMatMul(flat, flat.node(0)));
        QCOMPARE(pricingFamily(c, flat, flat.node(0)), std::string("matmul"));
    }

    // A plan that splits LayerNorm's normalised axis keeps the worker from fusing it: the
    // structure alone is not enough (the runtime's layouts answer through ChainLayouts).
    void a_layer_norm_whose_axis_is_split_is_no_chain()
    {
        const Graph g = exportedGpt();
        int plain = 0, split = 0;
        for (const NodeChain& ch : findNodeChains(g, {})) plain += ch.kind == NodeChain::Kind::LayerNorm;
        for (const NodeChain& ch : findNodeChains(g, {}, SplitsLastAxis())) split += ch.kind == NodeChain::Kind::LayerNorm;
        QCOMPARE(plain, 5);
        QCOMPARE(split, 0);
    }

    // The cost model prices with the chains: a whole step of the exported GPT on a calibrated
    // cluster costs less than its nodes priced one by one.
    void the_cost_model_prices_the_chains_fused()
    {
        ClusterSpec c = calibrated();
        c.opFamilies["normalization"] = {0, 2e9, 2.5e-5};
        c.opFamilies["reduce"] = {0, 2e9, 5e-5};
        c.opFamilies["indexing"] = {0, 4e9, 3e-5};
        const Graph g = exportedGpt();
        const CostModel model(g, c, DeviceMesh{1, 1});
        const PricedChains chains = pricedChains(g);
        double withModel = 0, unfused = 0, fused = 0;
        int priced = 0;
        for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n) {
            if (price(c, g, n) < 0) continue; // a family this cluster lacks: peak x efficiency, alike both ways
            ++priced;
            OpStrategy s;
            s.computeFraction = 1;
            withModel += model.nodeCost(n, s).compute;
            unfused += price(c, g, n);
            fused += price(c, g, n, &chains);
        }
        QVERIFY(priced > int(g.nodes.size()) * 3 / 4);
        QVERIFY(fused < 0.8 * unfused);
        QVERIFY(std::abs(withModel - fused) <= 1e-9 + 1e-6 * fused);
    }
};

QTEST_GUILESS_MAIN(TstFamilyTime)
#include "tst_family_time.moc"
