// The cost model against hand-computed numbers: compute, ring collectives on the right link,
// the dp gradient all-reduce, Adam's 16 bytes per parameter, activations kept for backward.
#include "core/cost/cost_model.h"
#include "core/cost/family_time.h"
#include "core/onnx/onnx_importer.h"
#include "core/ops/op_registry.h"
#include "core/zoo/zoo.h"
#include "tests/common/float_tensor.h"
#include "tests/core/op_test_graph.h"
#include "onnx_test_models.h"

#include <QtTest>

#include <cmath>
#include <set>

using namespace tapas;

namespace {

// 1 node x 4 devices; fp16 peak 1e12 at efficiency 0.5; links 1e9 B/s (intra), 1e8 (inter).
ClusterSpec testCluster(int nodes = 1)
{
    ClusterSpec c;
    c.name = "test";
    c.nodes = nodes;
    c.devicesPerNode = 4;
    c.peakFp32 = c.peakFp16 = c.peakBf16 = 1e12;
    c.efficiency = 0.5;
    c.memoryBytes = 1e9;
    c.intraNode = {1e9, 1e-6};
    c.interNode = {1e8, 1e-5};
    return c;
}

// input [8,64] -> Relu -> x -> MatMul(x, W[64,128]) -> y [8,128]
Graph tinyMlp()
{
    Graph g;
    auto tensor = [&](const char* name, std::initializer_list<int64_t> dims, TensorKind kind) {
        return tapas::testing::addFloatTensor(g, name, dims, kind);
    };
    const TensorId in = tensor("in", {8, 64}, TensorKind::Input);
    const TensorId x = tensor("x", {8, 64}, TensorKind::Activation);
    const TensorId w = tensor("W", {64, 128}, TensorKind::Weight);
    const TensorId y = tensor("y", {8, 128}, TensorKind::Activation);
    g.inputs = {in};
    g.outputs = {y};
    tapas::testing::addNode(g, "relu", "Relu", {in}, {x});
    tapas::testing::addNode(g, "mm", "MatMul", {x, w}, {y});
    // Built by hand, so the batch axis is declared as the importer's probe would find it.
    g.batch.probed = true;
    g.batch.inputs = {{in, 0}};
    g.batch.size = 8;
    return g;
}

// What Silero's LSTM branch does to its weights, in the open: W[64,128] sliced in two (A =
// columns 0-31, B = 32-127), concatenated back as C = [B, A], h = in x C, y = Relu(h) + h.
Graph slicedWeightGraph()
{
    Graph g;
    auto tensor = [&](const char* name, std::initializer_list<int64_t> dims, TensorKind kind) {
        return tapas::testing::addFloatTensor(g, name, dims, kind);
    };
    const TensorId in = tensor("in", {8, 64}, TensorKind::Input);
    const TensorId w = tensor("W", {64, 128}, TensorKind::Weight);
    const TensorId a = tensor("A", {64, 32}, TensorKind::Activation);
    const TensorId b = tensor("B", {64, 96}, TensorKind::Activation);
    const TensorId c = tensor("C", {64, 128}, TensorKind::Activation);
    const TensorId h = tensor("h", {8, 128}, TensorKind::Activation);
    const TensorId r = tensor("r", {8, 128}, TensorKind::Activation);
    const TensorId y = tensor("y", {8, 128}, TensorKind::Activation);
    auto ints = [&](const char* name, int64_t v) { return tapas::testing::addKnownInts(g, name, {v}); };
    const TensorId zero = ints("zero", 0), split = ints("split", 32), end = ints("end", 128), axis = ints("axis", 1);
    g.inputs = {in};
    g.outputs = {y};
    tapas::testing::addNode(g, "slice_a", "Slice", {w, zero, split, axis}, {a});
    tapas::testing::addNode(g, "slice_b", "Slice", {w, split, end, axis}, {b});
    const NodeId concat = tapas::testing::addNode(g, "concat", "Concat", {b, a}, {c});
    g.nodes[size_t(concat)].attrs.push_back(tapas::testing::intAttr("axis", 1));
    tapas::testing::addNode(g, "mm", "MatMul", {in, c}, {h});
    tapas::testing::addNode(g, "relu", "Relu", {h}, {r});
    tapas::testing::addNode(g, "add", "Add", {r, h}, {y});
    g.batch.probed = true;
    g.batch.inputs = {{in, 0}};
    g.batch.size = 8;
    return g;
}

// Every node's first strategy, on one device.
ShardingPlan firstStrategies(const Graph& g)
{
    std::vector<OpStrategy> strategies;
    for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n) strategies.push_back(nodeStrategies(g, n, 1).front());
    return buildPlan(g, DeviceMesh{1, 1}, std::move(strategies));
}

const OpStrategy& strategy(const std::vector<OpStrategy>& all, const std::string& name)
{
    for (const OpStrategy& s : all)
        if (s.name == name) return s;
    qFatal("no strategy %s", name.c_str());
}

} // namespace

class TstCostModel : public QObject {
    Q_OBJECT
private slots:
    void tiny_graph_parameters_are_counted()
    {
        Graph g = tinyMlp();
        // W [64,128] is the only parameter; the input and the activations are not.
        QVERIFY(g.tensor(2).isParameter());
        for (TensorId t : {0, 1, 3}) QVERIFY2(!g.tensor(t).isParameter(), g.tensor(t).name.c_str());
        QCOMPARE(qlonglong(g.parameterCount()), 64LL * 128);
        QCOMPARE(qlonglong(g.parameterBytes()), 64LL * 128 * 4);
        QCOMPARE(tapas::nodeCost(g, g.node(1)).flops, 2.0 * 8 * 64 * 128);
        // Replicated on one device, the model state is 16 bytes per parameter (Adam).
        {
            CostModel m(g, testCluster(), {1, 1});
            std::vector<OpStrategy> rep;
            for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n) rep.push_back(nodeStrategies(g, n, 1).front());
            QCOMPARE(evaluatePlan(buildPlan(g, {1, 1}, rep), m).total.weightMemory, 64.0 * 128 * 16);
        }
        // Integer initializers (shape arguments) are stored but are not parameters; a float
        // Constant output is one.
        Tensor shape;
        shape.name = "shape";
        shape.dtype = DType::Int64;
        shape.shape = Shape::of({2});
        shape.kind = TensorKind::Weight;
        const TensorId shapeId = g.addTensor(shape);
        Tensor scale;
        scale.name = "scale";
        scale.dtype = DType::Float32;
        scale.shape = Shape::of({128});
        scale.kind = TensorKind::Constant;
        const TensorId scaleId = g.addTensor(scale);
        QCOMPARE(qlonglong(g.tensor(shapeId).storedElements()), 2LL);
        QVERIFY(!g.tensor(shapeId).isParameter());
        QVERIFY(g.tensor(scaleId).isParameter());
        QCOMPARE(qlonglong(g.parameterCount()), 64LL * 128 + 128);
        QCOMPARE(qlonglong(g.parameterBytes()), (64LL * 128 + 128) * 4);
    }

    void column_split_matmul_costs_match_hand_computation()
    {
        const Graph g = tinyMlp();
        const ClusterSpec c = testCluster();
        CostModel m(g, c, {2, 2});
        const std::vector<OpStrategy> all = nodeStrategies(g, 1, 2);
        const CostTerms t = m.nodeCost(1, strategy(all, "column"));
        const double flops = 2.0 * 8 * 64 * 128;
        // FLOPs / dp / tp / (peak * efficiency) x (1 forward + 2 backward)
        QCOMPARE(t.compute, flops / 2 / 2 / 5e11 * 3);
        // W split over tp: 8192 / 2 params x 16 bytes (fp16 weight+grad, fp32 master, m, v)
        QCOMPARE(t.weightMemory, 4096.0 * 16);
        // dp gradient all-reduce of 4096 fp16 grads over 2 devices inside the node: the node
        // carries the bandwidth, 2(n-1)/n x 8192 bytes / 1e9; latency is paid per DDP bucket of the plan
        const double dpAr = 8192.0 / 1e9;
        QCOMPARE(t.dpComm, dpAr);
        QCOMPARE(t.dpGradBytes, 8192.0);
        // x is used whole by split compute: its gradient is partial -> all-reduce over tp of
        // x's local bytes (8/2 rows x 64 x 2 bytes = 512)
        const double tpAr = 2 * 1e-6 + 512.0 / 1e9;
        QCOMPARE(t.tpComm, tpAr);
        QCOMPARE(t.commBytes, 8192.0 + 512.0);
        // y kept for backward: 8/2 x 128 x 2 bytes, split over tp
        QCOMPARE(t.activationMemory, 4.0 * 128 * 2 / 2);
    }

    // Without a stated dtype a cost model prices in the devices' own: a CPU cluster's worker
    // trains in fp32, so its activations and messages are 4 bytes an element, a GPU's fp16 2.
    void the_dtype_follows_the_devices_unless_stated()
    {
        const Graph g = tinyMlp();
        ClusterSpec gpu = testCluster();
        ClusterSpec cpu = testCluster();
        cpu.gpu = false;
        const std::vector<OpStrategy> all = nodeStrategies(g, 1, 2);
        const OpStrategy& column = strategy(all, "column");
        CostModel onGpu(g, gpu, {2, 2});
        CostModel onCpu(g, cpu, {2, 2});
        QCOMPARE(onGpu.options().dtype, std::string("fp16"));
        QCOMPARE(onCpu.options().dtype, std::string("fp32"));
        // y kept for backward: 8/2 x 128 elements split over tp, 2 or 4 bytes each.
        QCOMPARE(onGpu.nodeCost(1, column).activationMemory, 4.0 * 128 * 2 / 2);
        QCOMPARE(onCpu.nodeCost(1, column).activationMemory, 4.0 * 128 * 4 / 2);
        // x's partial gradient all-reduced over tp: 8/2 x 64 elements.
        QCOMPARE(onCpu.nodeCost(1, column).tpComm, 2 * 1e-6 + 4.0 * 64 * 4 / 1e9);
        // A stated dtype wins over the devices'.
        CostOptions fp16;
        fp16.dtype = "fp16";
        CostModel stated(g, cpu, {2, 2}, fp16);
        QCOMPARE(stated.options().dtype, std::string("fp16"));
        QCOMPARE(stated.nodeCost(1, column).activationMemory, 4.0 * 128 * 2 / 2);
    }

    // A calibrated cluster prices each node by its op family: overhead + max(FLOPs / FLOP rate,
    // bytes / byte rate) for forward and backward together, and each weight's Adam update by
    // its fp32 bytes on this device; a family the cluster did not measure keeps peak x efficiency.
    void measured_op_families_price_nodes_and_the_weight_update()
    {
        const Graph g = tinyMlp();
        ClusterSpec c = testCluster();
        c.opFamilies["matmul"] = {4e10, 0, 3e-5};
        c.opFamilies["optimizer"] = {0, 2e9, 1e-5};
        CostModel m(g, c, {2, 2});
        const CostTerms mm = m.nodeCost(1, strategy(nodeStrategies(g, 1, 2), "column"));
        const double flops = 2.0 * 8 * 64 * 128;
        // The node's share: flops / dp / tp; W split over tp: 4096 fp32 weights updated here.
        QCOMPARE(mm.compute, 3e-5 + flops / 2 / 2 / 4e10 + (1e-5 + 4096.0 * 4 / 2e9));
        // Relu (elementwise) was not measured: FLOPs at peak x efficiency, forward and backward.
        const CostTerms relu = m.nodeCost(0, nodeStrategies(g, 0, 2).front());
        QCOMPARE(relu.compute, tapas::nodeCost(g, g.node(0)).flops / 2 / 5e11 * 3);
        // Measured, it is bound by its bytes (in and out, fp32, this replica's half of the batch).
        c.opFamilies["elementwise"] = {0, 1e9, 2e-5};
        CostModel m2(g, c, {2, 2});
        const OpCost rc = tapas::nodeCost(g, g.node(0));
        QCOMPARE(m2.nodeCost(0, nodeStrategies(g, 0, 2).front()).compute, 2e-5 + (rc.bytesRead + rc.bytesWritten) / 2 / 1e9);
        QCOMPARE(rc.bytesRead + rc.bytesWritten, 2.0 * 8 * 64 * 4);
    }

    // What the calibration measured a node and a trained weight costing inside a step beyond
    // their families' prices ("node_in_step", "weight_in_step"): paid once per node the worker
    // runs and once per trained weight (its gradient added into the held one), nothing without
    // those entries.
    void in_step_costs_are_paid_per_node_and_per_trained_weight()
    {
        const Graph g = tinyMlp();
        ClusterSpec c = testCluster();
        c.opFamilies["matmul"] = {4e10, 0, 3e-5};
        c.opFamilies["elementwise"] = {0, 1e9, 2e-5};
        c.opFamilies["optimizer"] = {0, 2e9, 1e-5};
        const OpStrategy column = strategy(nodeStrategies(g, 1, 2), "column");
        const OpStrategy relu = nodeStrategies(g, 0, 2).front();
        const CostModel before(g, c, {2, 2});
        c.opFamilies["node_in_step"] = {0, 0, 4e-6};
        c.opFamilies["weight_in_step"] = {0, 0, 3e-6};
        const CostModel after(g, c, {2, 2});
        // Relu reads no weight: one node's in-step cost. The MatMul: its node's and its weight's.
        QCOMPARE(after.nodeCost(0, relu).compute, before.nodeCost(0, relu).compute + 4e-6);
        QCOMPARE(after.nodeCost(1, column).compute, before.nodeCost(1, column).compute + 4e-6 + 3e-6);
        // The step sums them over the nodes: every node once, every trained weight once.
        QCOMPARE(inStepSeconds(c, "node_in_step"), 4e-6);
        QCOMPARE(inStepSeconds(testCluster(), "node_in_step"), 0.0);
    }

    // A calibrated CPU cluster's "collective" overhead (an all-reduce between torch ops, the
    // peer's lateness included) is paid once per collective, on top of the alpha-beta time.
    void a_calibrated_collective_overhead_is_paid_per_collective()
    {
        const Graph g = tinyMlp();
        ClusterSpec c = testCluster();
        c.opFamilies["collective"] = {0, 0, 3e-5};
        CostModel m(g, c, {1, 4});
        const CostTerms t = m.reshardCost(3, TensorLayout::partial(), TensorLayout::replicated());
        QCOMPARE(t.tpComm, 3e-5 + 6 * 1e-6 + 1.5 * 2048 / 1e9);
        // Sliced forward (no collective: nothing to pay), gathered backward (one).
        const CostTerms s = m.reshardCost(3, TensorLayout::replicated(), TensorLayout::split(1));
        QCOMPARE(s.tpComm, 3e-5 + 3 * 1e-6 + 0.75 * 2048 / 1e9);
    }

    void row_split_output_is_all_reduced_forward_only()
    {
        const Graph g = tinyMlp();
        CostModel m(g, testCluster(), {1, 4});
        // y partial -> replicated: all-reduce of 8 x 128 x 2 bytes over 4 devices
        const CostTerms t = m.reshardCost(3, TensorLayout::partial(), TensorLayout::replicated());
        QCOMPARE(t.tpComm, 6 * 1e-6 + 1.5 * 2048 / 1e9);
        QCOMPARE(t.commBytes, 1.5 * 2048);
        // A replicated tensor sliced forward is gathered backward.
        const CostTerms s = m.reshardCost(3, TensorLayout::replicated(), TensorLayout::split(1));
        QCOMPARE(s.tpComm, 3 * 1e-6 + 0.75 * 2048 / 1e9);
    }

    void collectives_pick_the_link_of_their_mesh_axis()
    {
        const Graph g = tinyMlp();
        const ClusterSpec c = testCluster(/*nodes*/ 2);
        CostModel m(g, c, {2, 4}); // tp inside a node, dp across the two nodes
        QCOMPARE(m.collectiveTime(CollectiveKind::AllGather, 1000, MeshAxis::Tp), 3 * 1e-6 + 750.0 / 1e9);
        QCOMPARE(m.collectiveTime(CollectiveKind::AllReduce, 1000, MeshAxis::Dp), 2 * 1e-5 + 1000.0 / 1e8);
        QCOMPARE(m.collectiveTime(CollectiveKind::AllReduce, 1000, MeshAxis::Tp), 6 * 1e-6 + 1500.0 / 1e9);
    }

    void plan_report_sums_nodes_and_collectives()
    {
        const Graph g = tinyMlp();
        CostModel m(g, testCluster(), {1, 4});
        std::vector<OpStrategy> s = {nodeStrategies(g, 0, 4).front(), strategy(nodeStrategies(g, 1, 4), "row")};
        s[0] = strategy(nodeStrategies(g, 0, 4), "S(1)"); // relu split on features feeds the row split
        const ShardingPlan plan = buildPlan(g, {1, 4}, s);
        QVERIFY(checkPlan(g, plan).ok());
        // The input is sliced (free: graph inputs need no gradient), the partial output all-reduced.
        QCOMPARE(plan.reshards.size(), size_t(2));
        QCOMPARE(plan.reshards[0].forward, CollectiveKind::Slice);
        QCOMPARE(plan.reshards[1].forward, CollectiveKind::AllReduce);
        const CostReport r = evaluatePlan(plan, m);
        QCOMPARE(m.reshardCost(0, TensorLayout::replicated(), TensorLayout::split(1)).time(), 0.0);
        QCOMPARE(r.total.time(), r.perNode[0].time() + r.perNode[1].time() +
                                     m.reshardCost(3, TensorLayout::partial(), TensorLayout::replicated()).time());
        QCOMPARE(r.total.weightMemory, 8192.0 / 4 * 16);
        QVERIFY(r.fits);
    }

    // Memory per device by hand on in[8,64] -> Relu -> x -> MatMul(x, W[64,128]) -> y (fp16):
    // weights are whole on every dp replica and split by tp; a kept activation counts its
    // replica's batch, 1/tp of it when split over tp, all of it when replicated or partial. The
    // step's activation memory is the kept values (the nodes' own) plus what is alive beside
    // them at the fullest moment: here, in the MatMul's backward, the input batch, the loss's
    // gradient of y and W's fresh gradient before it is added into the held one (x takes no
    // gradient: nothing before it is trained).
    void memory_per_device_dp_versus_tp_by_hand()
    {
        const Graph g = tinyMlp();
        const ClusterSpec c = testCluster();
        const double weight = 64.0 * 128 * 16; // Adam in mixed precision: 16 bytes per parameter
        auto kept = [](const CostReport& r) {
            double sum = 0;
            for (const CostTerms& t : r.perNode) sum += t.activationMemory;
            return sum;
        };
        {
            const DeviceMesh dp{4, 1};
            const CostModel m(g, c, dp);
            const ShardingPlan plan = buildPlan(g, dp, {nodeStrategies(g, 0, 1).front(), nodeStrategies(g, 1, 1).front()});
            const CostReport r = evaluatePlan(plan, m);
            QCOMPARE(r.total.weightMemory, weight);
            // 2 samples per replica: x 2x64, y 2x128, 2 bytes each
            QCOMPARE(kept(r), 2.0 * 64 * 2 + 2.0 * 128 * 2);
            QCOMPARE(r.total.activationMemory, kept(r) + 2.0 * 64 * 2 + 2.0 * 128 * 2 + 64.0 * 128 * 2);
        }
        {
            const DeviceMesh tp{1, 4};
            const CostModel m(g, c, tp);
            // Column-parallel: x replicated (whole), W split by columns, y split by columns.
            const ShardingPlan column = buildPlan(g, tp, {strategy(nodeStrategies(g, 0, 4), "replicate"),
                                                          strategy(nodeStrategies(g, 1, 4), "column")});
            QVERIFY(checkPlan(g, column).ok());
            const CostReport rc = evaluatePlan(column, m);
            QCOMPARE(rc.total.weightMemory, weight / 4);
            QCOMPARE(kept(rc), 8.0 * 64 * 2 + 8.0 * 128 * 2 / 4);
            QCOMPARE(rc.total.activationMemory, kept(rc) + 8.0 * 64 * 2 + 8.0 * 128 * 2 / 4 + 64.0 * 128 * 2 / 4);
            // Row-parallel: x split by features (1/4), y partial (whole on every device).
            const ShardingPlan row = buildPlan(g, tp, {strategy(nodeStrategies(g, 0, 4), "S(1)"),
                                                       strategy(nodeStrategies(g, 1, 4), "row")});
            QVERIFY(checkPlan(g, row).ok());
            const CostReport rr = evaluatePlan(row, m);
            QCOMPARE(rr.total.weightMemory, weight / 4);
            QCOMPARE(kept(rr), 8.0 * 64 * 2 / 4 + 8.0 * 128 * 2);
            QCOMPARE(rr.total.activationMemory, kept(rr) + 8.0 * 64 * 2 + 8.0 * 128 * 2 + 64.0 * 128 * 2 / 4);
        }
        {
            // dp 2 x tp 2: 4 samples per replica, column split two ways.
            const DeviceMesh mixed{2, 2};
            const CostModel m(g, c, mixed);
            const ShardingPlan column = buildPlan(g, mixed, {strategy(nodeStrategies(g, 0, 2), "replicate"),
                                                             strategy(nodeStrategies(g, 1, 2), "column")});
            const CostReport r = evaluatePlan(column, m);
            QCOMPARE(r.total.weightMemory, weight / 2);
            QCOMPARE(kept(r), 4.0 * 64 * 2 + 4.0 * 128 * 2 / 2);
            QCOMPARE(r.total.activationMemory, kept(r) + 4.0 * 64 * 2 + 4.0 * 128 * 2 / 2 + 64.0 * 128 * 2 / 2);
        }
    }

    // in[8,64] -> MatMul(W1[64,128]) -> h -> Relu -> r -> MatMul(W2[128,32]) -> y, fp16, one
    // device. Kept: r (Relu's output, MatMul2's operand) and y (the loss reads it); h goes after
    // Relu reads it. Forward at Relu: in + h + r = 5,120 B. Backward of MatMul2: in + r + y, dy,
    // the new dr and W2's fresh gradient = 1024 + 2048 + 512 + 512 + 2048 + 8192; of Relu: dr
    // and the new dh beside in + r + y (dy gone) = 7,680 B; of MatMul1: in + y + dh (r and dr
    // gone) and W1's fresh gradient = 1024 + 512 + 2048 + 16384 = 19,968 B, the step's peak.
    void a_step_holds_gradients_beside_what_it_keeps()
    {
        Graph g;
        auto tensor = [&](const char* name, std::initializer_list<int64_t> dims, TensorKind kind) {
            return tapas::testing::addFloatTensor(g, name, dims, kind);
        };
        const TensorId in = tensor("in", {8, 64}, TensorKind::Input);
        const TensorId w1 = tensor("W1", {64, 128}, TensorKind::Weight);
        const TensorId h = tensor("h", {8, 128}, TensorKind::Activation);
        const TensorId r = tensor("r", {8, 128}, TensorKind::Activation);
        const TensorId w2 = tensor("W2", {128, 32}, TensorKind::Weight);
        const TensorId y = tensor("y", {8, 32}, TensorKind::Activation);
        g.inputs = {in};
        g.outputs = {y};
        tapas::testing::addNode(g, "mm1", "MatMul", {in, w1}, {h});
        tapas::testing::addNode(g, "relu", "Relu", {h}, {r});
        tapas::testing::addNode(g, "mm2", "MatMul", {r, w2}, {y});
        g.batch.probed = true;
        g.batch.inputs = {{in, 0}};
        g.batch.size = 8;
        const DeviceMesh one{1, 1};
        const CostModel m(g, testCluster(), one);
        const ShardingPlan plan = buildPlan(g, one, {nodeStrategies(g, 0, 1).front(), nodeStrategies(g, 1, 1).front(),
                                                     nodeStrategies(g, 2, 1).front()});
        const StepWorkingSet w = m.workingSet(plan);
        QCOMPARE(w.kept, 2048.0 + 512.0);
        QCOMPARE(w.forwardPeak, 1024.0 + 2048.0 + 2048.0);
        QCOMPARE(w.backwardPeak, 1024.0 + 512.0 + 2048.0 + 64.0 * 128 * 2);
        const CostReport rep = evaluatePlan(plan, m);
        QCOMPARE(rep.total.activationMemory, w.backwardPeak);
    }

    // slicedWeightGraph, fp16 on one device. Kept: y and Relu's r (2,048 B each); C is not (in takes no gradient). Forward peak at the
    // MatMul: in + C + h = 19,456 B. Backward, as libtorch 1.13 runs it (measured with the
    // worker's counting allocator): h's second gradient (the Relu's) is added to the Add's out of
    // place, so old, new and sum are alive (in + r + y + dh + 2 dh = 13,312 B); the MatMul makes
    // dC (16,384 B); Concat hands A and B slices of dC; each Slice's backward makes a W-sized
    // gradient, which autograd sums in a buffer before AccumulateGrad: at the second, the buffer,
    // the new one and their sum are alive beside dC: in + y + dC + 3 x 16,384 = 68,608 B. Counted
    // as one gradient per tensor, the peak was 35,840 B.
    void gradients_summed_into_one_are_alive_three_times_for_a_moment()
    {
        const Graph g = slicedWeightGraph();
        const CostModel m(g, testCluster(), DeviceMesh{1, 1});
        const ShardingPlan plan = firstStrategies(g);
        const StepWorkingSet ws = m.workingSet(plan);
        QCOMPARE(ws.kept, 2048.0 + 2048.0);
        QCOMPARE(ws.forwardPeak, 1024.0 + 16384.0 + 2048.0);
        QCOMPARE(ws.backwardPeak, 1024.0 + 2048.0 + 16384.0 + 3 * 16384.0);
        QCOMPARE(evaluatePlan(plan, m).total.activationMemory, ws.backwardPeak);
    }

    // The worker runs an If's branch node by node and autograd records those nodes like any
    // other, so the step holds what they keep and the gradients their backward makes. The graph
    // above with its slicing inside an If's then-branch, the condition known: the same memory,
    // to the byte (before, the If was one node keeping its input and output, and none of its
    // slices' gradients was seen). Not known, the branch with more FLOPs is walked, of two alike
    // the then-branch: the same.
    void an_if_holds_what_its_branch_holds()
    {
        const Graph flat = slicedWeightGraph();
        const CostModel flatModel(flat, testCluster(), DeviceMesh{1, 1});
        const StepWorkingSet expected = flatModel.workingSet(firstStrategies(flat));
        const double expectedTotal = evaluatePlan(firstStrategies(flat), flatModel).total.activationMemory;
        Result<Graph> imported = importOnnxBytes(testmodels::serialize(testmodels::slicedWeightIfModel()), "if.onnx", "");
        QVERIFY2(imported.ok(), imported.ok() ? "" : imported.error().c_str());
        for (const bool known : {true, false}) {
            Graph g = *imported;
            if (known) g.tensor(g.findTensor("cond")).value = ConstValue{DType::Bool, Shape::of({}), {1}, {}};
            const CostModel m(g, testCluster(), DeviceMesh{1, 1});
            const ShardingPlan plan = firstStrategies(g);
            const StepWorkingSet ws = m.workingSet(plan);
            QCOMPARE(ws.kept, expected.kept);
            QCOMPARE(ws.forwardPeak, expected.forwardPeak);
            QCOMPARE(ws.backwardPeak, expected.backwardPeak);
            QCOMPARE(evaluatePlan(plan, m).total.activationMemory, expectedTotal);
        }
    }

    // Stored data that is no float weight and no value the importer knows (GPT-2's causal mask
    // buffers) is made once by the worker and held whole: memory beside the weights, one byte
    // an element of a bool. The zoo GPT's two [1,1,1024,1024] masks were the 2 MiB a rank held
    // beyond its predicted weights, gradients and Adam state in every plan of `tapas bench run`.
    void a_stored_mask_is_held_beside_the_weights()
    {
        Graph g;
        const TensorId in = tapas::testing::addFloatTensor(g, "in", {8, 64}, TensorKind::Input);
        const TensorId mask = tapas::testing::addTensorOf(g, "mask", DType::Bool, {8, 64}, TensorKind::Weight);
        const TensorId y = tapas::testing::addFloatTensor(g, "y", {8, 64}, TensorKind::Activation);
        g.inputs = {in};
        g.outputs = {y};
        tapas::testing::addNode(g, "where", "Where", {mask, in, in}, {y});
        const CostModel model(g, testCluster(), DeviceMesh{1, 1});
        QCOMPARE(evaluatePlan(firstStrategies(g), model).total.weightMemory, 8.0 * 64);
    }

    void data_parallel_degree_must_divide_the_batch()
    {
        const Graph g = tinyMlp(); // batch 8
        QVERIFY(checkBatchSplit(g, {8, 1}).ok());
        QVERIFY(checkBatchSplit(g, {2, 8}).ok());
        const Status bad = checkBatchSplit(g, {16, 1});
        QVERIFY(!bad.ok());
        QVERIFY2(bad.error.find("16x1") != std::string::npos && bad.error.find("batch 8") != std::string::npos &&
                     bad.error.find("axis 0 of input 'in'") != std::string::npos,
                 bad.error.c_str());
    }

    // PyTorch DDP: gradients go in 25 MB buckets, each all-reduced while the backward of the
    // layers before it still runs; BatchNorm's running statistics are buffers, never reduced.
    void data_parallel_gradients_are_priced_as_ddp_buckets_overlapped_with_backward()
    {
        ZooOptions o;
        o.batch = 64;
        Result<Graph> g = zooGraph("resnet50", o);
        QVERIFY2(g.ok(), g.error().c_str());
        const ClusterSpec c = *loadClusterSpec("a100x8");
        const DeviceMesh mesh{8, 1};
        CostModel m(*g, c, mesh);
        std::vector<OpStrategy> rep;
        for (NodeId n = 0; n < NodeId(g->nodes.size()); ++n) rep.push_back(nodeStrategies(*g, n, 1).front());
        const CostReport r = evaluatePlan(buildPlan(*g, mesh, rep), m);
        double trained = 0, buffers = 0;
        int tensors = 0;
        for (const Node& n : g->nodes)
            for (size_t i = 0; i < n.inputs.size(); ++i) {
                if (n.inputs[i] == kNoTensor || !g->tensor(n.inputs[i]).isParameter()) continue;
                const double elems = double(g->tensor(n.inputs[i]).storedElements());
                (isBufferInput(n, i) ? buffers : trained) += elems;
                tensors += !isBufferInput(n, i);
            }
        QVERIFY(buffers > 0);
        QCOMPARE(r.total.dpGradBytes, trained * 2); // fp16 gradients of the trained parameters only
        // Buffers hold 4 bytes each (fp32), not 16 with gradient and Adam state.
        QCOMPARE(r.total.weightMemory, trained * 16 + buffers * 4);
        const double buckets = std::ceil(trained * 2 / kDdpBucketBytes);
        QVERIFY(buckets >= 2 && buckets < tensors);
        const LinkSpec link = c.intraNode;
        const double wire = 2.0 * 7 / 8 * trained * 2;
        const double whole = buckets * 14 * link.latency + wire / link.bandwidth;
        const double lastBytes = trained * 2 - (buckets - 1) * kDdpBucketBytes;
        const double last = 14 * link.latency + 2.0 * 7 / 8 * lastBytes / link.bandwidth;
        const double backward = r.total.compute * 2 / 3;
        QVERIFY(std::abs(r.total.dpComm - std::max(last, whole - backward)) <= 1e-12 + 1e-9 * r.total.dpComm);
        qInfo("resnet50 batch 64, 8x1: %d trained tensors, %.1f MB of fp16 gradients in %.0f buckets; DDP sync %.3f ms exposed "
              "(%.3f ms unoverlapped), per-tensor all-reduces would take %.3f ms",
              tensors, trained * 2 / 1e6, buckets, r.total.dpComm * 1e3, whole * 1e3,
              (tensors * 14 * link.latency + wire / link.bandwidth) * 1e3);
        // The old pricing (a separate, unoverlapped all-reduce per tensor) is far above it.
        QVERIFY(r.total.dpComm < tensors * 14 * link.latency + wire / link.bandwidth);
    }

    void gpt2_small_data_parallel_holds_16_bytes_per_parameter()
    {
        Result<Graph> g = zooGraph("gpt", {});
        QVERIFY2(g.ok(), g.error().c_str());
        const ClusterSpec c = *loadClusterSpec("a100x8");
        CostModel m(*g, c, {8, 1});
        std::vector<OpStrategy> rep;
        for (NodeId n = 0; n < NodeId(g->nodes.size()); ++n) rep.push_back(nodeStrategies(*g, n, 1).front());
        const CostReport r = evaluatePlan(buildPlan(*g, {8, 1}, rep), m);
        // GPT-2 small: 124M parameters. The tied embedding is read twice (by the lookup and the LM
        // head) and held once: 16 bytes for each parameter the nodes read, each counted once,
        // beside each layer's causal mask buffer (1024 x 1024 bools), held whole.
        std::set<TensorId> read;
        int embeddingReads = 0;
        double elems = 0, masks = 0;
        for (const Node& n : g->nodes)
            for (size_t i = 0; i < n.inputs.size(); ++i) {
                const TensorId t = n.inputs[i];
                if (t != kNoTensor && g->tensor(t).dtype == DType::Bool && g->tensor(t).kind == TensorKind::Weight &&
                    !g->tensor(t).value && read.insert(t).second)
                    masks += double(g->tensor(t).shape.numElementsOr(0));
                if (t == kNoTensor || !g->tensor(t).isParameter() || g->tensor(t).value || isBufferInput(n, i)) continue;
                if (g->tensor(t).storedElements() == 50257LL * 768) ++embeddingReads;
                if (read.insert(t).second) elems += double(g->tensor(t).storedElements());
            }
        QCOMPARE(embeddingReads, 2);
        QVERIFY(elems >= 124e6 && elems <= double(g->parameterCount()));
        QCOMPARE(masks, 12 * 1024.0 * 1024);
        QVERIFY2(std::abs(r.total.weightMemory - elems * 16 - masks) <= 1e-9 * elems * 16,
                 qPrintable(QString::number(r.total.weightMemory / (elems * 16 + masks))));
        QCOMPARE(r.total.tpComm, 0.0);
        QVERIFY(r.total.dpComm > 0);
    }
};

QTEST_GUILESS_MAIN(TstCostModel)
#include "tst_cost_model.moc"
