#pragma once
// How a sharding strategy looks everywhere in the GUI (graph overlay, its legend, the Plan dock):
// every op strategy falls in one of a few families a user recognises from the Megatron-LM
// vocabulary (column / row parallel, batch split, replicate) plus the layouts the propagation
// produces (a partial sum, a split of some other dimension), each with its own colour.
#include "core/ir/graph.h"
#include "core/shard/op_sharding.h"

#include <QColor>
#include <QString>

namespace tapas {

enum class ShardingFamily { Replicate, Column, Row, Batch, Partial, OtherSplit, Count };

class ShardingStyle {
public:
    // The family of strategy `s` run by node `n` (an op with no strategy is Replicate).
    static ShardingFamily family(const Graph& g, NodeId n, const OpStrategy& s);
    static QColor fill(ShardingFamily f);   // box fill, light enough for black text
    static QColor border(ShardingFamily f); // stronger tone for borders and legend swatches
    static QString name(ShardingFamily f);
    // A strategy's name as the user reads it: the op rules' identifiers ("column", "row",
    // "out-channels") translated; split specs such as "S(1)" are notation and stay as they are.
    static QString strategyText(const std::string& strategy);  // translated: "column (split output features)"
    static int familyCount() { return int(ShardingFamily::Count); }
    // The colour of a collective marker on an edge.
    static QColor collectiveColor();
};

} // namespace tapas
