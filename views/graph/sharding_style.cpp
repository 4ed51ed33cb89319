#include "views/graph/sharding_style.h"

#include <QCoreApplication>

namespace tapas {

namespace {

bool allReplicated(const OpStrategy& s)
{
    for (const TensorLayout& l : s.inputs)
        if (l.kind != TensorLayout::R) return false;
    for (const TensorLayout& l : s.outputs)
        if (l.kind != TensorLayout::R) return false;
    return true;
}

} // namespace

ShardingFamily ShardingStyle::family(const Graph& g, NodeId n, const OpStrategy& s)
{
    const std::string& name = s.name;
    if (name.empty() || name == "replicate" || allReplicated(s)) return ShardingFamily::Replicate;
    // The names the rules give their weight-bearing strategies (core/shard/*_sharding.cpp).
    if (name == "column" || name == "out-channels" || name == "hidden") return ShardingFamily::Column;
    if (name == "row" || name == "in-channels" || name == "vocab") return ShardingFamily::Row;
    if (name == "batch" || name == "rows" || name == "m") return ShardingFamily::Batch;
    if (s.outputs.empty()) return ShardingFamily::OtherSplit;
    const TensorLayout& out = s.outputs.front();
    if (out.kind == TensorLayout::P) return ShardingFamily::Partial;
    if (out.kind != TensorLayout::S) return ShardingFamily::OtherSplit;
    // Ops that follow a split by propagation: the feature (last) dimension is the column
    // family's layout, the first one the batch's.
    const TensorId t = n >= 0 && size_t(n) < g.nodes.size() ? g.node(n).output(0) : kNoTensor;
    const int rank = t == kNoTensor ? -1 : g.tensor(t).shape.rank();
    if (out.dim == 0) return ShardingFamily::Batch;
    if (rank > 0 && out.dim == rank - 1) return ShardingFamily::Column;
    return ShardingFamily::OtherSplit;
}

QColor ShardingStyle::border(ShardingFamily f)
{
    switch (f) {
    case ShardingFamily::Replicate: return QColor(0x8C, 0x8C, 0x8C);
    case ShardingFamily::Column: return QColor(0x00, 0x72, 0xB2);   // Okabe–Ito blue
    case ShardingFamily::Row: return QColor(0xE6, 0x9F, 0x00);      // orange
    case ShardingFamily::Batch: return QColor(0x00, 0x9E, 0x73);    // bluish green
    case ShardingFamily::Partial: return QColor(0xD5, 0x5E, 0x00);  // vermillion
    case ShardingFamily::OtherSplit: return QColor(0xCC, 0x79, 0xA7); // reddish purple
    case ShardingFamily::Count: break;
    }
    return QColor(0x8C, 0x8C, 0x8C);
}

QColor ShardingStyle::fill(ShardingFamily f)
{
    if (f == ShardingFamily::Replicate) return QColor(0xF2, 0xF2, 0xF2);
    const QColor c = border(f);
    // 30 % of the colour over white: distinct hues, black text stays readable.
    auto mix = [](int v) { return int(255 - (255 - v) * 0.30); };
    return QColor(mix(c.red()), mix(c.green()), mix(c.blue()));
}

QString ShardingStyle::name(ShardingFamily f)
{
    switch (f) {
    case ShardingFamily::Replicate: return QCoreApplication::translate("tapas::ShardingStyle", "replicated");
    case ShardingFamily::Column: return QCoreApplication::translate("tapas::ShardingStyle", "column (split features)");
    case ShardingFamily::Row: return QCoreApplication::translate("tapas::ShardingStyle", "row (split input, partial sum)");
    case ShardingFamily::Batch: return QCoreApplication::translate("tapas::ShardingStyle", "batch / rows");
    case ShardingFamily::Partial: return QCoreApplication::translate("tapas::ShardingStyle", "partial sum");
    case ShardingFamily::OtherSplit: return QCoreApplication::translate("tapas::ShardingStyle", "other split (heads, …)");
    case ShardingFamily::Count: break;
    }
    return {};
}

QColor ShardingStyle::collectiveColor()
{
    return QColor(0xC0, 0x1C, 0x28);
}

QString ShardingStyle::strategyText(const std::string& strategy)
{
    // The names core/ops gives its strategies, for lupdate to find.
    static const char* const kKnown[] = {
        QT_TRANSLATE_NOOP("tapas::Strategy", "replicate"),
        QT_TRANSLATE_NOOP("tapas::Strategy", "column"),
        QT_TRANSLATE_NOOP("tapas::Strategy", "row"),
        QT_TRANSLATE_NOOP("tapas::Strategy", "rows"),
        QT_TRANSLATE_NOOP("tapas::Strategy", "batch"),
        QT_TRANSLATE_NOOP("tapas::Strategy", "vocab"),
        QT_TRANSLATE_NOOP("tapas::Strategy", "channels"),
        QT_TRANSLATE_NOOP("tapas::Strategy", "in-channels"),
        QT_TRANSLATE_NOOP("tapas::Strategy", "out-channels"),
    };
    for (const char* k : kKnown)
        if (strategy == k) return QCoreApplication::translate("tapas::Strategy", k);
    return QString::fromStdString(strategy);
}

} // namespace tapas
