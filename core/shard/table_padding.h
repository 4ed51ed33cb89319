#pragma once
// Table padding as a planning choice: a lookup table whose rows the tensor-parallel degree does
// not divide (GPT-2's 50,257-word vocabulary on tp 8) cannot be split over its rows, but the same
// table with a few zero rows appended can. Megatron-LM always pads (to a multiple of 128 x tp);
// a plan may pad too, and then says so per table (ShardingPlan::padding): its strategies, its
// cost and its collectives are those of the graph with the tables padded (paddedGraph), the rows
// added are zero, no id reads them and no loss sees them, so the model it trains is the same.
#include "core/ir/graph.h"
#include "core/util/result.h"

#include <optional>
#include <vector>

namespace tapas {

struct ShardingPlan;

struct TablePadding {
    TensorId table = kNoTensor; // a lookup table: a 2-D weight a Gather reads as its data (axis 0)
    int64_t rows = 0;           // its rows in the model
    int64_t paddedRows = 0;     // its rows in the plan (zero rows appended)
    bool operator==(const TablePadding&) const = default;
};

// A 2-D weight some Gather reads as its data along axis 0 (an embedding, and the same tensor
// when a tied LM head reads it again).
bool isLookupTable(const Graph& g, TensorId t);

// Every lookup table whose known rows `tp` does not divide, padded to the next multiple of tp
// (the fewest rows that split); empty for tp 1 or when every table splits already.
std::vector<TablePadding> tpTablePadding(const Graph& g, int tp);

// `g` with each table's rows padded and every shape downstream of it derived again (the tied or
// separate head's logits follow). Tensor and node ids are those of `g`.
Graph paddedGraph(const Graph& g, const std::vector<TablePadding>& padding);

// Whether `g` is already padded that way (every table has its padded rows): a graph the plan's
// strategies are for as it is, such as the one paddedGraph made.
bool holdsPadding(const Graph& g, const std::vector<TablePadding>& padding);

// The plan's padding against the model: each entry names a lookup table of `g` with its rows
// (or, where `g` already holds the padding, its padded rows),
// padded to more rows that are a multiple of tp, where tp does not divide them already; one entry
// per table. The error names the tensor.
Status checkTablePadding(const Graph& g, const ShardingPlan& plan);

// The graph a plan's strategies and cost are for: `g` itself (also when it holds the padding
// already), or `g` with the plan's tables padded (held here). Keep it alive as long as anything reads graph().
class PlanGraph {
public:
    PlanGraph(const Graph& g, const ShardingPlan& plan);
    const Graph& graph() const { return padded_ ? *padded_ : g_; }
    bool padded() const { return padded_.has_value(); }

private:
    const Graph& g_;
    std::optional<Graph> padded_;
};

// "'transformer.wte.weight' padded from 50257 to 50264 rows" per entry, joined by "; ".
std::string describeTablePadding(const Graph& g, const std::vector<TablePadding>& padding);

} // namespace tapas
