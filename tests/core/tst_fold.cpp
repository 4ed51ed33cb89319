// Folding: the repeated blocks of zoo models and of the real exported models in shared/models,
// with exact class counts, and invariance under scrubbed names and shuffled node order.
#include "core/fold/folded_graph.h"
#include "core/onnx/onnx_importer.h"
#include "core/report/fold_report.h"
#include "core/zoo/zoo.h"
#include "tests/common/fold_checks.h"
#include "tests/common/shared_models.h"

#include <QtTest>

#include <algorithm>
#include <chrono>
#include <set>

using namespace tapas;
using tapas::testing::checkPartition;
using tapas::testing::scrubbed;
using tapas::testing::shuffled;

namespace {

struct ClassSummary {
    uint64_t signature;
    size_t instances;
    int nodes;
    bool operator==(const ClassSummary& o) const
    {
        return signature == o.signature && instances == o.instances && nodes == o.nodes;
    }
};

std::vector<ClassSummary> summary(const FoldedGraph& fg)
{
    std::vector<ClassSummary> s;
    for (const BlockClass& c : fg.classes) s.push_back({c.signature, c.instances.size(), c.nodesPerInstance});
    return s;
}

// Instance counts of the classes with at least two instances, in chain order.
std::vector<int> repeatedCounts(const FoldedGraph& fg)
{
    std::vector<int> counts;
    for (const BlockClass& c : fg.classes)
        if (c.repeated()) counts.push_back(int(c.instances.size()));
    return counts;
}

QString describe(const Graph& g, const FoldedGraph& fg)
{
    return QString::fromStdString(foldToText(g, fg));
}

Graph zoo(const std::string& name, ZooOptions o = {})
{
    Result<Graph> g = zooGraph(name, o);
    if (!g) qFatal("zoo %s: %s", name.c_str(), g.error().c_str());
    return std::move(g).value();
}

Graph model(const char* file)
{
    Result<Graph> g = importOnnxFile(tapas::testing::sharedModelPath(file));
    if (!g) qFatal("%s: %s", file, g.error().c_str());
    return std::move(g).value();
}

FoldedGraph fold(const Graph& g)
{
    Result<FoldedGraph> fg = foldGraph(g);
    if (!fg) qFatal("fold failed: %s", fg.error().c_str());
    return std::move(fg).value();
}

// A transformer-like stack built with the IR API: an attention mask read by every layer (a
// broadcast), a residual stream, an embedding before and a head after.
Graph syntheticStack(int layers)
{
    Graph g;
    g.name = "synthetic";
    auto act = [&](const std::string& name, Shape s) {
        Tensor t;
        t.name = name;
        t.dtype = DType::Float32;
        t.shape = std::move(s);
        return g.addTensor(std::move(t));
    };
    auto weight = [&](const std::string& name, Shape s) {
        Tensor t;
        t.name = name;
        t.dtype = DType::Float32;
        t.shape = std::move(s);
        t.kind = TensorKind::Weight;
        return g.addTensor(std::move(t));
    };
    auto node = [&](const std::string& name, const std::string& op, std::vector<TensorId> in, std::vector<TensorId> out) {
        Node n;
        n.name = name;
        n.opType = op;
        n.scope = scopeFromNodeName(name);
        n.inputs = std::move(in);
        n.outputs = std::move(out);
        g.addNode(std::move(n));
    };
    const Shape hs = Shape::ofDims({Dim::symbolic("batch"), Dim::known(16), Dim::known(32)});
    Tensor ids;
    ids.name = "ids";
    ids.dtype = DType::Int64;
    ids.shape = Shape::ofDims({Dim::symbolic("batch"), Dim::known(16)});
    ids.kind = TensorKind::Input;
    const TensorId idsT = g.addTensor(ids);
    Tensor mask = ids;
    mask.name = "mask";
    mask.dtype = DType::Float32;
    const TensorId maskT = g.addTensor(mask);
    g.inputs = {idsT, maskT};
    TensorId h = act("emb", hs);
    node("/emb/Gather", "Gather", {weight("wte", Shape::of({100, 32})), idsT}, {h});
    const TensorId m = act("mask_scaled", mask.shape);
    node("/mask/Mul", "Mul", {maskT, weight("neg", Shape::of({1}))}, {m});
    for (int l = 0; l < layers; ++l) {
        const std::string p = "/layer." + std::to_string(l) + "/";
        const TensorId q = act(p + "q", hs), s = act(p + "s", hs), a = act(p + "a", hs), o = act(p + "o", hs);
        const TensorId r1 = act(p + "r1", hs), f = act(p + "f", hs), fr = act(p + "fr", hs), f2 = act(p + "f2", hs), r2 = act(p + "r2", hs);
        node(p + "attn/MatMul", "MatMul", {h, weight(p + "wq", Shape::of({32, 32}))}, {q});
        node(p + "attn/Add", "Add", {q, m}, {s});
        node(p + "attn/Softmax", "Softmax", {s}, {a});
        node(p + "attn/MatMul_1", "MatMul", {a, weight(p + "wo", Shape::of({32, 32}))}, {o});
        node(p + "Add", "Add", {h, o}, {r1});
        node(p + "mlp/MatMul", "MatMul", {r1, weight(p + "w1", Shape::of({32, 32}))}, {f});
        node(p + "mlp/Relu", "Relu", {f}, {fr});
        node(p + "mlp/MatMul_1", "MatMul", {fr, weight(p + "w2", Shape::of({32, 32}))}, {f2});
        node(p + "Add_1", "Add", {r1, f2}, {r2});
        h = r2;
    }
    const TensorId logits = act("logits", Shape::ofDims({Dim::symbolic("batch"), Dim::known(16), Dim::known(100)}));
    node("/head/MatMul", "MatMul", {h, weight("head", Shape::of({32, 100}))}, {logits});
    g.outputs = {logits};
    return g;
}

} // namespace

class TstFold : public QObject {
    Q_OBJECT

private slots:
    void fold_synthetic_stack_with_broadcast_mask_is_one_class()
    {
        const Graph g = syntheticStack(6);
        const FoldedGraph fg = fold(g);
        QString why;
        QVERIFY2(checkPartition(g, fg, &why), qPrintable(why));
        QCOMPARE(repeatedCounts(fg), std::vector<int>{6});
        const BlockClass* layer = nullptr;
        for (const BlockClass& c : fg.classes)
            if (c.repeated()) layer = &c;
        QCOMPARE(layer->nodesPerInstance, 9);
        QCOMPARE(layer->paramsPerInstance, int64_t(4 * 32 * 32));
        QCOMPARE(QString::fromStdString(layer->scope), QStringLiteral("/layer.0"));
        // The mask is read by every layer: it crosses every layer's boundary.
        const TensorId mask = g.findTensor("mask_scaled");
        for (const BlockInstance& inst : layer->instances)
            QVERIFY(std::find(inst.inputs.begin(), inst.inputs.end(), mask) != inst.inputs.end());
        QCOMPARE(fg.coverage, 54.0 / double(g.nodes.size()));
    }

    void fold_rejects_a_cycle_with_the_node_named()
    {
        Graph g = syntheticStack(2);
        // Feed the head's output back into the first layer.
        g.nodes[2].inputs[0] = g.findTensor("logits");
        g.rebuildLinks();
        const Result<FoldedGraph> fg = foldGraph(g);
        QVERIFY(!fg.ok());
        QVERIFY2(fg.error().find("cycle") != std::string::npos, fg.error().c_str());
        QVERIFY2(fg.error().find("'/") != std::string::npos, fg.error().c_str());
    }

    void fold_gpt_12_layers_into_one_class_of_12()
    {
        ZooOptions o;
        o.layers = 12;
        const Graph g = zoo("gpt", o);
        const FoldedGraph fg = fold(g);
        QString why;
        QVERIFY2(checkPartition(g, fg, &why), qPrintable(why));
        QVERIFY2(repeatedCounts(fg) == std::vector<int>{12}, qPrintable(describe(g, fg)));
        // Embedding, the layer, final LayerNorm with the (tied) LM head.
        QVERIFY2(fg.classes.size() == 3, qPrintable(describe(g, fg)));
        QCOMPARE(QString::fromStdString(fg.classes[1].scope), QStringLiteral("/transformer/h.0"));
        QVERIFY2(fg.coverage > 0.9, qPrintable(describe(g, fg)));
    }

    void fold_bert_12_layers_into_one_class_of_12()
    {
        ZooOptions o;
        o.layers = 12;
        const Graph g = zoo("bert", o);
        const FoldedGraph fg = fold(g);
        QString why;
        QVERIFY2(checkPartition(g, fg, &why), qPrintable(why));
        QVERIFY2(repeatedCounts(fg) == std::vector<int>{12}, qPrintable(describe(g, fg)));
        // Shared mask arithmetic, embeddings, the layer, the pooler.
        QVERIFY2(fg.classes.size() == 4, qPrintable(describe(g, fg)));
        QCOMPARE(QString::fromStdString(fg.classes[2].scope), QStringLiteral("/encoder/layer.0"));
    }

    void fold_vit_into_one_class_of_12()
    {
        const Graph g = zoo("vit");
        const FoldedGraph fg = fold(g);
        QString why;
        QVERIFY2(checkPartition(g, fg, &why), qPrintable(why));
        QVERIFY2(repeatedCounts(fg) == std::vector<int>{12}, qPrintable(describe(g, fg)));
        QVERIFY2(fg.classes.size() == 3, qPrintable(describe(g, fg)));
    }

    void fold_finds_encoder_and_decoder_classes()
    {
        ZooOptions o;
        o.layers = 6;
        o.decoderLayers = 6;
        const Graph g = zoo("t5", o);
        const FoldedGraph fg = fold(g);
        QString why;
        QVERIFY2(checkPartition(g, fg, &why), qPrintable(why));
        QVERIFY2(repeatedCounts(fg) == (std::vector<int>{6, 6}), qPrintable(describe(g, fg)));
        // The decoder layer has the cross attention: more nodes than an encoder layer.
        std::vector<const BlockClass*> rep;
        for (const BlockClass& c : fg.classes)
            if (c.repeated()) rep.push_back(&c);
        QVERIFY(rep[1]->nodesPerInstance > rep[0]->nodesPerInstance);
        QCOMPARE(QString::fromStdString(rep[0]->scope), QStringLiteral("/encoder/block.0"));
        QCOMPARE(QString::fromStdString(rep[1]->scope), QStringLiteral("/decoder/block.0"));
        // Besides the two stacks: mask and position-bias arithmetic of each side, the two
        // embeddings and the two final norms (the decoder's with the LM head).
        QVERIFY2(fg.classes.size() == 8, qPrintable(describe(g, fg)));
    }

    void fold_t5_with_fewer_decoder_layers_keeps_both_stacks()
    {
        ZooOptions o;
        o.layers = 8;
        o.decoderLayers = 3;
        const Graph g = zoo("t5", o);
        const FoldedGraph fg = fold(g);
        QVERIFY2(repeatedCounts(fg) == (std::vector<int>{8, 3}), qPrintable(describe(g, fg)));
    }

    void fold_resnet50_stages_into_bottleneck_classes()
    {
        const Graph g = zoo("resnet50");
        const FoldedGraph fg = fold(g);
        QString why;
        QVERIFY2(checkPartition(g, fg, &why), qPrintable(why));
        QVERIFY2(repeatedCounts(fg) == (std::vector<int>{2, 3, 5, 2}), qPrintable(describe(g, fg)));
        // Stem, four down-sampling blocks (each its own shape) and the head: singletons.
        QVERIFY2(fg.classes.size() == 4 + 4 + 2, qPrintable(describe(g, fg)));
    }

    void fold_moe_alternating_with_dense_into_two_classes()
    {
        ZooOptions o;
        o.layers = 8;
        o.moeEvery = 2;
        const Graph g = zoo("moe", o);
        const FoldedGraph fg = fold(g);
        QString why;
        QVERIFY2(checkPartition(g, fg, &why), qPrintable(why));
        QVERIFY2(repeatedCounts(fg) == (std::vector<int>{4, 4}), qPrintable(describe(g, fg)));
        QVERIFY2(fg.classes.size() == 4, qPrintable(describe(g, fg)));
        // Dense layer first (h.0), then the MoE layer (h.1), alternating along the chain.
        QCOMPARE(QString::fromStdString(fg.classes[1].scope), QStringLiteral("/transformer/h.0"));
        QCOMPARE(QString::fromStdString(fg.classes[2].scope), QStringLiteral("/transformer/h.1"));
        QVERIFY(fg.classes[2].nodesPerInstance > fg.classes[1].nodesPerInstance);
        for (size_t b = 1; b + 1 < fg.chain.size(); ++b) QVERIFY(fg.chain[b].classId != fg.chain[b + 1].classId);
    }

    void fold_bert_mini_4l_into_4_encoder_layers()
    {
        TAPAS_NEEDS_SHARED_MODEL("bert_mini_4l.onnx");
        const Graph g = model("bert_mini_4l.onnx");
        const FoldedGraph fg = fold(g);
        QString why;
        QVERIFY2(checkPartition(g, fg, &why), qPrintable(why));
        QVERIFY2(repeatedCounts(fg) == std::vector<int>{4}, qPrintable(describe(g, fg)));
        // Embedding, the encoder layer, the head.
        QVERIFY2(fg.classes.size() == 3, qPrintable(describe(g, fg)));
        QCOMPARE(QString::fromStdString(fg.classes[1].scope), QStringLiteral("/enc/layers.0"));
        QCOMPARE(fg.classes[1].nodesPerInstance, 130);
    }

    void fold_resnet18_stage1_into_two_identical_blocks()
    {
        TAPAS_NEEDS_SHARED_MODEL("resnet18.onnx");
        const Graph g = model("resnet18.onnx");
        const FoldedGraph fg = fold(g);
        QString why;
        QVERIFY2(checkPartition(g, fg, &why), qPrintable(why));
        QVERIFY2(repeatedCounts(fg) == std::vector<int>{2}, qPrintable(describe(g, fg)));
        // Identity-aliased weights, stem, layer1 x2, then down-sampling and plain blocks of
        // stages 2-4 (all different shapes), head.
        QVERIFY2(fg.classes.size() == 10, qPrintable(describe(g, fg)));
        QCOMPARE(QString::fromStdString(fg.classes[2].scope), QStringLiteral("/layer1/layer1.0"));
        QCOMPARE(QString::fromStdString(fg.classes[3].scope), QStringLiteral("/layer2/layer2.0"));
        QCOMPARE(QString::fromStdString(fg.classes[4].scope), QStringLiteral("/layer2/layer2.1"));
    }

    void fold_mobilenet_v2_stages_after_their_first_block()
    {
        TAPAS_NEEDS_SHARED_MODEL("mobilenet_v2.onnx");
        const Graph g = model("mobilenet_v2.onnx");
        const FoldedGraph fg = fold(g);
        QString why;
        QVERIFY2(checkPartition(g, fg, &why), qPrintable(why));
        // Channels 32, 64, 96, 160: 2, 3, 2, 2 identical residual blocks; the single residual
        // block of the 24-channel stage has no twin.
        QVERIFY2(repeatedCounts(fg) == (std::vector<int>{2, 3, 2, 2}), qPrintable(describe(g, fg)));
        // Identity-aliased weights; stem with block 1; the first block of each stage and the
        // 24-channel residual block on their own; the last block; the head.
        QVERIFY2(fg.classes.size() == 14, qPrintable(describe(g, fg)));
        QCOMPARE(QString::fromStdString(fg.classes[5].scope), QStringLiteral("/features/features.5"));
    }

    void fold_ch_ppocr_classifier()
    {
        TAPAS_NEEDS_SHARED_MODEL("ch_ppocr_mobile_v2.0_cls_infer.onnx");
        const Graph g = model("ch_ppocr_mobile_v2.0_cls_infer.onnx");
        const FoldedGraph fg = fold(g);
        QString why;
        QVERIFY2(checkPartition(g, fg, &why), qPrintable(why));
        // MobileNetV3-small x0.35: after channel rounding, blocks 5-6 (expansion 88) and
        // blocks 10-11 (expansion 200) are identical residual SE blocks; blocks 7 and 8 have
        // other expansions. Paddle2ONNX writes no name scopes.
        QVERIFY2(repeatedCounts(fg) == (std::vector<int>{2, 2}), qPrintable(describe(g, fg)));
        QVERIFY2(fg.classes.size() == 10, qPrintable(describe(g, fg)));
        for (const BlockClass& c : fg.classes)
            if (c.repeated()) QCOMPARE(c.nodesPerInstance, 44);
    }

    void fold_invariant_under_scrubbed_names_and_shuffled_order_data()
    {
        QTest::addColumn<QString>("which");
        QTest::newRow("gpt") << "gpt";
        QTest::newRow("t5") << "t5";
        QTest::newRow("resnet50") << "resnet50";
        QTest::newRow("bert_mini_4l") << "bert_mini_4l";
        QTest::newRow("synthetic") << "synthetic";
    }

    void fold_invariant_under_scrubbed_names_and_shuffled_order()
    {
        QFETCH(QString, which);
        Graph g;
        if (which == "bert_mini_4l") {
            TAPAS_NEEDS_SHARED_MODEL("bert_mini_4l.onnx");
            g = model("bert_mini_4l.onnx");
        }
        else if (which == "synthetic") g = syntheticStack(5);
        else g = zoo(which.toStdString());
        const FoldedGraph base = fold(g);
        QVERIFY(base.repeatedClassCount() >= 1);

        const Graph s = scrubbed(g);
        const FoldedGraph fs = fold(s);
        QVERIFY2(summary(fs) == summary(base), qPrintable(describe(s, fs) + "\nvs\n" + describe(g, base)));
        for (const BlockClass& c : fs.classes) QVERIFY(c.scope.empty());

        bool moved = false;
        for (unsigned seed : {1u, 2u, 3u}) {
            const Graph sh = shuffled(s, seed);
            for (size_t i = 0; i < sh.nodes.size() && !moved; ++i) moved = sh.nodes[i].outputs != s.nodes[i].outputs;
            const FoldedGraph f = fold(sh);
            QVERIFY2(summary(f) == summary(base), qPrintable(describe(sh, f) + "\nvs\n" + describe(g, base)));
            QCOMPARE(f.coverage, base.coverage);
        }
        QVERIFY(moved); // the shuffles really changed the order
    }

    void fold_zoo_zoo_gpt_scrubbed_by_the_zoo_folds_the_same()
    {
        ZooOptions o;
        const FoldedGraph named = fold(zoo("gpt", o));
        o.scrubNames = true;
        const FoldedGraph plain = fold(zoo("gpt", o));
        QVERIFY(summary(named) == summary(plain));
    }

    void fold_json_lists_every_class_with_counts()
    {
        const Graph g = syntheticStack(3);
        const FoldedGraph fg = fold(g);
        const nlohmann::json j = foldToJson(g, fg);
        QVERIFY(j.contains("coverage"));
        QCOMPARE(j["classes"].size(), fg.tree.classes.size());
        size_t nodes = 0, blocks = 0;
        std::set<int> seen;
        for (const auto& c : j["classes"]) {
            for (const char* key : {"id", "level", "parent", "instances", "nodes_per_instance", "params_per_instance",
                                    "scope", "coverage"})
                QVERIFY2(c.contains(key), key);
            // Parents come first: the list reads top-down.
            if (c["parent"].is_null()) QCOMPARE(c["level"].get<std::string>(), std::string("model"));
            else QVERIFY(seen.count(c["parent"].get<int>()));
            seen.insert(c["id"].get<int>());
            const double share = double(c["instances"].get<size_t>() * c["nodes_per_instance"].get<size_t>()) / double(g.nodes.size());
            QCOMPARE(c["coverage"].get<double>(), share);
            if (c["level"] != "block") continue;
            blocks += c["block_classes"].size();
            nodes += c["instances"].get<size_t>() * c["nodes_per_instance"].get<size_t>();
        }
        QCOMPARE(blocks, fg.classes.size());
        QCOMPARE(nodes, g.nodes.size()); // singletons are listed too
        QCOMPARE(j["classes"][0]["nodes_per_instance"].get<size_t>(), g.nodes.size());
    }

    // Scaling figures come from `tapas bench fold`; this guards against a quadratic step, with
    // room for a machine busy with other work.
    void fold_gpt_192_layers_in_well_under_two_seconds()
    {
        ZooOptions o;
        o.layers = 192;
        const Graph large = zoo("gpt", o);
        const auto t0 = std::chrono::steady_clock::now();
        const FoldedGraph fl = fold(large);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        QCOMPARE(repeatedCounts(fl), std::vector<int>{192});
        QVERIFY2(seconds < 2.0, qPrintable(QStringLiteral("192 layers (%1 nodes) took %2 s").arg(large.nodes.size()).arg(seconds)));
    }
};

QTEST_GUILESS_MAIN(TstFold)
#include "tst_fold.moc"
