// Sharding rules per op family, the collectives layout changes need, and the plan checker.
#include "core/ops/shape_fill.h"
#include "core/shard/sharding_plan.h"
#include "core/zoo/zoo.h"
#include "tests/common/float_tensor.h"
#include "tests/core/op_test_graph.h"

#include <QtTest>

#include <algorithm>

using namespace tapas;

namespace {

Graph gpt(int64_t hidden = 64, int64_t heads = 4)
{
    ZooOptions o;
    o.layers = 2;
    o.hidden = hidden;
    o.heads = heads;
    o.seq = 16;
    o.batch = 4;
    o.vocab = 128;
    Result<Graph> g = zooGraph("gpt", o);
    if (!g) qFatal("zoo gpt: %s", g.error().c_str());
    return std::move(g).value();
}

NodeId firstNode(const Graph& g, const std::string& op, const std::function<bool(const Node&)>& pred = {})
{
    for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n)
        if (g.node(n).opType == op && (!pred || pred(g.node(n)))) return n;
    return kNoNode;
}

const OpStrategy* named(const std::vector<OpStrategy>& v, const std::string& name)
{
    for (const OpStrategy& s : v)
        if (s.name == name) return &s;
    return nullptr;
}

bool hasWeightInput(const Graph& g, const Node& n)
{
    return std::any_of(n.inputs.begin(), n.inputs.end(), [&](TensorId t) { return t != kNoTensor && g.tensor(t).isParameter(); });
}

// One strategy index per node, choosing by name where given, else replicate.
std::vector<OpStrategy> chooseByName(const Graph& g, int tp, const std::map<NodeId, std::string>& names)
{
    std::vector<OpStrategy> out;
    for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n) {
        std::vector<OpStrategy> all = nodeStrategies(g, n, tp);
        const OpStrategy* s = &all.front();
        if (auto it = names.find(n); it != names.end()) s = named(all, it->second);
        if (!s) qFatal("node %d has no strategy %s", n, names.at(n).c_str());
        out.push_back(*s);
    }
    return out;
}

} // namespace

class TstSharding : public QObject {
    Q_OBJECT
private slots:
    void weight_matmul_offers_column_row_and_batch_splits()
    {
        const Graph g = gpt();
        const NodeId mm = firstNode(g, "MatMul", [&](const Node& n) { return hasWeightInput(g, n); });
        QVERIFY(mm != kNoNode);
        const std::vector<OpStrategy> s = nodeStrategies(g, mm, 4);
        QCOMPARE(s.front().name, std::string("replicate"));
        const OpStrategy* col = named(s, "column");
        const OpStrategy* row = named(s, "row");
        const OpStrategy* batch = named(s, "batch");
        QVERIFY(col && row && batch);
        QCOMPARE(col->inputs[1], TensorLayout::split(1));
        QCOMPARE(col->inputs[0], TensorLayout::replicated());
        QCOMPARE(col->outputs[0], TensorLayout::split(2));
        QCOMPARE(row->inputs[0], TensorLayout::split(2));
        QCOMPARE(row->inputs[1], TensorLayout::split(0));
        QCOMPARE(row->outputs[0], TensorLayout::partial());
        QCOMPARE(batch->outputs[0], TensorLayout::split(0));
        QCOMPARE(named(s, "rows")->outputs[0], TensorLayout::split(1)); // sequence split
        QCOMPARE(col->computeFraction, 0.25);
        // Without tensor parallelism there is nothing to choose.
        QCOMPARE(nodeStrategies(g, mm, 1).size(), size_t(1));
    }

    // A row-parallel Gemm with a bias: the products are partial sums and the bias joins the sum
    // once (partial layout), not once per rank; the checker accepts the plan that uses it.
    void gemm_with_bias_is_row_parallel_with_a_partial_bias()
    {
        ZooOptions o;
        o.batch = 4;
        o.classes = 16;
        Result<Graph> r = zooGraph("resnet50", o);
        QVERIFY2(r.ok(), r.error().c_str());
        const Graph& g = *r;
        const NodeId fc = firstNode(g, "Gemm");
        QVERIFY(fc != kNoNode);
        QVERIFY(g.node(fc).input(2) != kNoTensor);
        const std::vector<OpStrategy> s = nodeStrategies(g, fc, 4);
        const OpStrategy* row = named(s, "row");
        QVERIFY(row);
        QCOMPARE(row->inputs[0], TensorLayout::split(1));
        QCOMPARE(row->inputs[1], TensorLayout::split(1)); // transB: weight [out, in], split in
        QCOMPARE(row->inputs[2], TensorLayout::partial());
        QCOMPARE(row->outputs[0], TensorLayout::partial());
        const ShardingPlan plan = buildPlan(g, {1, 4}, chooseByName(g, 4, {{fc, "row"}}));
        QVERIFY2(checkPlan(g, plan).ok(), checkPlan(g, plan).error.c_str());
    }

    // With data parallelism a dim that scales with the batch is 1/dp of itself on each replica:
    // the split must divide that share, and the checker says why when it does not.
    void splits_of_batch_dims_must_divide_one_replicas_share()
    {
        Graph g = gpt();
        // The zoo marks every batch-scaled dim; this case marks one tensor by hand and expects the
        // checker to name it.
        for (Tensor& t : g.tensors) t.batchScaledDims = 0;
        const NodeId mm = firstNode(g, "MatMul", [&](const Node& n) { return hasWeightInput(g, n); });
        const TensorId x = g.node(mm).inputs[0]; // [batch 4, seq 16, hidden 64]
        QCOMPARE(g.tensor(x).shape.dims[0].value, int64_t(4));
        QVERIFY(splitsEvenly(g, x, 0, 2, 2)); // unmarked: the whole 4 splits 2 ways
        g.tensor(x).batchScaledDims = 1u;
        QVERIFY(splitsEvenly(g, x, 0, 2, 2));  // 4/2 = 2 per replica, 1 per rank
        QVERIFY(!splitsEvenly(g, x, 0, 4, 2)); // 2 per replica does not split 4 ways
        QVERIFY(splitsEvenly(g, x, 0, 4, 1));
        QVERIFY(!splitsEvenly(g, x, 0, 2, 3)); // 4 does not divide over 3 replicas
        QVERIFY(splitsEvenly(g, x, 1, 4, 2));  // seq is not marked
        auto hasBatchSplit = [&](const std::vector<OpStrategy>& all) {
            return std::any_of(all.begin(), all.end(), [](const OpStrategy& s) { return s.inputs[0] == TensorLayout::split(0); });
        };
        QVERIFY(hasBatchSplit(nodeStrategies(g, mm, 4, nullptr, 1)));
        QVERIFY(!hasBatchSplit(nodeStrategies(g, mm, 4, nullptr, 2)));
        // A plan that splits it anyway is refused with the reason.
        std::vector<OpStrategy> chosen = chooseByName(g, 4, {{mm, "batch"}});
        const ShardingPlan plan = buildPlan(g, {2, 4}, chosen);
        const Status st = checkPlan(g, plan);
        QVERIFY(!st.ok());
        QVERIFY2(st.error.find("scales with the batch") != std::string::npos, st.error.c_str());
        QVERIFY2(st.error.find(g.tensor(x).name) != std::string::npos, st.error.c_str());
    }

    void splits_must_divide_the_dimension()
    {
        const Graph g = gpt(/*hidden*/ 60, /*heads*/ 4); // 60 % 8 != 0
        const NodeId mm = firstNode(g, "MatMul", [&](const Node& n) { return hasWeightInput(g, n); });
        const std::vector<OpStrategy> s = nodeStrategies(g, mm, 8);
        QVERIFY(!named(s, "row")); // contraction dim 60 does not split 8 ways
    }

    void layernorm_reduction_and_softmax_refuse_a_split_of_their_axis()
    {
        const Graph g = gpt();
        const NodeId rm = firstNode(g, "ReduceMean");
        QVERIFY(rm != kNoNode);
        for (const OpStrategy& s : nodeStrategies(g, rm, 4)) QVERIFY(s.inputs[0] != TensorLayout::split(2));
        QVERIFY(named(nodeStrategies(g, rm, 4), "S(1)"));
        const NodeId sm = firstNode(g, "Softmax");
        QVERIFY(sm != kNoNode);
        const std::vector<OpStrategy> s = nodeStrategies(g, sm, 4);
        QVERIFY(named(s, "S(1)"));  // heads
        QVERIFY(!named(s, "S(3)")); // the softmax axis
    }

    void reshape_moves_a_hidden_split_onto_heads_when_divisible()
    {
        const Graph g = gpt(64, 4);
        const NodeId r = firstNode(g, "Reshape", [&](const Node& n) {
            return g.tensor(n.inputs[0]).shape.rank() == 3 && g.tensor(n.outputs[0]).shape.rank() == 4;
        });
        QVERIFY(r != kNoNode);
        QVERIFY(named(nodeStrategies(g, r, 4), "S(2)->S(2)"));  // [b,s,64] -> [b,s,4,16]
        QVERIFY(!named(nodeStrategies(g, r, 8), "S(2)->S(2)")); // 4 heads do not split 8 ways
        const NodeId t = firstNode(g, "Transpose", [&](const Node& n) { return n.attrInts("perm") == std::vector<int64_t>{0, 2, 1, 3}; });
        QVERIFY(t != kNoNode);
        QVERIFY(named(nodeStrategies(g, t, 4), "S(2)->S(1)"));
    }

    // torch's nn.MultiheadAttention slices its packed in-projection into q, k and v: one of k
    // equal parts of a split axis is taken locally (Megatron-LM's fused QKV), any other slice of
    // that axis needs it whole. Shape reads metadata, so it takes its input in any layout.
    void packed_part_slices_locally_and_shape_reads_any_layout()
    {
        testing::TestGraph t;
        const TensorId x = t.input("x", {testing::num(8), testing::num(16), testing::num(96)});
        t.op("Slice", {x, t.ints("s0", {0}), t.ints("e0", {32}), t.ints("a0", {2})});
        t.op("Slice", {x, t.ints("s1", {32}), t.ints("e1", {64}), t.ints("a1", {-1})});
        t.op("Slice", {x, t.ints("s2", {0}), t.ints("e2", {40}), t.ints("a2", {2})});
        t.op("Shape", {x});
        (void)fillMissingShapes(t.g);
        const Graph& g = t.g;
        for (NodeId n : {0, 1}) {
            const std::vector<OpStrategy> s = nodeStrategies(g, n, 4);
            const OpStrategy* packed = named(s, "packed S(2)");
            QVERIFY2(packed, g.node(n).name.c_str());
            QCOMPARE(packed->inputs[0], TensorLayout::split(2));
            QCOMPARE(packed->outputs[0], TensorLayout::split(2));
            QVERIFY(!named(nodeStrategies(g, n, 3), "packed S(2)")); // 32 columns do not split 3 ways
        }
        QVERIFY(!named(nodeStrategies(g, 2, 4), "packed S(2)")); // 40 of 96 is no equal part
        const std::vector<OpStrategy> shape = nodeStrategies(g, 3, 4);
        for (const char* name : {"S(0)", "S(2)", "P"}) {
            const OpStrategy* s = named(shape, name);
            QVERIFY2(s, name);
            QCOMPARE(s->outputs[0], TensorLayout::replicated());
        }
    }

    void embedding_gather_splits_vocab_to_partial_or_hidden()
    {
        const Graph g = gpt();
        const NodeId ga = firstNode(g, "Gather", [&](const Node& n) { return hasWeightInput(g, n); });
        QVERIFY(ga != kNoNode);
        const std::vector<OpStrategy> s = nodeStrategies(g, ga, 4);
        const OpStrategy* vocab = named(s, "vocab");
        const OpStrategy* hidden = named(s, "hidden");
        QVERIFY(vocab && hidden);
        QCOMPARE(vocab->inputs[0], TensorLayout::split(0));
        QCOMPARE(vocab->outputs[0], TensorLayout::partial());
        QCOMPARE(hidden->outputs[0], TensorLayout::split(2));
    }

    void unsupported_op_is_replicated_with_a_warning_naming_it()
    {
        Graph g;
        const TensorId xi = testing::addFloatTensor(g, "x", {4, 8}, TensorKind::Input);
        g.inputs.push_back(xi);
        const TensorId yi = testing::addFloatTensor(g, "y", {4, 8}, TensorKind::Activation);
        testing::addNode(g, "mystery_op", "FrobnicateTensor", {xi}, {yi});
        g.outputs.push_back(yi);
        std::string warning;
        const std::vector<OpStrategy> s = nodeStrategies(g, 0, 4, &warning);
        QCOMPARE(s.size(), size_t(1));
        QCOMPARE(s.front().name, std::string("replicate"));
        QVERIFY2(warning.find("mystery_op") != std::string::npos && warning.find("FrobnicateTensor") != std::string::npos,
                 warning.c_str());
    }

    void collectives_and_their_bytes()
    {
        const TensorLayout R = TensorLayout::replicated(), P = TensorLayout::partial();
        const TensorLayout S0 = TensorLayout::split(0), S1 = TensorLayout::split(1);
        QCOMPARE(reshardCollective(P, R), CollectiveKind::AllReduce);
        QCOMPARE(reshardCollective(P, S1), CollectiveKind::ReduceScatter);
        QCOMPARE(reshardCollective(S0, R), CollectiveKind::AllGather);
        QCOMPARE(reshardCollective(S0, S1), CollectiveKind::AllToAll);
        QCOMPARE(reshardCollective(R, S1), CollectiveKind::Slice);
        QCOMPARE(reshardCollective(S1, S1), CollectiveKind::None);
        QCOMPARE(backwardCollective(CollectiveKind::Slice), CollectiveKind::AllGather);
        QCOMPARE(backwardCollective(CollectiveKind::AllReduce), CollectiveKind::None);
        QCOMPARE(collectiveWireBytes(CollectiveKind::AllReduce, 1000, 4), 1500.0);
        QCOMPARE(collectiveWireBytes(CollectiveKind::AllGather, 1000, 4), 750.0);
        QCOMPARE(collectiveWireBytes(CollectiveKind::ReduceScatter, 1000, 4), 750.0);
        QCOMPARE(collectiveWireBytes(CollectiveKind::AllToAll, 1000, 4), 187.5);
        QCOMPARE(collectiveWireBytes(CollectiveKind::Slice, 1000, 4), 0.0);
        QCOMPARE(collectiveWireBytes(CollectiveKind::AllReduce, 1000, 1), 0.0);
        const Result<TensorLayout> parsed = parseTensorLayout("S(2)");
        QVERIFY(parsed.ok() && *parsed == TensorLayout::split(2));
        QVERIFY(*parseTensorLayout("R") == TensorLayout::replicated());
        QVERIFY(*parseTensorLayout("P") == TensorLayout::partial());
        for (const char* bad : {"S(x)", "S(-1)", "S(65)", "S( 2)", "S(2", "Q", ""}) {
            const Result<TensorLayout> r = parseTensorLayout(bad);
            QVERIFY2(!r.ok(), bad);
            QVERIFY2(r.error().find(std::string("'") + bad + "'") != std::string::npos, r.error().c_str());
        }
        QCOMPARE(toShardingSpec(TensorLayout::split(2), 3, true).toString(), std::string("[S(dp),R,S(tp)]"));
        QCOMPARE(toShardingSpec(P, 2, false).toString(), std::string("[R,R]+P(tp)"));
    }

    void checker_accepts_placed_collectives_and_rejects_missing_ones()
    {
        const Graph g = gpt();
        // The first weight product split by columns, the next by rows: a partial output that
        // must be all-reduced before the bias Add.
        std::map<NodeId, std::string> names;
        for (NodeId n = 0; n < NodeId(g.nodes.size()) && names.size() < 2; ++n)
            if (g.node(n).opType == "MatMul" && hasWeightInput(g, g.node(n))) names[n] = names.empty() ? "column" : "row";
        ShardingPlan plan = buildPlan(g, {2, 4}, chooseByName(g, 4, names));
        Status ok = checkPlan(g, plan);
        QVERIFY2(ok.ok(), ok.error.c_str());
        const auto allReduces = std::count_if(plan.reshards.begin(), plan.reshards.end(),
                                              [](const Reshard& r) { return r.forward == CollectiveKind::AllReduce; });
        QVERIFY(allReduces >= 1);
        QVERIFY(std::any_of(plan.reshards.begin(), plan.reshards.end(),
                            [](const Reshard& r) { return r.forward == CollectiveKind::AllGather; }));

        ShardingPlan missing = plan;
        const auto it = std::find_if(missing.reshards.begin(), missing.reshards.end(),
                                     [](const Reshard& r) { return r.forward == CollectiveKind::AllReduce; });
        const std::string tensorName = g.tensor(it->tensor).name;
        missing.reshards.erase(it);
        Status bad = checkPlan(g, missing);
        QVERIFY(!bad.ok());
        QVERIFY2(bad.error.find(tensorName) != std::string::npos && bad.error.find("no collective") != std::string::npos,
                 bad.error.c_str());

        ShardingPlan wrongKind = plan;
        wrongKind.reshards.front().forward = CollectiveKind::AllToAll;
        QVERIFY(!checkPlan(g, wrongKind).ok());

        ShardingPlan extra = plan;
        extra.reshards.push_back(extra.reshards.front());
        extra.reshards.back().consumer = 0;
        QVERIFY(!checkPlan(g, extra).ok());

        // A split of a dimension the degree does not divide is refused, naming the node.
        ShardingPlan uneven = buildPlan(g, {1, 3}, chooseByName(g, 4, names));
        Status u = checkPlan(g, uneven);
        QVERIFY(!u.ok());
        QVERIFY2(u.error.find("over tp 3") != std::string::npos, u.error.c_str());
    }

    void replicated_plan_needs_no_collectives()
    {
        const Graph g = gpt();
        ShardingPlan plan = buildPlan(g, {8, 1}, chooseByName(g, 1, {}));
        QVERIFY(plan.reshards.empty());
        QVERIFY(checkPlan(g, plan).ok());
    }
};

QTEST_GUILESS_MAIN(TstSharding)
#include "tst_sharding.moc"
