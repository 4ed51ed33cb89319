#include "core/shard/table_padding.h"

#include "core/ops/shape_fill.h"
#include "core/shard/sharding_plan.h"

#include <unordered_set>

namespace tapas {

bool isLookupTable(const Graph& g, TensorId t)
{
    if (t == kNoTensor || !g.tensor(t).isParameter() || g.tensor(t).shape.rank() != 2) return false;
    for (NodeId c : g.tensor(t).consumers) {
        const Node& n = g.node(c);
        if (n.opType != "Gather" || n.input(0) != t) continue;
        const int64_t axis = n.attrInt("axis", 0);
        if (axis == 0 || axis == -2) return true;
    }
    return false;
}

std::vector<TablePadding> tpTablePadding(const Graph& g, int tp)
{
    std::vector<TablePadding> out;
    if (tp <= 1) return out;
    for (TensorId t = 0; t < TensorId(g.tensors.size()); ++t) {
        if (!isLookupTable(g, t)) continue;
        const Dim& rows = g.tensor(t).shape.dims[0];
        if (!rows.isKnown() || rows.value % tp == 0) continue;
        out.push_back({t, rows.value, (rows.value + tp - 1) / tp * tp});
    }
    return out;
}

Graph paddedGraph(const Graph& g, const std::vector<TablePadding>& padding)
{
    Graph out = g;
    std::vector<TensorId> stack;
    std::unordered_set<TensorId> seen;
    for (const TablePadding& p : padding) {
        out.tensor(p.table).shape.dims[0] = Dim::known(p.paddedRows);
        stack.push_back(p.table);
        seen.insert(p.table);
    }
    // Forget every shape downstream of the tables and derive them again from the padded ones.
    while (!stack.empty()) {
        const TensorId t = stack.back();
        stack.pop_back();
        for (NodeId c : out.tensor(t).consumers)
            for (TensorId o : out.node(c).outputs) {
                if (o == kNoTensor || out.tensor(o).value || !seen.insert(o).second) continue;
                out.tensor(o).shape = Shape::unknownRank();
                stack.push_back(o);
            }
    }
    if (!padding.empty()) (void)fillMissingShapes(out);
    return out;
}

Status checkTablePadding(const Graph& g, const ShardingPlan& plan)
{
    const int tp = plan.mesh.tp;
    std::unordered_set<TensorId> seen;
    for (const TablePadding& p : plan.padding) {
        if (p.table < 0 || p.table >= TensorId(g.tensors.size()))
            return Status::failure("padding names tensor " + std::to_string(p.table) + ", which the model does not have");
        const std::string name = "'" + g.tensor(p.table).name + "'";
        if (!isLookupTable(g, p.table))
            return Status::failure("padding of " + name + ": it is not a lookup table (a 2-D weight a Gather reads along axis 0), "
                                   "and only tables are padded");
        if (!seen.insert(p.table).second) return Status::failure("padding of " + name + " is given twice");
        const Dim& rows = g.tensor(p.table).shape.dims[0];
        if (!rows.isKnown() || (rows.value != p.rows && rows.value != p.paddedRows))
            return Status::failure("padding of " + name + " is for " + std::to_string(p.rows) + " rows, but the model's table has " +
                                   (rows.isKnown() ? std::to_string(rows.value) : rows.toString()));
        if (tp <= 1 || p.rows % tp == 0)
            return Status::failure("padding of " + name + " is not needed: its " + std::to_string(p.rows) +
                                   " rows split over tp " + std::to_string(tp) + " as they are");
        if (p.paddedRows <= p.rows || p.paddedRows % tp != 0)
            return Status::failure("padding of " + name + " to " + std::to_string(p.paddedRows) + " rows: it must add rows to " +
                                   std::to_string(p.rows) + " and end at a multiple of tp " + std::to_string(tp));
    }
    return Status::success();
}

bool holdsPadding(const Graph& g, const std::vector<TablePadding>& padding)
{
    for (const TablePadding& p : padding)
        if (p.table < 0 || p.table >= TensorId(g.tensors.size()) || g.tensor(p.table).shape.rank() < 1 ||
            g.tensor(p.table).shape.dims[0].value != p.paddedRows)
            return false;
    return !padding.empty();
}

PlanGraph::PlanGraph(const Graph& g, const ShardingPlan& plan) : g_(g)
{
    if (!plan.padding.empty() && !holdsPadding(g, plan.padding)) padded_ = paddedGraph(g, plan.padding);
}

std::string describeTablePadding(const Graph& g, const std::vector<TablePadding>& padding)
{
    std::string out;
    for (const TablePadding& p : padding)
        out += (out.empty() ? "" : "; ") + ("'" + g.tensor(p.table).name + "' padded from " + std::to_string(p.rows) + " to " +
                                            std::to_string(p.paddedRows) + " rows");
    return out;
}

} // namespace tapas
