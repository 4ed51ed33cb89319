// Forward FLOPs and bytes per op (core/ops), on graphs built in memory with the shapes filled by
// our own pass, plus the whole-model figure of the real resnet18 export.
#include "core/onnx/onnx_importer.h"
#include "core/ops/op_registry.h"
#include "core/ops/shape_fill.h"
#include "core/shard/op_sharding.h"
#include "op_test_graph.h"
#include "tests/common/shared_models.h"

#include <QtTest>

using namespace tapas;
using namespace tapas::testing;

namespace {
// Cost of the node producing `t` after the shape pass has run.
OpCost costOf(TestGraph& tg, TensorId t)
{
    fillMissingShapes(tg.g);
    return nodeCost(tg.g, tg.g.node(tg.g.tensor(t).producer));
}
} // namespace

class TstOpCosts : public QObject {
    Q_OBJECT
private slots:
    void matmul_flops_are_two_m_n_k_over_the_batch()
    {
        TestGraph tg;
        const TensorId y = tg.op("MatMul", {tg.input("x", Shape::of({2, 128, 768})), tg.weight("w", Shape::of({768, 3072}))});
        const OpCost c = costOf(tg, y);
        QCOMPARE(c.flops, 2.0 * 2 * 128 * 768 * 3072);
        QCOMPARE(c.bytesRead, 4.0 * (2 * 128 * 768 + 768 * 3072));
        QCOMPARE(c.bytesWritten, 4.0 * 2 * 128 * 3072);
    }

    void batched_attention_matmul_counts_every_head()
    {
        TestGraph tg;
        const TensorId q = tg.input("q", Shape::of({2, 12, 128, 64}));
        const TensorId k = tg.input("k", Shape::of({2, 12, 64, 128}));
        QCOMPARE(costOf(tg, tg.op("MatMul", {q, k})).flops, 2.0 * 2 * 12 * 128 * 128 * 64);
    }

    void gemm_flops_honour_transposes_and_add_the_bias()
    {
        TestGraph tg;
        const TensorId y = tg.op("Gemm", {tg.input("a", Shape::of({32, 512})), tg.weight("w", Shape::of({1000, 512})),
                                          tg.weight("b", Shape::of({1000}))},
                                 {intAttr("transB", 1)});
        QCOMPARE(costOf(tg, y).flops, 2.0 * 32 * 1000 * 512 + 32 * 1000);
        TestGraph t2;
        const TensorId z = t2.op("Gemm", {t2.input("a", Shape::of({512, 32})), t2.weight("w", Shape::of({512, 1000}))},
                                 {intAttr("transA", 1)});
        QCOMPARE(costOf(t2, z).flops, 2.0 * 32 * 1000 * 512);
    }

    void resnet_stem_conv_flops_are_exact()
    {
        const int64_t n = 2;
        TestGraph tg;
        const TensorId x = tg.input("x", Shape::of({n, 3, 224, 224}));
        const std::vector<Attribute> attrs = {intsAttr("kernel_shape", {7, 7}), intsAttr("strides", {2, 2}), intsAttr("pads", {3, 3, 3, 3})};
        const TensorId y = tg.op("Conv", {x, tg.weight("w", Shape::of({64, 3, 7, 7}))}, attrs);
        const TensorId yb = tg.op("Conv", {x, tg.weight("w2", Shape::of({64, 3, 7, 7})), tg.weight("b", Shape::of({64}))}, attrs);
        QCOMPARE(costOf(tg, y).flops, 2.0 * 64 * 112 * 112 * 3 * 49 * n);
        QCOMPARE(costOf(tg, yb).flops, 2.0 * 64 * 112 * 112 * 3 * 49 * n + double(n) * 64 * 112 * 112);
    }

    void depthwise_conv_counts_one_input_channel_per_group()
    {
        TestGraph tg;
        const TensorId y = tg.op("Conv", {tg.input("x", Shape::of({1, 32, 112, 112})), tg.weight("w", Shape::of({32, 1, 3, 3}))},
                                 {intAttr("group", 32), intsAttr("pads", {1, 1, 1, 1})});
        QCOMPARE(costOf(tg, y).flops, 2.0 * 32 * 112 * 112 * 1 * 9);
    }

    void conv_transpose_flops_scatter_each_input_through_the_kernel()
    {
        TestGraph tg;
        const TensorId y = tg.op("ConvTranspose", {tg.input("x", Shape::of({4, 512, 4, 4})), tg.weight("w", Shape::of({512, 256, 4, 4}))},
                                 {intsAttr("strides", {2, 2}), intsAttr("pads", {1, 1, 1, 1})});
        QCOMPARE(costOf(tg, y).flops, 2.0 * 4 * 512 * 4 * 4 * 256 * 16);
    }

    void elementwise_costs_one_per_output_and_more_for_transcendentals()
    {
        TestGraph tg;
        const TensorId x = tg.input("x", Shape::of({8, 1024}));
        const TensorId add = tg.op("Add", {x, tg.weight("b", Shape::of({1024}))});
        const TensorId relu = tg.op("Relu", {x});
        const TensorId erf = tg.op("Erf", {x});
        const TensorId cast = tg.op("Cast", {x}, {intAttr("to", 10)});
        QCOMPARE(costOf(tg, add).flops, 8.0 * 1024);
        QCOMPARE(costOf(tg, relu).flops, 8.0 * 1024);
        QVERIFY(costOf(tg, erf).flops > costOf(tg, relu).flops);
        QCOMPARE(costOf(tg, cast).flops, 0.0);
        QCOMPARE(costOf(tg, cast).bytesWritten, 2.0 * 8 * 1024); // float16 out
    }

    void normalisation_softmax_reduction_and_pool_costs()
    {
        TestGraph tg;
        const TensorId x = tg.input("x", Shape::of({4, 128, 768}));
        const double e = 4.0 * 128 * 768;
        QCOMPARE(costOf(tg, tg.op("Softmax", {x})).flops, 5 * e);
        QCOMPARE(costOf(tg, tg.op("LayerNormalization", {x, tg.weight("g", Shape::of({768}))})).flops, 8 * e);
        QCOMPARE(costOf(tg, tg.op("ReduceMean", {x}, {intsAttr("axes", {-1})})).flops, e);
        const TensorId img = tg.input("img", Shape::of({1, 64, 112, 112}));
        const TensorId mp = tg.op("MaxPool", {img}, {intsAttr("kernel_shape", {3, 3}), intsAttr("strides", {2, 2}), intsAttr("pads", {1, 1, 1, 1})});
        QCOMPARE(costOf(tg, mp).flops, 9.0 * 64 * 56 * 56);
        QCOMPARE(costOf(tg, tg.op("GlobalAveragePool", {img})).flops, 64.0 * 112 * 112);
        QCOMPARE(costOf(tg, tg.op("BatchNormalization", {img, tg.weight("s", Shape::of({64})), tg.weight("bb", Shape::of({64})),
                                                         tg.weight("m", Shape::of({64})), tg.weight("v", Shape::of({64}))})).flops,
                 4.0 * 64 * 112 * 112);
    }

    void shape_ops_cost_no_flops_and_views_move_no_bytes()
    {
        TestGraph tg;
        const TensorId x = tg.input("x", Shape::of({2, 128, 768}));
        const TensorId r = tg.op("Reshape", {x, tg.ints("t", {2, 128, 12, 64})});
        const TensorId t = tg.op("Transpose", {r}, {intsAttr("perm", {0, 2, 1, 3})});
        const TensorId sh = tg.op("Shape", {x});
        const OpCost rc = costOf(tg, r), tc = costOf(tg, t), sc = costOf(tg, sh);
        QCOMPARE(rc.flops, 0.0);
        QCOMPARE(rc.bytesRead + rc.bytesWritten, 0.0);
        QCOMPARE(tc.flops, 0.0);
        QCOMPARE(tc.bytesWritten, 4.0 * 2 * 128 * 768);
        QCOMPARE(sc.bytesRead, 0.0);
        QCOMPARE(sc.bytesWritten, 8.0 * 3);
    }

    void embedding_gather_reads_only_the_looked_up_rows()
    {
        TestGraph tg;
        const TensorId ids = tg.input("ids", Shape::of({1, 4}), DType::Int64);
        const TensorId emb = tg.op("Gather", {tg.weight("table", Shape::of({30522, 768})), ids});
        const OpCost c = costOf(tg, emb);
        QCOMPARE(c.flops, 0.0);
        QCOMPARE(c.bytesRead, 4.0 * 4 * 768 + 8.0 * 4);
    }

    void unknown_ops_default_to_bytes_only_and_symbolic_dims_count_as_one()
    {
        TestGraph tg;
        const TensorId x = tg.input("x", {sym("batch"), num(10)});
        const TensorId y = tg.node("Mystery", {x}, 1, {}, "com.example")[0];
        const OpCost c = costOf(tg, y);
        QCOMPARE(c.flops, 0.0);
        QCOMPARE(c.bytesRead, 40.0);
        QCOMPARE(tensorBytes(tg.g, x), 40.0);
        const TensorId z = tg.op("Relu", {x});
        QCOMPARE(costOf(tg, z).flops, 10.0);
        bindDims(tg.g, {{"batch", 6}});
        QCOMPARE(nodeCost(tg.g, tg.g.node(tg.g.tensor(z).producer)).flops, 60.0);
    }

    // Control flow runs whole on every rank: If costs its dearer branch, Loop its body times a
    // constant trip count, and neither offers a strategy other than replicated. (The models are
    // tst_exec_kernels' torch exports in tests/data/kernels.)
    void control_flow_costs_its_bodies_and_stays_replicated()
    {
        const std::string dir = TAPAS_SOURCE_DIR "/tests/data/kernels/";
        const Result<Graph> branchy = importOnnxFile(dir + "branchy_then.onnx");
        QVERIFY2(branchy.ok(), branchy.error().c_str());
        int ifs = 0;
        for (NodeId id = 0; id < NodeId(branchy->nodes.size()); ++id) {
            const Node& n = branchy->node(id);
            if (n.opType != "If") continue;
            ++ifs;
            // Each branch is a Gemm [3,4] x [4,4] (2*3*4*4 FLOPs, bias 12) and an activation:
            // counted with the shapes the branch reads from outside, which it does not know alone.
            const double flops = nodeCost(*branchy, n).flops;
            QVERIFY2(flops >= 2.0 * 3 * 4 * 4 + 12 && flops < 4 * (2.0 * 3 * 4 * 4 + 12), std::to_string(flops).c_str());
            const auto strategies = nodeStrategies(*branchy, id, 2);
            QCOMPARE(int(strategies.size()), 1);
            for (const TensorLayout& l : strategies[0].inputs) QVERIFY(l.kind == TensorLayout::R);
        }
        QCOMPARE(ifs, 1);
        const Result<Graph> loop = importOnnxFile(dir + "loop_scan.onnx");
        QVERIFY2(loop.ok(), loop.error().c_str());
        int loops = 0;
        for (const Node& n : loop->nodes)
            if (n.opType == "Loop") { // trip count 4, each a Mul, two Adds and a Less on [3,4]
                ++loops;
                QVERIFY2(nodeCost(*loop, n).flops >= 4.0 * 3 * 12, std::to_string(nodeCost(*loop, n).flops).c_str());
            }
        QCOMPARE(loops, 1);
    }

    void resnet18_forward_is_about_3_64_gflops_at_batch_1()
    {
        TAPAS_NEEDS_SHARED_MODEL("resnet18.onnx");
        const std::string path = tapas::testing::sharedModelPath("resnet18.onnx");
        ImportOptions opt;
        opt.dims = {{"batch", 1}};
        Result<Graph> g = importOnnxFile(path, opt);
        QVERIFY2(g.ok(), g.error().c_str());
        double flops = 0, convFlops = 0;
        for (const Node& n : g->nodes) {
            const double f = nodeCost(*g, n).flops;
            flops += f;
            if (n.opType == "Conv") convFlops += f;
        }
        qInfo("resnet18 forward: %.4f GFLOPs (convolutions %.4f)", flops / 1e9, convFlops / 1e9);
        // 1.82 GMACs as torchvision and the profilers report it, a multiply-add counting 2.
        QVERIFY2(std::abs(flops - 3.64e9) / 3.64e9 < 0.02, qPrintable(QString::number(flops)));
        QVERIFY(convFlops / flops > 0.98);
    }

    void mobilenet_v2_and_ppocr_have_positive_costs_for_every_conv()
    {
        for (const char* file : {"mobilenet_v2.onnx", "ch_ppocr_mobile_v2.0_cls_infer.onnx"}) {
            TAPAS_NEEDS_SHARED_MODEL(file);
            const std::string path = tapas::testing::sharedModelPath(file);
            ImportOptions opt;
            // mobilenet_v2 was exported with its batch fixed at 1; the PaddleOCR file names its dims.
            if (std::string(file) != "mobilenet_v2.onnx")
                opt.dims = {{"p2o.DynamicDimension.0", 1}, {"p2o.DynamicDimension.1", 48}, {"p2o.DynamicDimension.2", 192}};
            Result<Graph> g = importOnnxFile(path, opt);
            QVERIFY2(g.ok(), g.error().c_str());
            for (const Node& n : g->nodes) {
                if (n.opType != "Conv") continue;
                QVERIFY2(g->tensor(n.outputs[0]).shape.isFullyKnown(), n.name.c_str());
                QVERIFY2(nodeCost(*g, n).flops > 0, n.name.c_str());
            }
        }
    }
};

QTEST_GUILESS_MAIN(TstOpCosts)
#include "tst_op_costs.moc"
