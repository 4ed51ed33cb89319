#include "core/cost/cost_model.h"

#include "core/ops/op_registry.h"

namespace tapas {

CostTerms& CostTerms::operator+=(const CostTerms& o)
{
    compute += o.compute;
    tpComm += o.tpComm;
    dpComm += o.dpComm;
    commBytes += o.commBytes;
    weightMemory += o.weightMemory;
    activationMemory += o.activationMemory;
    return *this;
}

CostModel::CostModel(const Graph& g, const ClusterSpec& cluster, const DeviceMesh& mesh, CostOptions options)
    : g_(g), cluster_(cluster), mesh_(mesh), options_(std::move(options))
{
    flopRate_ = cluster_.peakFlops(options_.dtype) * cluster_.efficiency;
    if (flopRate_ <= 0) flopRate_ = 1;
    elemBytes_ = options_.dtype == "fp32" ? 4 : 2;
}

double CostModel::replicaBytes(TensorId t) const
{
    const Tensor& x = g_.tensor(t);
    const double elems = double(x.shape.numElementsOr(1));
    const int bytes = dtypeIsFloating(x.dtype) ? elemBytes_ : std::max(1, dtypeBytes(x.dtype));
    const bool batched = x.kind == TensorKind::Activation || x.kind == TensorKind::Input;
    return elems * bytes / (batched && !x.value ? mesh_.dp : 1);
}

double CostModel::collectiveTime(CollectiveKind k, double fullBytes, MeshAxis axis, double* wireBytes) const
{
    const int n = axis == MeshAxis::Tp ? mesh_.tp : mesh_.dp;
    const double wire = collectiveWireBytes(k, fullBytes, n);
    if (wireBytes) *wireBytes = wire;
    if (wire <= 0) return 0;
    const LinkSpec link = axisLink(cluster_, mesh_, axis);
    // Ring algorithms take n-1 steps (all-reduce 2(n-1)), each paying the latency once.
    const double steps = k == CollectiveKind::AllReduce ? 2.0 * (n - 1) : double(n - 1);
    return steps * link.latency + wire / link.bandwidth;
}

CostTerms CostModel::nodeCost(NodeId id, const OpStrategy& s) const
{
    const Node& n = g_.node(id);
    CostTerms c;
    const OpCost oc = tapas::nodeCost(g_, n);
    c.compute = oc.flops / mesh_.dp * s.computeFraction / flopRate_ * (1 + options_.backwardFactor);
    const bool split = s.computeFraction < 1;
    for (size_t i = 0; i < n.inputs.size() && i < s.inputs.size(); ++i) {
        const TensorId t = n.inputs[i];
        if (t == kNoTensor) continue;
        const Tensor& x = g_.tensor(t);
        if (!dtypeIsFloating(x.dtype) || x.value) continue;
        const double shard = s.inputs[i].kind == TensorLayout::S ? 1.0 / mesh_.tp : 1.0;
        if (x.isParameter()) {
            const double elems = double(x.storedElements() > 0 ? x.storedElements() : x.shape.numElementsOr(1));
            c.weightMemory += elems * shard * options_.bytesPerParam;
            double wire = 0;
            c.dpComm += collectiveTime(CollectiveKind::AllReduce, elems * shard * elemBytes_, MeshAxis::Dp, &wire);
            c.commBytes += wire;
            if (split && s.inputs[i].kind == TensorLayout::R) { // weight used whole by split compute
                c.tpComm += collectiveTime(CollectiveKind::AllReduce, elems * elemBytes_, MeshAxis::Tp, &wire);
                c.commBytes += wire;
            }
        } else if (split && s.inputs[i].kind == TensorLayout::R && x.kind == TensorKind::Activation) {
            double wire = 0;
            c.tpComm += collectiveTime(CollectiveKind::AllReduce, replicaBytes(t), MeshAxis::Tp, &wire);
            c.commBytes += wire;
        }
    }
    for (size_t o = 0; o < n.outputs.size() && o < s.outputs.size(); ++o) {
        const TensorId t = n.outputs[o];
        if (t == kNoTensor || !dtypeIsFloating(g_.tensor(t).dtype) || g_.tensor(t).value) continue;
        const double shard = s.outputs[o].kind == TensorLayout::S ? 1.0 / mesh_.tp : 1.0;
        c.activationMemory += replicaBytes(t) * shard;
    }
    return c;
}

CostTerms CostModel::reshardCost(TensorId t, const TensorLayout& from, const TensorLayout& to) const
{
    CostTerms c;
    const CollectiveKind fwd = reshardCollective(from, to);
    const double bytes = replicaBytes(t);
    double wire = 0;
    c.tpComm += collectiveTime(fwd, bytes, MeshAxis::Tp, &wire);
    c.commBytes += wire;
    const Tensor& x = g_.tensor(t);
    if (dtypeIsFloating(x.dtype) && x.kind == TensorKind::Activation) { // inputs need no gradient
        c.tpComm += collectiveTime(backwardCollective(fwd), bytes, MeshAxis::Tp, &wire);
        c.commBytes += wire;
    }
    return c;
}

CostReport evaluatePlan(const ShardingPlan& plan, const CostModel& model, const FoldedGraph* folded)
{
    const Graph& g = model.graph();
    std::vector<CostTerms> perNode(g.nodes.size());
    for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n) perNode[size_t(n)] = model.nodeCost(n, plan.nodes[size_t(n)]);
    return reportFromNodeCosts(plan, model, std::move(perNode), folded);
}

CostReport reportFromNodeCosts(const ShardingPlan& plan, const CostModel& model, std::vector<CostTerms> perNode,
                               const FoldedGraph* folded)
{
    CostReport r;
    r.perNode = std::move(perNode);
    CostTerms outputs;
    for (const Reshard& rs : plan.reshards) {
        const CostTerms c = model.reshardCost(rs.tensor, rs.from, rs.to);
        (rs.consumer == kNoNode ? outputs : r.perNode[size_t(rs.consumer)]) += c;
    }
    for (const CostTerms& c : r.perNode) r.total += c;
    r.total += outputs;
    if (folded) {
        r.perBlock.resize(folded->chain.size());
        for (size_t b = 0; b < folded->chain.size(); ++b) {
            const BlockRef& ref = folded->chain[b];
            for (NodeId n : folded->classes[size_t(ref.classId)].instances[size_t(ref.instance)].nodes)
                r.perBlock[b] += r.perNode[size_t(n)];
        }
    }
    r.fits = r.total.memory() <= model.cluster().memoryBytes;
    return r;
}

Status checkBatchSplit(const Graph& g, const DeviceMesh& mesh)
{
    if (mesh.dp <= 1) return Status::success();
    TensorId widest = kNoTensor;
    for (TensorId t : g.inputs) {
        const Shape& s = g.tensor(t).shape;
        if (s.rank() < 1 || !s.dims[0].isKnown()) continue;
        if (widest == kNoTensor || s.dims[0].value > g.tensor(widest).shape.dims[0].value) widest = t;
    }
    if (widest == kNoTensor) return Status::success();
    const int64_t batch = g.tensor(widest).shape.dims[0].value;
    if (batch % mesh.dp == 0) return Status::success();
    return Status::failure("mesh " + mesh.toString() + ": the data-parallel degree " + std::to_string(mesh.dp) +
                           " does not divide the batch " + std::to_string(batch) + " (dimension 0 of input '" +
                           g.tensor(widest).name + "'); each replica must get whole samples");
}

} // namespace tapas
