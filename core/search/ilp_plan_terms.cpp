#include "core/search/ilp_plan_terms.h"

#include "core/shard/collective.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace tapas {

namespace {

using UseClass = std::pair<TensorLayout, bool>; // a use's layout and whether its compute is split

int classIndex(std::vector<UseClass>& classes, const UseClass& c)
{
    const auto it = std::find(classes.begin(), classes.end(), c);
    if (it != classes.end()) return int(it - classes.begin());
    classes.push_back(c);
    return int(classes.size()) - 1;
}

} // namespace

void addSharedWeightTerms(IlpModel& m, const CostModel& model, StrategyTable& table, const std::vector<int>& firstCol)
{
    for (const auto& [t, uses] : model.sharedWeights()) {
        // A strategy without the weight's slot charges no share and the report skips that use;
        // no rule writes such a strategy, and the per-node shares stay for a weight that has one.
        bool complete = true;
        for (const auto& [n, i] : uses)
            for (int s : table.allowed(n)) complete = complete && size_t(i) < table.strategy(n, s).inputs.size();
        if (!complete) continue;
        const double share = 1.0 / double(uses.size());
        std::vector<UseClass> classes;
        std::vector<std::vector<int>> classOf(uses.size()); // per use, per allowed strategy
        for (size_t u = 0; u < uses.size(); ++u) {
            const auto [n, i] = uses[u];
            const std::vector<int>& allowed = table.allowed(n);
            for (size_t k = 0; k < allowed.size(); ++k) {
                const OpStrategy& s = table.strategy(n, allowed[k]);
                const UseClass c{s.inputs[size_t(i)], s.computeFraction < 1};
                classOf[u].push_back(classIndex(classes, c));
                m.columns[size_t(firstCol[size_t(n)]) + k].terms += model.weightUseCost(t, c.first, c.second, false).scaled(-share);
            }
        }
        // Uses that differ are partial somewhere (a split use or a non-replicated layout): kept
        // replicated, one tp all-reduce of the summed gradient; with a sharded use the cheaper
        // of that and gathering once.
        const CostTerms replicated = model.sharedWeightCost(t, {{TensorLayout::replicated(), true}, {TensorLayout::replicated(), false}});
        const auto sharded = std::find_if(classes.begin(), classes.end(), [](const UseClass& c) { return c.first.kind == TensorLayout::S; });
        CostTerms settledSharded; // differing uses, one of them sharded, over `replicated`
        if (sharded != classes.end()) {
            settledSharded = model.sharedWeightCost(t, {*sharded, {TensorLayout::replicated(), true}});
            settledSharded += replicated.scaled(-1);
        }
        m.constant += replicated;
        // U(u, c): the columns of use u's strategies in class c.
        auto useColumns = [&](size_t u, auto inClass, std::vector<int>& cols, std::vector<double>& coefs, double coef) {
            const NodeId n = uses[u].first;
            for (size_t k = 0; k < classOf[u].size(); ++k)
                if (inClass(classOf[u][k])) {
                    cols.push_back(firstCol[size_t(n)] + int(k));
                    coefs.push_back(coef);
                }
        };
        const double others = double(uses.size()) - 1;
        for (int c = 0; c < int(classes.size()); ++c) {
            CostTerms terms = model.weightUseCost(t, classes[size_t(c)].first, classes[size_t(c)].second, false);
            terms += replicated.scaled(-1);
            if (classes[size_t(c)].first.kind == TensorLayout::S) terms += settledSharded.scaled(-1);
            const int z = m.addColumn(0, 1, false, terms); // every use in class c
            std::vector<int> all{z};
            std::vector<double> allCoefs{1};
            for (size_t u = 0; u < uses.size(); ++u) {
                std::vector<int> cols{z};
                std::vector<double> coefs{1};
                useColumns(u, [c](int x) { return x == c; }, cols, coefs, -1);
                m.addRow(std::move(cols), std::move(coefs), 'L', 0); // z <= U(u, c)
                useColumns(u, [c](int x) { return x == c; }, all, allCoefs, -1);
            }
            m.addRow(std::move(all), std::move(allCoefs), 'G', -others); // z >= sum U(u, c) - (N - 1)
        }
        if (sharded == classes.end()) continue;
        const auto isSharded = [&](int x) { return classes[size_t(x)].first.kind == TensorLayout::S; };
        const int any = m.addColumn(0, 1, false, settledSharded); // some use sharded
        std::vector<int> all{any};
        std::vector<double> allCoefs{1};
        for (size_t u = 0; u < uses.size(); ++u) {
            std::vector<int> cols{any};
            std::vector<double> coefs{1};
            useColumns(u, isSharded, cols, coefs, -1);
            m.addRow(std::move(cols), std::move(coefs), 'G', 0); // any >= U(u, S)
            useColumns(u, isSharded, all, allCoefs, -1);
        }
        m.addRow(std::move(all), std::move(allCoefs), 'L', 0); // any <= sum U(u, S)
    }
}

void addGradientSyncTerms(IlpModel& m, const CostModel& model)
{
    const DeviceMesh& mesh = model.mesh();
    if (mesh.dp <= 1) return;
    // Every trained weight has gradient bytes in any layout, so a plan syncs iff any does.
    double upper = std::max(0.0, m.constant.dpGradBytes);
    bool any = m.constant.dpGradBytes > 0;
    for (const IlpModel::Column& c : m.columns) {
        upper += std::max(0.0, c.terms.dpGradBytes) * c.hi;
        any = any || c.terms.dpGradBytes > 0;
    }
    if (!any) return;
    m.syncByRows = true;
    const LinkSpec link = axisLink(model.cluster(), mesh, MeshAxis::Dp);
    const double latency = 2.0 * (mesh.dp - 1) * link.latency; // one ring all-reduce's
    const double perByte = collectiveWireBytes(CollectiveKind::AllReduce, 1.0, mesh.dp) / link.bandwidth;
    const double backward = model.options().backwardFactor / (1 + model.options().backwardFactor);
    const double scale = IlpModel::kTimeScale;
    const int gradCols = int(m.columns.size());
    const int k = m.addColumn(1, std::max(1.0, std::ceil(upper / kDdpBucketBytes)), true);
    const int e = m.addColumn(0, 1e30, false, {}, 1);
    // k - 1 < G / bucket <= k, in buckets; the strict side by a millionth of a bucket (26 bytes).
    std::vector<int> gCols{k};
    std::vector<double> gCoefs{1};
    // e >= k latencies + bandwidth - backward compute, in microseconds.
    std::vector<int> wCols{e, k};
    std::vector<double> wCoefs{scale, -latency * scale};
    // e >= latency + perByte x (G - (k - 1) bucket): the last bucket, which waits for the backward.
    std::vector<int> lCols{e, k};
    std::vector<double> lCoefs{scale, perByte * kDdpBucketBytes * scale};
    for (int c = 0; c < gradCols; ++c) {
        const CostTerms& t = m.columns[size_t(c)].terms;
        if (t.dpGradBytes != 0) {
            gCols.push_back(c);
            gCoefs.push_back(-t.dpGradBytes / kDdpBucketBytes);
            lCols.push_back(c);
            lCoefs.push_back(-perByte * t.dpGradBytes * scale);
        }
        if (t.dpComm != 0 || t.compute != 0) {
            wCols.push_back(c);
            wCoefs.push_back(-(t.dpComm - backward * t.compute) * scale);
        }
    }
    const CostTerms& c0 = m.constant;
    m.addRow(gCols, gCoefs, 'G', c0.dpGradBytes / kDdpBucketBytes);
    m.addRow(std::move(gCols), std::move(gCoefs), 'L', c0.dpGradBytes / kDdpBucketBytes + 1 - 1e-6);
    m.addRow(std::move(wCols), std::move(wCoefs), 'G', (c0.dpComm - backward * c0.compute) * scale);
    m.addRow(std::move(lCols), std::move(lCoefs), 'G', (latency + perByte * (c0.dpGradBytes + kDdpBucketBytes)) * scale);
}

} // namespace tapas
