// The executor's fused node chains (runtime/exec/node_fusion): on the zoo GPT as torch 1.13
// exports it (opset 14: LayerNorm decomposed, GELU as Erf), each chain is found and the fused
// interpreter gives the unfused one's outputs and gradients; a chain whose intermediate is also
// read elsewhere (a graph output, another node) is left alone; under a Megatron plan the
// row-parallel MatMuls, whose outputs are partial sums, keep their bias Add apart.
#include "runtime/exec/graph_interpreter.h"
#include "runtime/exec/layout_analysis.h"
#include "runtime/exec/node_fusion.h"

#include "core/cluster/cluster_spec.h"
#include "core/search/searcher.h"
#include "core/zoo/zoo.h"
#include "tests/common/zoo_graph.h"

#include <QtTest>

#include <map>

using namespace tapas;
using namespace tapas::runtime;

namespace {

Graph smallGpt()
{
    return testing::zooGraphOf("gpt", {.layers = 2, .hidden = 16, .heads = 2, .vocab = 11, .seq = 6, .batch = 3});
}

std::map<std::string, int> countByKind(const std::vector<FusedGroup>& groups)
{
    std::map<std::string, int> n;
    for (const FusedGroup& f : groups) ++n[fusionName(f.kind)];
    return n;
}

const FusedGroup* groupWith(const std::vector<FusedGroup>& groups, NodeId n)
{
    for (const FusedGroup& f : groups)
        if (std::find(f.nodes.begin(), f.nodes.end(), n) != f.nodes.end()) return &f;
    return nullptr;
}

NodeId firstNode(const Graph& g, const std::string& op, const std::string& scopePart)
{
    for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n)
        if (g.node(n).opType == op && g.node(n).name.find(scopePart) != std::string::npos) return n;
    return kNoNode;
}

struct Outcome {
    std::vector<torch::Tensor> outputs;
    std::map<TensorId, torch::Tensor> grads;
    size_t fused = 0;
};

// Forward + backward of L = sum of every float output squared (weights seeded, ids in range).
Outcome runOnce(const Graph& g, bool fuse)
{
    Result<ExecLayouts> layouts = analyseLayouts(g, nullptr, 1);
    if (!layouts) qFatal("layouts: %s", layouts.error().c_str());
    GraphInterpreter interp(g, *layouts, 0, nullptr, fuse);
    torch::manual_seed(7);
    std::unordered_map<TensorId, torch::Tensor> params, feeds;
    for (TensorId t = 0; t < TensorId(g.tensors.size()); ++t)
        if (isTrainable(g, t)) params[t] = (torch::randn(g.tensor(t).shape.knownDims()) * 0.5).requires_grad_(true);
    for (TensorId t : g.inputs) feeds[t] = torch::randint(0, 11, g.tensor(t).shape.knownDims(), torch::kLong);
    Outcome r;
    r.fused = interp.fusions().size();
    std::vector<LocalValue> out = interp.forward(params, feeds);
    torch::Tensor loss = torch::zeros({});
    for (const LocalValue& v : out) {
        r.outputs.push_back(v.t.detach());
        if (v.t.is_floating_point()) loss = loss + (v.t * v.t).sum();
    }
    loss.backward();
    for (const auto& [t, p] : params) r.grads[t] = p.grad().defined() ? p.grad() : torch::zeros_like(p);
    return r;
}

double relErr(const torch::Tensor& a, const torch::Tensor& b)
{
    if (a.sizes() != b.sizes()) return 1;
    return (a - b).abs().max().item<double>() / std::max(b.abs().max().item<double>(), 1e-6);
}

void expectSameAsUnfused(const Graph& g)
{
    const Outcome fused = runOnce(g, true), plain = runOnce(g, false);
    QVERIFY(fused.fused > 0);
    QCOMPARE(plain.fused, size_t(0));
    QCOMPARE(fused.outputs.size(), plain.outputs.size());
    for (size_t i = 0; i < fused.outputs.size(); ++i) {
        const double e = relErr(fused.outputs[i], plain.outputs[i]);
        QVERIFY2(e < 1e-5, ("output " + g.tensor(g.outputs[i]).name + ": relative error " + std::to_string(e)).c_str());
    }
    for (const auto& [t, grad] : plain.grads) {
        const double e = relErr(fused.grads.at(t), grad);
        QVERIFY2(e < 1e-4, ("gradient of " + g.tensor(t).name + ": relative error " + std::to_string(e)).c_str());
    }
}

// Makes tensor t read by one more node (a Neg whose output becomes a graph output).
void readElsewhere(Graph& g, TensorId t)
{
    Node n;
    n.name = "/extra/Neg_" + std::to_string(g.nodes.size());
    n.opType = "Neg";
    n.inputs = {t};
    n.outputs = {g.tensorFor(n.name + "_output_0")};
    g.tensor(n.outputs[0]).dtype = DType::Float32;
    g.outputs.push_back(n.outputs[0]);
    g.addNode(std::move(n));
}

std::vector<FusedGroup> fusionsOf(const Graph& g, const ShardingPlan* plan = nullptr, int tp = 1)
{
    Result<ExecLayouts> layouts = analyseLayouts(g, plan, tp);
    if (!layouts) qFatal("layouts: %s", layouts.error().c_str());
    GraphInterpreter interp(g, *layouts, 0);
    return interp.fusions();
}

} // namespace

class TestExecFusion : public QObject {
    Q_OBJECT
private slots:
    void findsEveryChainOfTheExport()
    {
        const Graph g = smallGpt();
        const std::vector<FusedGroup> f = fusionsOf(g);
        const std::map<std::string, int> n = countByKind(f);
        // 2 blocks: ln_1, ln_2 each and ln_f; one GELU per MLP; c_attn, c_proj, c_fc, mlp c_proj.
        QCOMPARE(n.count("layer_norm") ? n.at("layer_norm") : 0, 5);
        QCOMPARE(n.count("gelu") ? n.at("gelu") : 0, 2);
        QCOMPARE(n.count("addmm") ? n.at("addmm") : 0, 8);
        for (const FusedGroup& group : f) {
            if (group.kind == FusedGroup::Kind::LayerNorm) {
                QCOMPARE(group.nodes.size(), size_t(9)); // 7 for the statistics, Mul scale, Add shift
                QCOMPARE(group.inputs.size(), size_t(3));
                QVERIFY(std::abs(group.epsilon - 1e-5) < 1e-9);
            }
            if (group.kind == FusedGroup::Kind::Gelu) QCOMPARE(group.nodes.size(), size_t(5));
            // The chain's output is its last node's.
            QCOMPARE(g.node(group.nodes.back()).outputs[0], group.output);
        }
    }

    void fusedMatchesUnfused() { expectSameAsUnfused(smallGpt()); }

    void intermediateReadElsewhereKeepsTheChainApart()
    {
        Graph g = smallGpt();
        const NodeId erf = firstNode(g, "Erf", "h.0/mlp");
        const NodeId mean = firstNode(g, "ReduceMean", "h.0/ln_1");
        const NodeId mm = firstNode(g, "MatMul", "h.0/mlp/c_fc");
        QVERIFY(erf != kNoNode && mean != kNoNode && mm != kNoNode);
        const std::vector<FusedGroup> before = fusionsOf(g);
        QVERIFY(groupWith(before, erf) && groupWith(before, mean) && groupWith(before, mm));

        readElsewhere(g, g.node(erf).outputs[0]); // the Erf's output also read by another node
        g.outputs.push_back(g.node(mean).outputs[0]); // the mean also a graph output
        readElsewhere(g, g.node(mm).outputs[0]);  // the product before its bias also read
        const std::vector<FusedGroup> after = fusionsOf(g);
        QVERIFY(!groupWith(after, erf));
        QVERIFY(!groupWith(after, mean));
        QVERIFY(!groupWith(after, mm));
        // The other block's chains still fuse.
        QVERIFY(groupWith(after, firstNode(g, "Erf", "h.1/mlp")));
        QVERIFY(groupWith(after, firstNode(g, "ReduceMean", "h.1/ln_1")));
        QCOMPARE(int(after.size()), int(before.size()) - 3);
        // And the run gives what the unfused graph gives, the extra outputs included.
        expectSameAsUnfused(g);
    }

    void partialProductsKeepTheirBiasApartUnderMegatron()
    {
        const Graph g = smallGpt();
        Result<ClusterSpec> cluster = loadClusterSpec("cpu-mpi");
        QVERIFY2(cluster.ok(), cluster.ok() ? "" : cluster.error().c_str());
        const Searcher* megatron = findSearcher("megatron");
        QVERIFY(megatron);
        SearchRequest req;
        req.graph = &g;
        req.cluster = *cluster;
        req.mesh = DeviceMesh{1, 2};
        Result<SearchResult> res = megatron->search(req);
        QVERIFY2(res.ok(), res.ok() ? "" : res.error().c_str());
        const std::vector<FusedGroup> f = fusionsOf(g, &res->best.plan, 2);
        const std::map<std::string, int> n = countByKind(f);
        // Column-parallel c_attn and c_fc fuse with their bias; c_proj and the MLP's c_proj sum
        // partial products over tp before their bias, so they do not.
        QCOMPARE(n.count("addmm") ? n.at("addmm") : 0, 4);
        QVERIFY(!groupWith(f, firstNode(g, "MatMul", "h.0/attn/c_proj")));
        QVERIFY(groupWith(f, firstNode(g, "MatMul", "h.0/attn/c_attn")));
        QCOMPARE(n.count("gelu") ? n.at("gelu") : 0, 2);
        QCOMPARE(n.count("layer_norm") ? n.at("layer_norm") : 0, 5);
    }

    void unfusedWhenTheConstantsDiffer()
    {
        // A GELU-like chain with 0.4 instead of 0.5 is another function: it must run as written.
        Graph g = smallGpt();
        const NodeId erf = firstNode(g, "Erf", "h.0/mlp");
        const std::vector<FusedGroup> before = fusionsOf(g);
        const FusedGroup* group = groupWith(before, erf);
        QVERIFY(group);
        const Node& half = g.node(group->nodes.back());
        bool changed = false;
        for (TensorId t : half.inputs) {
            Tensor& c = g.tensor(t);
            if (c.value && c.value->size() == 1 && std::abs(c.value->floatAt(0) - 0.5) < 1e-9) {
                c.value->floats[0] = 0.4;
                changed = true;
            }
        }
        QVERIFY(changed);
        QVERIFY(!groupWith(fusionsOf(g), erf));
        expectSameAsUnfused(g);
    }
};

QTEST_GUILESS_MAIN(TestExecFusion)
#include "tst_exec_fusion.moc"
