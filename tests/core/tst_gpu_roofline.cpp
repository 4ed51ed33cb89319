// The GPU roofline (core/cost/gpu_roofline.h) on the a100x8 preset with the A100's published
// roofline constants (the header's sources; the presets do not state them yet: README): a large GEMM near the
// sustained fraction of peak, small and skinny ones far below it (waves, memory), element-wise
// ops bound by their bytes, the fused chains priced as one pass, and the cost model using it
// on GPU presets while a calibrated CPU cluster keeps its measured families.
#include "core/cluster/cluster_spec.h"
#include "core/cost/cost_model.h"
#include "core/cost/gpu_roofline.h"
#include "core/cost/pipeline_cost.h"
#include "core/ops/op_registry.h"
#include "core/search/searcher.h"
#include "core/shard/op_sharding.h"
#include "tests/common/zoo_graph.h"

#include <QtTest>

using namespace tapas;

namespace {

ClusterSpec a100()
{
    Result<ClusterSpec> c = loadClusterSpec("a100x8");
    if (!c) qFatal("a100x8: %s", c.error().c_str());
    c->efficiency = kA100MamfEfficiency; // MAMF: 267.9 of 312 TFLOP/s
    c->roofline = kA100SxmRoofline;       // HBM2e, L2, SMs
    return *c;
}

GpuRoofline a100Roofline()
{
    std::optional<GpuRoofline> r = gpuRoofline(a100(), "fp16");
    if (!r) qFatal("a100x8 has no roofline");
    return *r;
}

NodeId firstOfType(const Graph& g, const std::string& type)
{
    for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n)
        if (g.node(n).opType == type) return n;
    qFatal("no %s node", type.c_str());
}

} // namespace

class TestGpuRoofline : public QObject {
    Q_OBJECT
private slots:
    void roofline_of_a_cluster_that_states_it()
    {
        const GpuRoofline r = a100Roofline();
        QCOMPARE(r.peakFlops, 312e12);
        QCOMPARE(r.memoryBandwidth, 2.039e12);
        QCOMPARE(r.multiprocessors, 108);
        QVERIFY(r.efficiency > 0.8 && r.efficiency < 0.9);
    }

    void large_gemm_is_near_the_sustained_fraction()
    {
        const GpuRoofline r = a100Roofline();
        const double f = gemmPeakFraction(r, {1, 8192, 8192, 8192});
        QVERIFY2(f <= r.efficiency && f > 0.98 * r.efficiency, qPrintable(QString::number(f)));
        // A GPT-3 layer's MLP GEMM on one tp-8 shard (2048 tokens, 12288 -> 6144) too.
        QVERIFY(gemmPeakFraction(r, {1, 2048, 6144, 12288}) > 0.9 * r.efficiency);
    }

    void small_and_skinny_gemms_are_far_below()
    {
        const GpuRoofline r = a100Roofline();
        // 16 rows: each weight byte is used 16 times; reading the 4096 x 4096 matrix bounds it.
        const GemmDims skinny{1, 16, 4096, 4096};
        QVERIFY(gemmPeakFraction(r, skinny) < 0.15);
        QCOMPARE(gemmSeconds(r, skinny), (16.0 * 4096 + 4096.0 * 4096 + 16.0 * 4096) * 2 / r.memoryBandwidth);
        // 256^3 has 16 tiles of 64 x 64 for 108 SMs: one wave, mostly idle.
        QVERIFY(gemmPeakFraction(r, {1, 256, 256, 256}) < 0.2);
        // The fraction grows with the size.
        double last = 0;
        for (double s : {256.0, 512.0, 1024.0, 2048.0, 4096.0}) {
            const double f = gemmPeakFraction(r, {1, s, s, s});
            QVERIFY2(f >= last, qPrintable(QString("%1: %2 after %3").arg(s).arg(f).arg(last)));
            last = f;
        }
    }

    void a_partial_wave_costs_a_whole_one()
    {
        const GpuRoofline r = a100Roofline();
        // 12 x 9 tiles of 256 x 128: one full wave on 108 SMs. 11 x 10 = 110 tiles: two waves of
        // those, or more waves of smaller tiles; either way about a fifth slower per FLOP.
        const double full = gemmPeakFraction(r, {1, 256 * 12, 128 * 9, 8192});
        const double over = gemmPeakFraction(r, {1, 256 * 11, 128 * 10, 8192});
        QVERIFY(full > 0.98 * r.efficiency);
        QVERIFY2(over < 0.9 * full, qPrintable(QString("%1 vs %2").arg(over).arg(full)));
    }

    void elementwise_ops_are_bound_by_bytes()
    {
        const GpuRoofline r = a100Roofline();
        QCOMPARE(streamSeconds(r, 1e6, 1e9), 1e9 / r.memoryBandwidth);
        // As many FLOPs per byte as a large GEMM: the FLOPs bound it.
        QCOMPARE(streamSeconds(r, 1e14, 1e9), 1e14 / (r.peakFlops * r.efficiency));
    }

    void selene_preset_prices_at_the_achieved_a100_figures()
    {
        // The preset states the achieved constants (gpu_roofline.h), not the datasheet's.
        const ClusterSpec c = *loadClusterSpec("selene-a100x1024");
        const std::optional<GpuRoofline> r = gpuRoofline(c, "fp16");
        QVERIFY(r.has_value());
        QCOMPARE(r->efficiency, kA100Fp16SustainedEfficiency);
        QCOMPARE(r->memoryBandwidth, kA100SxmAchievedRoofline.memoryBandwidth);
        QCOMPARE(r->l2Bandwidth, kA100SxmAchievedRoofline.l2Bandwidth);
        QCOMPARE(r->multiprocessors, 108);
        // M. Li's measurement: 8192^3 fp16 at 230 TFLOP/s; the roofline gives it back within 1%.
        const double tflops = gemmPeakFraction(*r, {1, 8192, 8192, 8192}) * r->peakFlops / 1e12;
        QVERIFY2(qAbs(tflops / 230 - 1) < 0.01, qPrintable(QString::number(tflops)));
        // Ernst's scale kernel: 1 GiB read and 1 GiB written at 1,732 GB/s.
        const double gib = 1024.0 * 1024 * 1024;
        QVERIFY(qAbs(streamSeconds(*r, 0, 2 * gib) * 1.732e12 / (2 * gib) - 1) < 1e-12);
        // Both bandwidths are below the datasheet's (2,039 GB/s HBM, 7.05 TB/s L2): achieved, not nominal.
        QVERIFY(kA100SxmAchievedRoofline.l2Bandwidth < kA100SxmRoofline.l2Bandwidth);
        QVERIFY(kA100SxmAchievedRoofline.memoryBandwidth < kA100SxmRoofline.memoryBandwidth);
    }

    void cost_model_prices_gpt_nodes_by_the_roofline()
    {
        const Graph g = testing::zooGraphOf("gpt", {.layers = 2, .hidden = 256, .heads = 4, .seq = 128, .batch = 8});
        const ClusterSpec c = a100();
        const GpuRoofline r = a100Roofline();
        CostModel model(g, c, DeviceMesh{1, 1, 1});
        // Softmax over the scores: its bytes (fp16) at the HBM bandwidth, forward and backward.
        const NodeId softmax = firstOfType(g, "Softmax");
        const OpStrategy whole = nodeStrategies(g, softmax, 1).front();
        const OpCost sc = nodeCost(g, g.node(softmax));
        const double bytes = (sc.bytesRead + sc.bytesWritten) / 2; // the export is fp32
        QCOMPARE(model.nodeCost(softmax, whole).compute, 3 * bytes / r.memoryBandwidth);
        // A Linear's MatMul: its GEMM, the batch folded into m; column-split over tp 2, n halves.
        NodeId mm = kNoNode;
        for (NodeId n = 0; n < NodeId(g.nodes.size()) && mm == kNoNode; ++n)
            if (g.node(n).opType == "MatMul" && g.tensor(g.node(n).input(1)).isParameter()) mm = n;
        QVERIFY(mm != kNoNode);
        const Shape& w = g.tensor(g.node(mm).input(1)).shape;
        const double k = double(w.dims[0].value), n = double(w.dims[1].value);
        QCOMPARE(model.nodeCost(mm, nodeStrategies(g, mm, 1).front()).compute, 3 * gemmSeconds(r, {1, 8 * 128, n, k}));
        CostModel tp2(g, c, DeviceMesh{1, 2, 1});
        bool column = false;
        for (const OpStrategy& s : nodeStrategies(g, mm, 2))
            if (s.computeFraction < 1 && s.outputs.front().kind == TensorLayout::S && s.outputs.front().dim == 2) {
                QCOMPARE(tp2.nodeCost(mm, s).compute, 3 * gemmSeconds(r, {1, 8 * 128, n / 2, k}));
                column = true;
            }
        QVERIFY(column);
    }

    void layer_norm_chain_is_one_pass()
    {
        const Graph g = testing::zooGraphOf("gpt", {.layers = 1, .hidden = 256, .heads = 4, .seq = 128, .batch = 8});
        const GpuRoofline r = a100Roofline();
        CostModel model(g, a100(), DeviceMesh{1, 1, 1});
        const PricedChains chains = pricedChains(g);
        bool found = false;
        for (const NodeChain& chain : chains.chains) {
            if (chain.kind != NodeChain::Kind::LayerNorm) continue;
            double total = 0;
            for (NodeId n : chain.nodes) total += model.nodeCost(n, nodeStrategies(g, n, 1).front()).compute;
            // Input and output, [8 x 128 x 256] in fp16, read and written once, forward and backward.
            QCOMPARE(total, 3 * 2 * (8.0 * 128 * 256 * 2) / r.memoryBandwidth);
            found = true;
        }
        QVERIFY(found);
    }

    // Megatron-LM's attention and residuals as its kernels run them (gpu_roofline.cpp): the scale
    // is the score GEMM's alpha, the mask is applied inside the softmax kernel, the packed QKV is
    // split into views and the transposes the GEMMs read are their operands' flags; a training-
    // mode Dropout on the probabilities (or the embeddings) is its own pass (input, output and a
    // byte of mask), one before a residual Add (bias-dropout-add) only writes its mask.
    void megatron_attention_kernels_are_priced_as_megatron_runs_them()
    {
        ZooOptions o{.layers = 1, .hidden = 256, .heads = 4, .seq = 128, .batch = 8};
        o.dropout = 0.1;
        const Graph g = testing::zooGraphOf("gpt", o);
        const GpuRoofline r = a100Roofline();
        CostModel model(g, a100(), DeviceMesh{1, 1, 1});
        auto compute = [&](NodeId n) { return model.nodeCost(n, nodeStrategies(g, n, 1).front()).compute; };
        auto readers = [&](NodeId n) { return g.tensor(g.node(n).outputs[0]).consumers; };
        auto producer = [&](NodeId n, int i) { return g.tensor(g.node(n).input(i)).producer; };
        int scales = 0, masks = 0, splits = 0, viewTransposes = 0, copyTransposes = 0, ownDropouts = 0, residualDropouts = 0;
        for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n) {
            const Node& node = g.node(n);
            if (node.opType == "Div" && producer(n, 0) != kNoNode && g.node(producer(n, 0)).opType == "MatMul") {
                QCOMPARE(compute(n), 0.0);
                ++scales;
            } else if (node.opType == "Where") {
                QCOMPARE(g.node(readers(n).front()).opType, std::string("Softmax"));
                QCOMPARE(compute(n), 0.0);
                ++masks;
            } else if (node.opType == "Split") {
                QCOMPARE(compute(n), 0.0);
                ++splits;
            } else if (node.opType == "Transpose") {
                const bool intoGemm = g.node(readers(n).front()).opType == "MatMul";
                QVERIFY2(intoGemm ? compute(n) == 0 : compute(n) > 0, node.name.c_str());
                (intoGemm ? viewTransposes : copyTransposes) += 1;
            } else if (node.opType == "Dropout") {
                const double elems = double(g.tensor(node.input(0)).shape.numElementsOr(0));
                const bool residual = readers(n).size() == 1 && g.node(readers(n).front()).opType == "Add";
                QCOMPARE(compute(n), 3 * elems * (residual ? 1 : 2 * 2 + 1) / r.memoryBandwidth);
                (residual ? residualDropouts : ownDropouts) += 1;
            }
        }
        QCOMPARE(scales, 1);
        QCOMPARE(masks, 1);
        QCOMPARE(splits, 1);
        QCOMPARE(viewTransposes, 4); // Q, K and V by heads, and the tied head's table
        QCOMPARE(copyTransposes, 1); // the heads merged back: a contiguous copy in Megatron-LM too
        QCOMPARE(ownDropouts, 2);    // the attention probabilities and the embeddings
        QCOMPARE(residualDropouts, 2);
        // Without dropout the export has no Dropout node (an eval-mode export).
        const Graph plain = testing::zooGraphOf("gpt", {.layers = 1, .hidden = 256, .heads = 4, .seq = 128, .batch = 8});
        for (const Node& node : plain.nodes) QVERIFY(node.opType != "Dropout");
    }

    // The tied LM head on a cluster with a roofline: Megatron-LM multiplies by each rank's shard
    // of the word table (column-parallel, parallel_lm_logits), the Transpose keeps the table split
    // over its vocabulary as the lookup does, so the table's gradient needs no all-reduce over tp.
    // (With the Transpose held replicated, the roofline's faster GEMMs made that whole-table
    // all-reduce cost more than the split saved, and Megatron's head ran replicated.)
    void megatron_head_is_column_parallel_under_the_roofline()
    {
        const Graph g = testing::zooGraphOf("gpt", {.layers = 2, .hidden = 256, .heads = 8, .vocab = 50257, .seq = 64, .batch = 8});
        SearchRequest request;
        request.graph = &g;
        request.cluster = a100();
        request.mesh = DeviceMesh{2, 4, 1};
        const Result<SearchResult> m = findSearcher("megatron")->search(request);
        QVERIFY2(m.ok(), m.ok() ? "" : m.error().c_str());
        const TensorId table = g.findTensor("transformer.wte.weight");
        int heads = 0;
        for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n) {
            if (g.node(n).opType != "Transpose" || g.node(n).input(0) != table) continue;
            ++heads;
            const OpStrategy& t = m->best.plan.nodes[size_t(n)];
            QCOMPARE(t.inputs.front(), TensorLayout::split(0));
            const NodeId head = g.tensor(g.node(n).outputs[0]).consumers.front();
            QCOMPARE(m->best.plan.nodes[size_t(head)].name, std::string("column"));
        }
        QCOMPARE(heads, 1);
    }

    // Megatron-LM's loss (gpt_model.py, mpu/cross_entropy.py, SC'21's code): cross entropy over the
    // logits cast to fp32, on each tp rank's vocabulary shard, 52 bytes of HBM per logit forward
    // and backward; the head's MatMul, which writes the graph's logits, carries it.
    void loss_is_megatrons_fp32_cross_entropy_over_the_logits()
    {
        const GpuRoofline r = a100Roofline();
        QCOMPARE(crossEntropySeconds(r, 1e9), 1e9 * 52 / 2.039e12);
        const Graph g = testing::zooGraphOf("gpt", {.layers = 1, .hidden = 64, .heads = 2, .vocab = 1000, .seq = 32, .batch = 8});
        QCOMPARE(g.outputs.size(), size_t(1));
        const NodeId head = g.tensor(g.outputs[0]).producer;
        QCOMPARE(g.node(head).opType, std::string("MatMul"));
        const double tokens = 8 * 32;
        CostModel model(g, a100(), DeviceMesh{1, 1, 1});
        QCOMPARE(model.nodeCost(head, nodeStrategies(g, head, 1).front()).compute,
                 3 * gemmSeconds(r, {1, tokens, 1000, 64}) + crossEntropySeconds(r, tokens * 1000));
        // Vocab-parallel: each of tp 2 ranks takes the loss over its half of the vocabulary.
        CostModel tp2(g, a100(), DeviceMesh{1, 2, 1});
        bool column = false;
        for (const OpStrategy& s : nodeStrategies(g, head, 2))
            if (s.computeFraction < 1 && s.outputs.front().kind == TensorLayout::S && s.outputs.front().dim == 2) {
                QCOMPARE(tp2.nodeCost(head, s).compute, 3 * gemmSeconds(r, {1, tokens, 500, 64}) + crossEntropySeconds(r, tokens * 500));
                column = true;
            }
        QVERIFY(column);
        // A layer's Linear writes no graph output: its GEMM alone.
        NodeId layer = kNoNode;
        for (NodeId n = 0; n < NodeId(g.nodes.size()) && layer == kNoNode; ++n)
            if (g.node(n).opType == "MatMul" && g.tensor(g.node(n).input(1)).isParameter()) layer = n;
        QVERIFY(layer != kNoNode && layer != head);
        const Shape& w = g.tensor(g.node(layer).input(1)).shape;
        QCOMPARE(model.nodeCost(layer, nodeStrategies(g, layer, 1).front()).compute,
                 3 * gemmSeconds(r, {1, tokens, double(w.dims[1].value), double(w.dims[0].value)}));
    }

    // Megatron-LM's mixed-precision optimizer step (megatron/optimizer/optimizer.py, SC'21's code):
    // 52 bytes of HBM passes per parameter a device updates, once per training step, whatever the
    // micro-batch count; a distributed optimizer updates 1/dp of them; the flat presets fold it in.
    void optimizer_step_is_megatrons_passes_once_per_step()
    {
        const GpuRoofline r = a100Roofline();
        QCOMPARE(optimizerStepSeconds(r, 1e9), 1e9 * 52 / 2.039e12);
        const Graph g = testing::zooGraphOf("gpt", {.layers = 2, .hidden = 64, .heads = 2, .seq = 32, .batch = 8});
        const ClusterSpec c = a100();
        CostModel model(g, c, DeviceMesh{1, 1, 1});
        QCOMPARE(model.optimizerStepTime(1e9), optimizerStepSeconds(r, 1e9));
        Result<ClusterSpec> flat = loadClusterSpec("a100x8");
        QVERIFY(flat.ok());
        QCOMPARE(CostModel(g, *flat, DeviceMesh{1, 1, 1}).optimizerStepTime(1e9), 0.0);
        // Two blocks of no compute on two stages: the step is the optimizer of the rank holding
        // the most parameters, once, for 1 or 8 micro-batches; ZeRO-1 over dp 2 halves it.
        const double bytesPerParam = model.options().bytesPerParam;
        std::vector<BlockProfile> blocks(2);
        blocks[0].classId = 0;
        blocks[1].classId = 1;
        blocks[0].terms.weightMemory = 1e9 * bytesPerParam;
        blocks[1].terms.weightMemory = 3e9 * bytesPerParam;
        for (int m : {1, 8}) {
            PipelineConfig pc;
            pc.pp = 2;
            pc.microBatches = m;
            pc.recompute = Recompute::None;
            const std::optional<PipelineEvaluation> e = evaluatePipeline(blocks, pc, model, c, 1e30);
            QVERIFY(e.has_value());
            QCOMPARE(e->total.compute, optimizerStepSeconds(r, 3e9));
        }
        PipelineConfig zero;
        zero.pp = 2;
        zero.dp = 2;
        zero.microBatches = 2;
        zero.recompute = Recompute::None;
        zero.distributedOptimizer = true;
        const std::optional<PipelineEvaluation> z = evaluatePipeline(blocks, zero, model, c, 1e30);
        QVERIFY(z.has_value());
        QCOMPARE(z->total.compute, optimizerStepSeconds(r, 1.5e9));
    }

    void calibrated_cpu_cluster_keeps_its_families()
    {
        Result<ClusterSpec> cpu = loadClusterSpec("cpu-mpi");
        QVERIFY(cpu);
        ClusterSpec c = *cpu;
        c.roofline.memoryBandwidth = 1e11; // even with a bandwidth stated
        QVERIFY(!gpuRoofline(c, "fp32"));
        QVERIFY(!gpuRoofline(ClusterSpec{}, "fp16")); // and no bandwidth, no roofline
        Result<ClusterSpec> preset = loadClusterSpec("a100x8");
        QVERIFY(preset && !gpuRoofline(*preset, "fp16")); // the presets keep peak x efficiency
    }

    // Torch DDP's buckets all-reduce under the backward on NCCL's own SMs (16 of a DGX A100's
    // 108, NCCL issue 689): the time they overlap costs the backward those SMs' share of compute,
    // in the pipeline cost (no stages) as in the flat report.
    void overlapped_gradient_buckets_take_their_sms_from_compute()
    {
        QCOMPARE(overlappedCollectiveCompute(kA100SxmAchievedRoofline, 1.08), 1.08 * 16 / 108);
        QCOMPARE(overlappedCollectiveCompute(kA100SxmRoofline, 1.0), 0.0); // states none
        const Graph g = testing::zooGraphOf("gpt", {.layers = 4, .hidden = 1024, .heads = 8, .seq = 512, .batch = 64});
        ClusterSpec c = a100();
        c.nodes = 4; // dp 32 over InfiniBand: buckets long enough to overlap
        const DeviceMesh mesh{32, 1, 1};
        CostModel model(g, c, mesh);
        const double grad = 1e9, bandwidth = 0.5, compute = 3.0;
        double lost = -1;
        const double exposed = model.gradientSyncTime(grad, bandwidth, compute, &lost);
        QCOMPARE(lost, 0.0); // a100(): no collective SMs stated
        c.roofline.collectiveSms = 16;
        CostModel taken(g, c, mesh);
        QCOMPARE(taken.gradientSyncTime(grad, bandwidth, compute, &lost), exposed); // the sync itself unchanged
        const double steps = 2.0 * 31, buckets = std::ceil(grad / kDdpBucketBytes);
        const double whole = buckets * (steps * c.interNode.latency) + bandwidth;
        QVERIFY(whole > exposed); // part of it overlapped the backward
        QVERIFY(qAbs(lost - (whole - exposed) * 16 / 108) < 1e-12);
    }

    void roofline_field_is_read_checked_and_written()
    {
        ClusterSpec c = a100();
        Result<ClusterSpec> back = parseClusterSpec(clusterSpecToJson(c), "round trip");
        QVERIFY(back);
        QCOMPARE(back->roofline.memoryBandwidth, c.roofline.memoryBandwidth);
        QCOMPARE(back->roofline.l2Bandwidth, c.roofline.l2Bandwidth);
        QCOMPARE(back->roofline.multiprocessors, c.roofline.multiprocessors);
        // The SMs a collective holds round-trip too, and must leave the device some.
        c.roofline.collectiveSms = 16;
        Result<ClusterSpec> sms = parseClusterSpec(clusterSpecToJson(c), "round trip");
        QVERIFY(sms);
        QCOMPARE(sms->roofline.collectiveSms, 16);
        c.roofline.collectiveSms = 108;
        Result<ClusterSpec> all = parseClusterSpec(clusterSpecToJson(c), "all.json");
        QVERIFY(!all);
        QVERIFY2(all.error().find("roofline.collective_sms") != std::string::npos, all.error().c_str());
        c.roofline.collectiveSms = 0;
        std::string text = clusterSpecToJson(c);
        const std::string bad = "\"memory_bandwidth\": -1";
        const size_t at = text.find("\"memory_bandwidth\"");
        QVERIFY(at != std::string::npos);
        text.replace(at, text.find_first_of(",}\n", at) - at, bad);
        Result<ClusterSpec> refused = parseClusterSpec(text, "bad.json");
        QVERIFY(!refused);
        QVERIFY2(refused.error().find("roofline.memory_bandwidth") != std::string::npos, refused.error().c_str());
    }
};

QTEST_GUILESS_MAIN(TestGpuRoofline)
#include "tst_gpu_roofline.moc"
