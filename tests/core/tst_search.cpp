// The searchers on one cost model: TAPAS finds Megatron's column-then-row MLP on its own, is
// never slower than the Megatron plan on GPT/BERT, matches the unfolded search, reuses each
// block class's table across depth, and its plans pass the checker on every model family.
#include "core/fold/folded_graph.h"
#include "core/onnx/onnx_importer.h"
#include "core/search/attention_heads.h"
#include "core/search/fit_advice.h"
#include "core/search/megatron_roles.h"
#include "core/search/mesh_sweep.h"
#include "core/search/searcher.h"
#include "core/util/cpu_clock.h"
#include "core/zoo/zoo.h"
#include "tests/common/chain_graph.h"
#include "tests/common/float_tensor.h"
#include "tests/common/shared_models.h"
#include "tests/common/tied_head_graph.h"

#include <QtTest>

#include <algorithm>
#include <chrono>

using namespace tapas;

namespace {

Graph zoo(const std::string& name, ZooOptions o)
{
    Result<Graph> g = zooGraph(name, o);
    if (!g) qFatal("zoo %s: %s", name.c_str(), g.error().c_str());
    return std::move(g).value();
}

ZooOptions transformer(int64_t layers, int64_t hidden, int64_t heads, int64_t seq, int64_t batch)
{
    ZooOptions o;
    o.layers = layers;
    o.hidden = hidden;
    o.heads = heads;
    o.seq = seq;
    o.batch = batch;
    o.vocab = 8192;
    return o;
}

SearchResult run(const std::string& searcher, const Graph& g, const std::string& cluster, const std::string& mesh)
{
    SearchRequest r;
    r.graph = &g;
    r.cluster = *loadClusterSpec(cluster);
    r.mesh = *parseMesh(mesh);
    Result<SearchResult> res = findSearcher(searcher)->search(r);
    if (!res) qFatal("%s: %s", searcher.c_str(), res.error().c_str());
    return std::move(res).value();
}

// in [8,64] -> Relu -> MatMul(W1 [64,128]) -> Relu -> MatMul(W2 [128,64]) -> out
Graph twoLayerMlp()
{
    Graph g;
    auto tensor = [&](const std::string& name, std::vector<int64_t> dims, TensorKind kind) {
        return tapas::testing::addFloatTensor(g, name, dims, kind);
    };
    auto node = [&](const std::string& name, const std::string& op, std::vector<TensorId> in, TensorId out) {
        Node n;
        n.name = name;
        n.opType = op;
        n.inputs = std::move(in);
        n.outputs = {out};
        g.addNode(n);
    };
    const TensorId in = tensor("in", {8, 64}, TensorKind::Input);
    g.inputs = {in};
    const TensorId a = tensor("a", {8, 64}, TensorKind::Activation);
    node("relu0", "Relu", {in}, a);
    const TensorId b = tensor("b", {8, 128}, TensorKind::Activation);
    node("up", "MatMul", {a, tensor("W1", {64, 128}, TensorKind::Weight)}, b);
    const TensorId c = tensor("c", {8, 128}, TensorKind::Activation);
    node("relu1", "Relu", {b}, c);
    const TensorId d = tensor("d", {8, 64}, TensorKind::Activation);
    node("down", "MatMul", {c, tensor("W2", {128, 64}, TensorKind::Weight)}, d);
    g.outputs = {d};
    g.batch.probed = true; // built by hand: the batch axis is declared, not probed
    g.batch.inputs = {{in, 0}};
    g.batch.size = 8;
    return g;
}

bool inScope(const Graph& g, NodeId n, const std::string& part)
{
    return n != kNoNode && g.node(n).scope.find(part) != std::string::npos;
}

} // namespace

class TstSearch : public QObject {
    Q_OBJECT
private slots:
    void registry_lists_each_searcher_once()
    {
        std::vector<std::string> names;
        for (const auto& s : searchers()) names.push_back(s->name());
        QCOMPARE(names, (std::vector<std::string>{"tapas", "megatron", "dp", "unfolded", "ilp"}));
        QVERIFY(!findSearcher("nonsense"));
    }

    void tapas_finds_column_then_row_mlp_with_one_forward_all_reduce()
    {
        const Graph g = zoo("gpt", transformer(2, 2048, 16, 256, 2));
        const SearchResult r = run("tapas", g, "a100x8", "1x8");
        QVERIFY(checkPlan(g, r.best.plan).ok());
        NodeId up = kNoNode, down = kNoNode;
        for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n) {
            if (g.node(n).opType != "MatMul") continue;
            if (inScope(g, n, "h.0/mlp/c_fc")) up = n;
            if (inScope(g, n, "h.0/mlp/c_proj")) down = n;
        }
        QVERIFY(up != kNoNode && down != kNoNode);
        QCOMPARE(r.best.plan.nodes[size_t(up)].name, std::string("column"));
        QCOMPARE(r.best.plan.nodes[size_t(down)].name, std::string("row"));
        int allReduces = 0, others = 0;
        for (const Reshard& rs : r.best.plan.reshards) {
            const NodeId producer = g.tensor(rs.tensor).producer;
            const bool mlp = inScope(g, producer, "h.0/mlp") || inScope(g, rs.consumer, "h.0/mlp");
            if (!mlp || rs.forward == CollectiveKind::Slice) continue;
            if (rs.forward == CollectiveKind::AllReduce && producer == down) ++allReduces;
            else if (rs.forward != CollectiveKind::None && inScope(g, producer, "h.0/mlp") && inScope(g, rs.consumer, "h.0/mlp")) ++others;
        }
        QCOMPARE(allReduces, 1);
        QCOMPARE(others, 0);
    }

    void megatron_roles_are_recognised_by_structure()
    {
        ZooOptions o = transformer(2, 64, 4, 16, 2);
        o.scrubNames = true; // names must not matter
        const Graph g = zoo("gpt", o);
        const std::vector<MegatronRole> roles = megatronRoles(g);
        std::vector<MegatronRole> weightProducts;
        int vocab = 0;
        for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n) {
            if (roles[size_t(n)] == MegatronRole::Column || roles[size_t(n)] == MegatronRole::Row) weightProducts.push_back(roles[size_t(n)]);
            vocab += roles[size_t(n)] == MegatronRole::VocabEmbedding;
        }
        using M = MegatronRole;
        // Per layer: QKV column, attention-out row, MLP-up column, MLP-down row; then the tied
        // LM head, a product by the word table transposed, column-parallel (parallel_lm_logits).
        QCOMPARE(weightProducts, (std::vector<M>{M::Column, M::Row, M::Column, M::Row, M::Column, M::Row, M::Column, M::Row, M::Column}));
        QCOMPARE(vocab, 1);
        int heads = 0;
        for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n)
            if (roles[size_t(n)] == MegatronRole::VocabHead) {
                ++heads;
                QCOMPARE(g.node(n).opType, std::string("Transpose"));
                QCOMPARE(g.node(n).input(0), g.node(wordEmbedding(g)).input(0));
            }
        QCOMPARE(heads, 1);
    }

    // bert_mini's attention-out projection is a Gemm with a bias: Megatron makes it row parallel,
    // and a role the op cannot take would be reported, never replicated without a word.
    void megatron_row_role_on_a_biased_gemm_is_taken_not_replicated()
    {
        ImportOptions io;
        io.dims = {{"batch", 8}, {"seq", 64}};
        TAPAS_NEEDS_SHARED_MODEL("bert_mini_4l.onnx");
        Result<Graph> g = importOnnxFile(tapas::testing::sharedModelPath("bert_mini_4l.onnx"), io);
        QVERIFY2(g.ok(), g.error().c_str());
        const std::vector<MegatronRole> roles = megatronRoles(*g);
        const SearchResult m = run("megatron", *g, "a100x8", "4x2");
        int rows = 0;
        for (NodeId n = 0; n < NodeId(g->nodes.size()); ++n) {
            if (roles[size_t(n)] != MegatronRole::Row) continue;
            ++rows;
            QVERIFY2(m.best.plan.nodes[size_t(n)].name == "row",
                     qPrintable(QString::fromStdString(g->node(n).name + " (" + g->node(n).opType + ") took " +
                                                       m.best.plan.nodes[size_t(n)].name)));
        }
        QVERIFY(rows >= 8); // attention-out and MLP-down in each of 4 layers
        for (const std::string& w : m.warnings) QVERIFY2(w.find("searcher's rule") == std::string::npos, w.c_str());
        // An MLP of 100 does not split 8 ways: its products fall back to replicate, and each is
        // named (a hidden size that does not split has heads Megatron-LM refuses, below).
        ZooOptions narrowMlp = transformer(2, 64, 8, 16, 2);
        narrowMlp.ffn = 100;
        const Graph odd = zoo("gpt", narrowMlp);
        const SearchResult r = run("megatron", odd, "a100x8", "1x8");
        const auto fallback = std::count_if(r.warnings.begin(), r.warnings.end(), [](const std::string& w) {
            return w.find("fits the searcher's rule; replicated") != std::string::npos && w.find("MatMul") != std::string::npos;
        });
        QVERIFY2(fallback >= 2, qPrintable(QString::number(fallback)));
    }

    void tapas_is_never_slower_than_megatron_on_gpt_and_bert()
    {
        for (const char* model : {"gpt", "bert"}) {
            const Graph g = zoo(model, transformer(4, 1024, 16, 512, 8));
            for (const auto& [cluster, mesh] : std::vector<std::pair<std::string, std::string>>{
                     {"a100x8", "1x8"}, {"a100x8", "2x4"}, {"h100x16", "2x8"}, {"v100x32", "8x4"}}) {
                const SearchResult t = run("tapas", g, cluster, mesh);
                const SearchResult m = run("megatron", g, cluster, mesh);
                const double tt = t.best.report.total.time(), mt = m.best.report.total.time();
                QVERIFY2(tt <= mt * (1 + 1e-9), qPrintable(QStringLiteral("%1 %2 %3: tapas %4 s > megatron %5 s")
                                                                .arg(model, QString::fromStdString(cluster),
                                                                     QString::fromStdString(mesh)).arg(tt).arg(mt)));
                QVERIFY(checkPlan(g, t.best.plan).ok());
                QVERIFY(checkPlan(g, m.best.plan).ok());
                // TAPAS over every mesh never loses to pure data parallelism where that can run
                // at all (batch 8 does not split over 16 or 32 replicas).
                SearchRequest dpReq;
                dpReq.graph = &g;
                dpReq.cluster = *loadClusterSpec(cluster);
                Result<SearchResult> dp = findSearcher("dp")->search(dpReq);
                if (dpReq.cluster.deviceCount() <= 8) {
                    const Result<SearchResult> swept =
                        searchBestMesh(*findSearcher("tapas"), dpReq, enumerateMeshes(dpReq.cluster, true));
                    QVERIFY2(swept.ok(), swept.error().c_str());
                    QVERIFY(dp.ok() && swept->best.report.total.time() <= dp->best.report.total.time() * (1 + 1e-9));
                }
                else QVERIFY2(!dp.ok() && dp.error().find("does not divide the batch 8") != std::string::npos, qPrintable(QString::fromStdString(dp.ok() ? "ran" : dp.error())));
            }
        }
    }

    // GPT, and T5 at the bench's size, whose decoder layers carry the encoder output and the mask
    // beside the hidden state (the unfolded search and the ILP agree on its optimum at 1x8).
    void folded_search_matches_the_unfolded_one_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("mesh");
        QTest::newRow("gpt 2x4") << QString("gpt") << QString("2x4");
        QTest::newRow("t5 1x8") << QString("t5") << QString("1x8");
        QTest::newRow("t5 4x2") << QString("t5") << QString("4x2");
    }
    void folded_search_matches_the_unfolded_one()
    {
        QFETCH(QString, model);
        QFETCH(QString, mesh);
        ZooOptions t5;
        t5.seq = 512;
        t5.batch = 8;
        const Graph g = model == "gpt" ? zoo("gpt", transformer(4, 512, 8, 128, 8)) : zoo("t5", t5);
        const SearchResult t = run("tapas", g, "a100x8", mesh.toStdString());
        const SearchResult u = run("unfolded", g, "a100x8", mesh.toStdString());
        const double tt = t.best.report.total.time(), ut = u.best.report.total.time();
        // Never more than 1% behind the unfolded search; ahead is possible, since TAPAS ranks its
        // candidate plans by their reports (which add DDP's overlap and shared weights' one cost).
        QVERIFY2(tt <= ut * 1.01, qPrintable(QStringLiteral("tapas %1 vs unfolded %2").arg(tt).arg(ut)));
    }

    // The fold tree shows the tied head as one repeat of 3, but each level's shapes are a block
    // class of their own: the search builds a table per shape and matches the unfolded search.
    void tied_head_of_other_shapes_is_searched_per_shape()
    {
        const Graph g = tapas::testing::tiedHeadOnThreeLevels();
        Result<FoldedGraph> fg = foldGraph(g);
        QVERIFY(fg.ok());
        const std::vector<int> outer = fg->tree.outerRepeats();
        QCOMPARE(outer.size(), size_t(1));
        QCOMPARE(fg->tree.classes[size_t(outer.front())].instances.size(), size_t(3));
        const std::vector<int> perShape = fg->blockClassesOf(outer.front());
        QCOMPARE(perShape.size(), size_t(3));
        for (const char* mesh : {"1x8", "2x4"}) {
            const SearchResult t = run("tapas", g, "a100x8", mesh);
            const SearchResult u = run("unfolded", g, "a100x8", mesh);
            QVERIFY2(t.uniqueBlocksSearched >= int(perShape.size()), qPrintable(QString::number(t.uniqueBlocksSearched)));
            const double tt = t.best.report.total.time(), ut = u.best.report.total.time();
            QVERIFY2(std::abs(tt - ut) <= 0.01 * ut, qPrintable(QStringLiteral("%1: tapas %2 vs unfolded %3").arg(mesh).arg(tt).arg(ut)));
        }
    }

    void class_tables_are_reused_across_depth()
    {
        const SearchResult shallow = run("tapas", zoo("gpt", transformer(4, 256, 4, 64, 8)), "a100x8", "2x4");
        const SearchResult deep = run("tapas", zoo("gpt", transformer(32, 256, 4, 64, 8)), "a100x8", "2x4");
        QVERIFY(shallow.uniqueBlocksSearched > 0);
        QCOMPARE(deep.uniqueBlocksSearched, shallow.uniqueBlocksSearched);
        const SearchResult unfolded = run("unfolded", zoo("gpt", transformer(32, 256, 4, 64, 8)), "a100x8", "2x4");
        QCOMPARE(unfolded.uniqueBlocksSearched, 1);
    }

    // One row per model family: four zoo families and the four shared real exports (a missing
    // export skips its row only).
    void plans_pass_the_checker_on_every_model_family_data()
    {
        QTest::addColumn<QString>("model");
        for (const char* m : {"t5", "vit", "resnet50", "moe", "resnet18.onnx", "mobilenet_v2.onnx",
                              "bert_mini_4l.onnx", "ch_ppocr_mobile_v2.0_cls_infer.onnx"})
            QTest::newRow(m) << QString::fromLatin1(m);
    }

    void plans_pass_the_checker_on_every_model_family()
    {
        QFETCH(QString, model);
        const std::string name = model.toStdString();
        Graph g;
        if (model.endsWith(QLatin1String(".onnx"))) {
            TAPAS_NEEDS_SHARED_MODEL(model);
            // The workload: each of the model's own dims bound (a --dim it lacks is an error).
            const DimBindings workload = {{"batch", 8},           {"batch_size", 8},
                                          {"seq", 64},            {"sequence", 64},
                                          {"p2o.DynamicDimension.0", 8}, {"p2o.DynamicDimension.1", 48},
                                          {"p2o.DynamicDimension.2", 192}};
            Result<Graph> open = importOnnxFile(tapas::testing::sharedModelPath(name));
            QVERIFY2(open.ok(), open.error().c_str());
            ImportOptions io;
            io.probeBatch = true;
            for (const std::string& d : open->symbolicDims())
                if (workload.count(d)) io.dims[d] = workload.at(d);
            Result<Graph> imported = importOnnxFile(tapas::testing::sharedModelPath(name), io);
            QVERIFY2(imported.ok(), imported.error().c_str());
            g = std::move(imported).value();
        } else {
            ZooOptions o;
            if (name == "vit" || name == "resnet50") {
                o.batch = 8;
            } else if (name == "t5") {
                o = transformer(2, 256, 4, 64, 8);
                o.decoderLayers = 2;
            } else {
                o = transformer(4, 256, 4, 64, 8);
                o.experts = 4;
            }
            g = zoo(name, o);
        }
        // A model exported with batch 1 cannot be split over data-parallel replicas.
        const std::string mesh = checkBatchSplit(g, {2, 4}).ok() ? "2x4" : "1x8";
        for (const char* searcher : {"tapas", "megatron", "dp"}) {
            if (std::string(searcher) == "dp" && !checkBatchSplit(g, {8, 1}).ok()) continue;
            const SearchResult r = run(searcher, g, "a100x8", mesh);
            Status ok = checkPlan(g, r.best.plan);
            QVERIFY2(ok.ok(), qPrintable(QString::fromStdString(name + " / " + searcher + ": " + ok.error)));
            QVERIFY(r.best.report.total.time() > 0);
        }
        // On models Megatron has no recipe for, the search (over every mesh, 8x1 included) still
        // beats or ties pure data parallelism.
        if (checkBatchSplit(g, {8, 1}).ok()) {
            SearchRequest req;
            req.graph = &g;
            req.cluster = *loadClusterSpec("a100x8");
            const Result<SearchResult> swept = searchBestMesh(*findSearcher("tapas"), req, enumerateMeshes(req.cluster, true));
            QVERIFY2(swept.ok(), swept.error().c_str());
            QVERIFY(swept->best.report.total.time() <= run("dp", g, "a100x8", mesh).best.report.total.time() * (1 + 1e-9));
        }
    }

    void runner_ups_are_no_better_than_the_best()
    {
        const Graph g = zoo("gpt", transformer(2, 512, 8, 128, 8));
        SearchRequest r;
        r.graph = &g;
        r.cluster = *loadClusterSpec("a100x8");
        r.mesh = {1, 8};
        r.runnerUps = 3;
        const SearchResult res = *findSearcher("tapas")->search(r);
        QVERIFY(!res.runnerUps.empty());
        for (const PlanCandidate& c : res.runnerUps) {
            QVERIFY(c.report.total.time() >= res.best.report.total.time() - 1e-12);
            QVERIFY(checkPlan(g, c.plan).ok());
        }
    }

    void memory_limit_is_respected_or_reported_infeasible()
    {
        const Graph g = zoo("gpt", transformer(4, 1024, 16, 512, 8));
        SearchRequest r;
        r.graph = &g;
        r.cluster = *loadClusterSpec("a100x8");
        r.mesh = {1, 8};
        const SearchResult free = *findSearcher("tapas")->search(r);
        r.memoryLimit = free.best.report.total.memory() * 0.999; // the fastest plan no longer fits
        const SearchResult tight = *findSearcher("tapas")->search(r);
        // A leaner, slower plan exists (more of the weights sharded, fewer activations kept).
        QVERIFY(tight.feasible);
        QVERIFY(tight.best.report.total.memory() <= r.memoryLimit);
        QVERIFY(tight.best.report.total.time() >= free.best.report.total.time() * (1 - 1e-9));
        r.memoryLimit = 1; // nothing fits
        const SearchResult none = *findSearcher("tapas")->search(r);
        QVERIFY(!none.feasible);
        QVERIFY(none.best.report.total.memory() > 1);
    }

    void heads_not_divisible_by_tp_are_reported()
    {
        const Graph g = zoo("gpt", transformer(2, 768, 12, 64, 8)); // 12 heads
        const SearchResult r = run("tapas", g, "a100x8", "1x8");
        const bool said = std::any_of(r.warnings.begin(), r.warnings.end(), [](const std::string& w) {
            return w.find("12 attention heads are not divisible by the tensor-parallel degree 8") != std::string::npos;
        });
        QVERIFY(said);
        QVERIFY(checkPlan(g, r.best.plan).ok());
        const SearchResult ok = run("tapas", g, "a100x8", "2x4");
        QVERIFY(std::none_of(ok.warnings.begin(), ok.warnings.end(),
                             [](const std::string& w) { return w.find("heads") != std::string::npos; }));
    }

    // Megatron-LM gives each rank num_attention_heads / tp heads and asserts they divide.
    void megatron_refuses_a_degree_that_does_not_divide_the_heads()
    {
        const Graph g = zoo("gpt", transformer(2, 768, 12, 64, 8)); // 12 heads
        SearchRequest r;
        r.graph = &g;
        r.cluster = *loadClusterSpec("a100x8");
        r.mesh = {1, 8};
        const Result<SearchResult> m = findSearcher("megatron")->search(r);
        QVERIFY(!m.ok());
        QVERIFY2(m.error().find("8 does not divide the 12 heads") != std::string::npos, m.error().c_str());
        QVERIFY2(m.error().find("Reshape") != std::string::npos, m.error().c_str()); // names the node
        r.mesh = {2, 4};
        QVERIFY(findSearcher("megatron")->search(r).ok());
        // torch's nn.MultiheadAttention writes the heads as [seq, batch*heads, head_dim]: found too.
        TAPAS_NEEDS_SHARED_MODEL("bert_mini_4l.onnx");
        ImportOptions io;
        io.dims = {{"batch", 8}, {"seq", 64}};
        const Result<Graph> bert = importOnnxFile(tapas::testing::sharedModelPath("bert_mini_4l.onnx"), io);
        QVERIFY2(bert.ok(), bert.error().c_str());
        const std::optional<AttentionHeads> h = attentionHeads(*bert);
        QVERIFY(h.has_value());
        QCOMPARE(h->heads, int64_t(4));
    }

    // Megatron-LM pads the vocabulary to a multiple of 128 x tp, so GPT-2's 50,257 tokens split
    // over tp: the word embedding runs vocabulary-parallel and the tied head column-parallel; the
    // position table (indexed by positions, not by the input ids) stays replicated.
    void megatron_pads_the_vocabulary_and_splits_the_word_embedding_only()
    {
        QCOMPARE(megatronPaddedVocab(50257, 1), int64_t(50304));
        QCOMPARE(megatronPaddedVocab(50257, 4), int64_t(50688));
        QCOMPARE(megatronPaddedVocab(50257, 8), int64_t(51200));
        QCOMPARE(megatronPaddedVocab(1024, 8), int64_t(1024));
        ZooOptions o = transformer(2, 256, 8, 64, 8);
        o.vocab = 50257;
        const Graph g = zoo("gpt", o);
        const NodeId wte = g.tensor(g.findTensor("transformer.wte.weight")).consumers.front();
        QCOMPARE(wordEmbedding(g), wte);
        int64_t vocab = 0;
        const Graph padded = megatronPaddedGraph(g, 4, &vocab);
        QCOMPARE(vocab, int64_t(50257));
        QCOMPARE(padded.tensor(padded.findTensor("transformer.wte.weight")).shape.dims[0].value, int64_t(50688));
        QCOMPARE(padded.tensor(padded.outputs[0]).shape.dims[2].value, int64_t(50688)); // the logits follow
        QCOMPARE(g.tensor(g.outputs[0]).shape.dims[2].value, int64_t(50257));           // the model is untouched
        const SearchResult m = run("megatron", g, "a100x8", "2x4");
        QCOMPARE(m.best.plan.nodes[size_t(wte)].name, std::string("vocab"));
        const NodeId wpe = g.tensor(g.findTensor("transformer.wpe.weight")).consumers.front();
        QCOMPARE(m.best.plan.nodes[size_t(wpe)].name, std::string("replicate"));
        NodeId head = kNoNode;
        for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n)
            if (g.node(n).opType == "MatMul" && inScope(g, n, "lm_head")) head = n;
        QVERIFY(head != kNoNode);
        QCOMPARE(m.best.plan.nodes[size_t(head)].name, std::string("column"));
        // Unpadded, 50,257 rows do not split 4 ways and the table stayed whole.
        QVERIFY(!splitsEvenly(g, g.findTensor("transformer.wte.weight"), 0, 4, 2));
    }

    // GPT-2's vocabulary on tp 8. Megatron's baseline is costed on its padded vocabulary (50,257
    // -> 51,200 rows), where the word table splits over its rows. As given, 50,257 rows do not
    // split 8 ways, so that space has neither the vocabulary-parallel lookup nor the column-
    // parallel tied head, and its best plan split the table over the hidden dim and all-reduced
    // the head's partial logits (zoo GPT, 12 layers at GPT-3 width, a100x8 1x8: 1939.1 against
    // Megatron's 1932.8 ms; this 1-layer model: 0.534 against 0.511 ms). TAPAS now also searches
    // the table padded to the next multiple of tp (7 rows), keeps the faster plan and says so in
    // it: the plan checks against the model as given, and is the one TAPAS finds on a model
    // exported with 50,264 rows (so the gain is the padding, not the stitch or the cost model).
    void tapas_pads_the_word_table_to_split_it_over_tp_and_beats_megatron()
    {
        ZooOptions o = transformer(1, 512, 8, 64, 8);
        o.vocab = 50257;
        const Graph g = zoo("gpt", o);
        const NodeId lookup = wordEmbedding(g);
        QVERIFY(lookup != kNoNode);
        const TensorId wte = g.findTensor("transformer.wte.weight");
        QVERIFY(!splitsEvenly(g, wte, 0, 8, 1));
        for (const OpStrategy& s : nodeStrategies(g, lookup, 8))
            QVERIFY2(s.inputs[0] != TensorLayout::split(0), s.name.c_str()); // no vocabulary split offered as given
        const SearchResult m = run("megatron", g, "a100x8", "1x8");
        QCOMPARE(m.best.plan.nodes[size_t(lookup)].name, std::string("vocab"));
        const SearchResult t = run("tapas", g, "a100x8", "1x8");
        QCOMPARE(t.best.plan.padding.size(), size_t(1));
        QVERIFY(t.best.plan.padding[0] == (TablePadding{wte, 50257, 50264}));
        QVERIFY(t.best.plan.nodes[size_t(lookup)].inputs[0] == TensorLayout::split(0)); // Megatron's choice, found
        const double tt = t.best.report.total.time(), mt = m.best.report.total.time();
        QVERIFY2(tt <= mt * (1 + 1e-9), qPrintable(QStringLiteral("tapas %1 ms > megatron %2 ms").arg(tt * 1e3).arg(mt * 1e3)));
        const Status checked = checkPlan(g, t.best.plan);
        QVERIFY2(checked.ok(), checked.error.c_str());
        // Without its padding the plan is refused on the model as given: the split needs it.
        ShardingPlan unpadded = t.best.plan;
        unpadded.padding.clear();
        QVERIFY(!checkPlan(g, unpadded).ok());
        // The unfolded search considers the padding too and finds the same step (the stitch's check).
        QCOMPARE(run("unfolded", g, "a100x8", "1x8").best.report.total.time(), tt);

        o.vocab = 50264; // the same table exported padded: nothing to pad, the same plan
        const Graph padded = zoo("gpt", o);
        QCOMPARE(wordEmbedding(padded), lookup);
        const SearchResult p = run("tapas", padded, "a100x8", "1x8");
        QVERIFY(p.best.plan.padding.empty());
        QCOMPARE(p.best.report.total.time(), tt);
        QVERIFY(checkPlan(padded, p.best.plan).ok());
        // tp 1 pads nothing (every row count splits one way).
        QVERIFY(run("tapas", g, "a100x8", "8x1").best.plan.padding.empty());
    }

    // The padding a plan carries is checked against the model, naming the tensor.
    void plan_padding_that_is_not_needed_not_a_multiple_or_not_a_table_is_refused()
    {
        ZooOptions o = transformer(1, 256, 8, 32, 8);
        o.vocab = 1001;
        const Graph g = zoo("gpt", o);
        const TensorId wte = g.findTensor("transformer.wte.weight");
        SearchResult t = run("tapas", g, "a100x8", "1x8");
        t.best.plan.padding = {{wte, 1001, 1008}}; // whichever plan the search chose: a valid padding
        const Status fine = checkPlan(g, t.best.plan);
        QVERIFY2(fine.ok(), fine.error.c_str());
        const auto refused = [&](TablePadding p, const char* says) {
            ShardingPlan bad = t.best.plan;
            bad.padding = {p};
            const Status s = checkPlan(g, bad);
            QVERIFY2(!s.ok(), says);
            QVERIFY2(s.error.find(says) != std::string::npos, s.error.c_str());
            QVERIFY2(s.error.find("'" + g.tensor(p.table).name + "'") != std::string::npos, s.error.c_str());
        };
        refused({wte, 1001, 1004}, "multiple of tp 8");
        refused({wte, 1000, 1008}, "for 1000 rows, but the model's table has 1001");
        const TensorId wpe = g.findTensor("transformer.wpe.weight"); // its positions split 8 ways already
        QVERIFY(wpe != kNoTensor && isLookupTable(g, wpe));
        const int64_t positions = g.tensor(wpe).shape.dims[0].value;
        QCOMPARE(positions % 8, int64_t(0));
        refused({wpe, positions, positions + 8}, "not needed");
        TensorId matrix = kNoTensor; // a weight no Gather reads
        for (TensorId x = 0; x < TensorId(g.tensors.size()) && matrix == kNoTensor; ++x)
            if (g.tensor(x).isParameter() && g.tensor(x).shape.rank() == 2 && !isLookupTable(g, x)) matrix = x;
        QVERIFY(matrix != kNoTensor);
        refused({matrix, g.tensor(matrix).shape.dims[0].value, g.tensor(matrix).shape.dims[0].value + 8}, "not a lookup table");
    }

    // With a symbolic sequence the zoo GPT sizes its heads through Shape nodes and splits its
    // packed QKV with a Split: Megatron-LM splits QKV locally and never gathers an activation to
    // read its shape, so a layer's only collectives are its two row-parallel all-reduces.
    void megatron_splits_packed_qkv_locally_and_never_gathers_for_a_shape()
    {
        ZooOptions o = transformer(2, 256, 8, -1, -1);
        const Result<std::string> bytes = buildZooModel("gpt", o);
        QVERIFY2(bytes.ok(), bytes.error().c_str());
        ImportOptions io;
        io.dims = {{"batch", 8}, {"seq", 128}};
        const Result<Graph> g = importOnnxBytes(*bytes, "zoo:gpt", ".", io);
        QVERIFY2(g.ok(), g.error().c_str());
        int shapes = 0;
        for (const Node& n : g->nodes) shapes += n.opType == "Shape" && n.scope.find("/h.") != std::string::npos;
        QVERIFY(shapes > 0);
        const SearchResult m = run("megatron", *g, "a100x8", "2x4");
        int layerCollectives = 0;
        for (const Reshard& r : m.best.plan.reshards) {
            const std::string& t = g->tensor(r.tensor).name;
            if (t.find("/h.") == std::string::npos) continue;
            ++layerCollectives;
            QVERIFY2(r.forward == CollectiveKind::AllReduce && r.from.kind == TensorLayout::P && t.find("c_proj") != std::string::npos,
                     qPrintable(QString::fromStdString(t + ": " + r.from.toString() + " -> " + r.to.toString())));
        }
        QCOMPARE(layerCollectives, 2 * 2); // attention-out and MLP-down, in each of 2 layers
        QVERIFY(checkPlan(*g, m.best.plan).ok());
    }

    void model_that_fits_nowhere_gets_its_need_and_a_device_count()
    {
        // Batch 64, so that data parallelism can grow with the device count (dp must divide it).
        const Graph g = zoo("gpt", transformer(8, 2048, 16, 256, 64));
        SearchRequest r;
        r.graph = &g;
        r.cluster = *loadClusterSpec("a100x8");
        r.mesh = {1, 8};
        const SearchResult lean = *findSearcher("tapas")->search(r);
        r.memoryLimit = lean.best.report.total.memory() / 3; // a third of what the best plan on 8 needs
        Result<FitAdvice> a = adviseFit(*findSearcher("tapas"), r);
        QVERIFY2(a.ok(), a.error().c_str());
        QVERIFY(a->bytesPerDevice > r.memoryLimit);
        QVERIFY(a->devices > 8);
        QCOMPARE(a->devices % 8, 0);
        // It fits on that many devices, and not on one node fewer.
        SearchRequest more = r;
        more.cluster.nodes = a->devices / 8;
        more.mesh = a->mesh;
        QVERIFY(findSearcher("tapas")->search(more)->feasible);
        more.cluster.nodes = a->devices / 8 - 1; // at least one node: devices > 8 above
        more.mesh = {1, more.cluster.deviceCount()};
        QVERIFY(!findSearcher("tapas")->search(more)->feasible);
    }

    void ilp_equals_brute_force_on_a_tiny_graph()
    {
        const Graph g = twoLayerMlp();
        ClusterSpec c = *loadClusterSpec("a100x8");
        c.intraNode.latency = 0; // let bytes, not latency, decide
        SearchRequest r;
        r.graph = &g;
        r.cluster = c;
        r.mesh = {2, 4};
        Result<SearchResult> ilp = findSearcher("ilp")->search(r);
        if (!ilp && ilp.error().find("no MILP solver") != std::string::npos) QSKIP("built without CBC");
        QVERIFY2(ilp.ok(), ilp.error().c_str());
        QVERIFY(ilp->optimal);
        // Every combination of strategies, evaluated by the same cost model.
        CostModel model(g, c, r.mesh);
        std::vector<std::vector<OpStrategy>> all;
        for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n) all.push_back(nodeStrategies(g, n, 4));
        double best = 1e300;
        std::vector<size_t> pick(all.size(), 0);
        for (;;) {
            std::vector<OpStrategy> s;
            for (size_t n = 0; n < all.size(); ++n) s.push_back(all[n][pick[n]]);
            best = std::min(best, evaluatePlan(buildPlan(g, r.mesh, s), model).total.time());
            size_t k = 0;
            while (k < pick.size() && ++pick[k] == all[k].size()) pick[k++] = 0;
            if (k == pick.size()) break;
        }
        const double got = ilp->best.report.total.time();
        QVERIFY2(std::abs(got - best) <= 1e-9 * best, qPrintable(QStringLiteral("ilp %1 vs brute force %2").arg(got).arg(best)));
        QVERIFY(checkPlan(g, ilp->best.plan).ok());
        // TAPAS reaches the same optimum here.
        const double tapas = findSearcher("tapas")->search(r)->best.report.total.time();
        QVERIFY2(std::abs(tapas - best) <= 1e-9 * best, qPrintable(QStringLiteral("tapas %1 vs brute force %2").arg(tapas).arg(best)));
    }

    // The ILP's objective is the report's total (DDP's buckets and overlap, a shared weight's
    // one cost are rows of the program), so where CBC proves an optimum TAPAS's plan costs
    // exactly that; an unproven incumbent is still an upper bound TAPAS must not exceed.
    void tapas_equals_the_ilp_optimum_data()
    {
        QTest::addColumn<int>("layers");
        QTest::addColumn<int>("hidden");
        QTest::addColumn<QString>("mesh");
        QTest::newRow("2 layers of 512, 2x4 (one DDP bucket)") << 2 << 512 << "2x4";
        QTest::newRow("2 layers of 512, 1x8") << 2 << 512 << "1x8";
        QTest::newRow("2 layers of 1536, 4x2 (3 DDP buckets)") << 2 << 1536 << "4x2";
        QTest::newRow("2 layers of 1536, 8x1") << 2 << 1536 << "8x1";
    }

    void tapas_equals_the_ilp_optimum()
    {
        QFETCH(int, layers);
        QFETCH(int, hidden);
        QFETCH(QString, mesh);
        const Graph g = zoo("gpt", transformer(layers, hidden, 8, 128, 8));
        SearchRequest r;
        r.graph = &g;
        r.cluster = *loadClusterSpec("a100x8");
        r.mesh = *parseMesh(mesh.toStdString());
        r.ilpTimeLimit = 60;
        Result<SearchResult> ilp = findSearcher("ilp")->search(r);
        if (!ilp && ilp.error().find("no MILP solver") != std::string::npos) QSKIP("built without CBC");
        QVERIFY2(ilp.ok(), ilp.error().c_str());
        const double opt = ilp->best.report.total.time();
        const double tapas = run("tapas", g, "a100x8", mesh.toStdString()).best.report.total.time();
        qInfo("ilp %.9g s (objective %.9g, optimal %d, %.2f s to solve), tapas %.9g s", opt, ilp->solverObjective,
              int(ilp->optimal), ilp->searchSeconds, tapas);
        QVERIFY(checkPlan(g, ilp->best.plan).ok());
        QVERIFY2(std::abs(ilp->solverObjective - opt) <= 1e-6 * opt,
                 qPrintable(QStringLiteral("ilp objective %1 vs its report %2").arg(ilp->solverObjective).arg(opt)));
        QVERIFY2(tapas <= opt * (1 + 1e-6), qPrintable(QStringLiteral("tapas %1 vs ILP %2").arg(tapas).arg(opt)));
        QVERIFY(ilp->optimal);
        QVERIFY2(std::abs(tapas - opt) <= 1e-6 * opt, qPrintable(QStringLiteral("tapas %1 vs ILP optimum %2").arg(tapas).arg(opt)));
    }

    void fixed_strategies_survive_every_searcher_and_the_plan_checks()
    {
        const Graph g = zoo("gpt", transformer(3, 2048, 16, 256, 2));
        NodeId up0 = kNoNode, up1 = kNoNode, up2 = kNoNode;
        for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n) {
            if (g.node(n).opType != "MatMul") continue;
            if (inScope(g, n, "h.0/mlp/c_fc")) up0 = n;
            if (inScope(g, n, "h.1/mlp/c_fc")) up1 = n;
            if (inScope(g, n, "h.2/mlp/c_fc")) up2 = n;
        }
        QVERIFY(up0 != kNoNode && up1 != kNoNode && up2 != kNoNode);
        SearchRequest r;
        r.graph = &g;
        r.cluster = *loadClusterSpec("a100x8");
        r.mesh = {1, 8};
        r.ilpTimeLimit = 60;
        // Unpinned, the MLP-up products are column-parallel in every layer.
        const SearchResult free = *findSearcher("tapas")->search(r);
        QCOMPARE(free.best.plan.nodes[size_t(up1)].name, std::string("column"));
        // Pin the middle layer's (a later instance of the class) and the first layer's.
        r.fixed = {{up1, "replicate"}, {up0, "row"}};
        for (const char* name : {"tapas", "unfolded", "ilp", "megatron"}) {
            Result<SearchResult> res = findSearcher(name)->search(r);
            if (!res && res.error().find("no MILP solver") != std::string::npos) continue;
            QVERIFY2(res.ok(), res.error().c_str());
            const ShardingPlan& p = res->best.plan;
            QVERIFY2(p.nodes[size_t(up1)].name == "replicate", name);
            QVERIFY2(p.nodes[size_t(up0)].name == "row", name);
            const Status ok = checkPlan(g, p);
            QVERIFY2(ok.ok(), qPrintable(QString::fromStdString(std::string(name) + ": " + ok.error)));
            for (const PlanCandidate& c : res->runnerUps) QCOMPARE(c.plan.nodes[size_t(up1)].name, std::string("replicate"));
            // For TAPAS the pins cost time: never faster than its free plan.
            if (std::string(name) == "tapas") QVERIFY(res->best.report.total.time() >= free.best.report.total.time() * (1 - 1e-9));
        }
        // The class's other instance is still searched freely.
        const SearchResult pinned = *findSearcher("tapas")->search(r);
        QCOMPARE(pinned.best.plan.nodes[size_t(up2)].name, std::string("column"));
        // A strategy the node does not offer is reported, a node the model lacks is an error.
        r.fixed = {{up1, "diagonal"}};
        const SearchResult odd = *findSearcher("tapas")->search(r);
        QVERIFY(std::any_of(odd.warnings.begin(), odd.warnings.end(),
                            [](const std::string& w) { return w.find("fixed strategy 'diagonal'") != std::string::npos; }));
        r.fixed = {{NodeId(g.nodes.size() + 5), "row"}};
        Result<SearchResult> bad = findSearcher("tapas")->search(r);
        QVERIFY(!bad.ok());
        QVERIFY2(bad.error().find("#" + std::to_string(g.nodes.size() + 5)) != std::string::npos, bad.error().c_str());
    }

    void mesh_with_more_replicas_than_samples_is_refused()
    {
        const Graph g = zoo("gpt", transformer(2, 256, 4, 64, 8)); // batch 8
        SearchRequest r;
        r.graph = &g;
        r.cluster = *loadClusterSpec("h100x16");
        r.mesh = {16, 1};
        for (const char* name : {"tapas", "dp"}) {
            Result<SearchResult> res = findSearcher(name)->search(r);
            QVERIFY(!res.ok());
            QVERIFY2(res.error().find("does not divide the batch 8") != std::string::npos, res.error().c_str());
        }
        r.mesh = {2, 8};
        QVERIFY(findSearcher("tapas")->search(r).ok());
    }

    void ilp_time_limit_covers_model_building()
    {
        const Graph g = zoo("gpt", transformer(24, 512, 8, 128, 8));
        SearchRequest r;
        r.graph = &g;
        r.cluster = *loadClusterSpec("a100x8");
        r.mesh = {1, 8};
        r.ilpTimeLimit = 0.05;
        const auto start = std::chrono::steady_clock::now();
        Result<SearchResult> res = findSearcher("ilp")->search(r);
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (!res && res.error().find("no MILP solver") != std::string::npos) QSKIP("built without CBC");
        if (res) QVERIFY(res->timeLimitHit || res->optimal);
        else QVERIFY2(res.error().find("time limit") != std::string::npos, res.error().c_str());
        // Building stops once the limit is spent: the overshoot is one chunk of work, not the whole model.
        QVERIFY2(wall < 2.0, qPrintable(QStringLiteral("ilp ran %1 s with a 0.05 s limit").arg(wall)));
    }

    // Search time is linear in the chain's length: a 200k-node Relu chain's CPU time per node is
    // within 2x of a 25k chain's (a quadratic part makes it 8x; the fold's made it 60 s at 200k).
    // The absolute figure (under 2 s) is a target of `tapas bench search --chain`, not of a test.
    void long_chain_searches_in_linear_time()
    {
        auto best = [&](int64_t n) {
            const Graph g = testing::reluChain(n, {8, 1024});
            SearchRequest r;
            r.graph = &g;
            r.cluster = *loadClusterSpec("a100x8");
            r.mesh = {1, 8};
            double t = 1e30;
            for (int i = 0; i < 2; ++i) {
                const double start = threadCpuSeconds();
                Result<SearchResult> res = findSearcher("tapas")->search(r);
                t = std::min(t, threadCpuSeconds() - start);
                if (!res) qFatal("chain of %lld: %s", (long long)n, res.error().c_str());
                if (res->best.plan.nodes.size() != size_t(n)) qFatal("chain of %lld: plan of the wrong size", (long long)n);
            }
            return t;
        };
        const double small = best(25000), large = best(200000);
        qInfo("TAPAS on a Relu chain: 25k nodes %.3f s, 200k nodes %.3f s (CPU)", small, large);
        QVERIFY2(large / 8 < 2 * small, qPrintable(QStringLiteral("%1 s per 25k nodes at 200k vs %2 s at 25k").arg(large / 8).arg(small)));
    }

    void cancel_and_bad_mesh_are_errors()
    {
        const Graph g = zoo("gpt", transformer(4, 256, 4, 64, 8));
        SearchRequest r;
        r.graph = &g;
        r.cluster = *loadClusterSpec("a100x8");
        r.mesh = {3, 2};
        Result<SearchResult> bad = findSearcher("tapas")->search(r);
        QVERIFY(!bad.ok());
        QVERIFY2(bad.error().find("3x2") != std::string::npos, bad.error().c_str());
        r.mesh = {2, 4};
        std::atomic<bool> cancel{true};
        r.progress.cancel = &cancel;
        Result<SearchResult> cancelled = findSearcher("tapas")->search(r);
        QVERIFY(!cancelled.ok());
        QVERIFY(cancelled.error().find("cancel") != std::string::npos);
        cancel = false;
        int reports = 0;
        r.progress.report = [&](double, std::string_view) { ++reports; };
        QVERIFY(findSearcher("tapas")->search(r).ok());
        QVERIFY(reports > 0);
    }
};

QTEST_GUILESS_MAIN(TstSearch)
#include "tst_search.moc"
