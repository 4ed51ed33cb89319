#include "views/plan/stages_model.h"

#include "core/util/human_units.h"
#include "views/graph/block_style.h"

#include <QBrush>
#include <QColor>

namespace tapas {

StagesModel::StagesModel(QObject* parent) : FlatTableModel(ColumnCount, parent) {}

void StagesModel::setPlan(const PipelineSchedule& schedule, const DeviceMesh& mesh, std::shared_ptr<const FoldedGraph> folded,
                          double memoryLimit)
{
    beginResetModel();
    schedule_ = schedule;
    mesh_ = mesh;
    folded_ = std::move(folded);
    limit_ = memoryLimit;
    endResetModel();
}

void StagesModel::clear()
{
    setPlan({}, {}, nullptr, 0);
}

double StagesModel::rankMemory(int pipelineRank) const
{
    double bytes = 0;
    for (const PipelineStage& s : schedule_.stages)
        if (s.device == pipelineRank) bytes += s.weightMemory + s.activationMemory;
    return bytes;
}

QVariant StagesModel::data(const QModelIndex& index, int role) const
{
    if (!isValidCell(index)) return {};
    const PipelineStage& s = schedule_.stages[size_t(index.row())];
    const double rank = rankMemory(s.device);
    const bool over = limit_ > 0 && rank > limit_;
    if (role == OverLimitRole) return over;
    if (role == ValueRole) {
        switch (index.column()) {
        case TimePerMicroBatch: return s.timePerMicroBatch;
        case Weights: return s.weightMemory;
        case Activations: return s.activationMemory;
        case RankMemory: return rank;
        default: return {};
        }
    }
    if (role == Qt::ForegroundRole && index.column() == RankMemory && over) return QBrush(QColor(0xa4, 0x00, 0x0f));
    if (role == Qt::TextAlignmentRole && index.column() >= TimePerMicroBatch)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    const int perRank = mesh_.dp * mesh_.tp; // one pipeline rank's devices: tp fastest, then dp
    const int firstRank = s.device * perRank, lastRank = (s.device + 1) * perRank - 1;
    if (role == Qt::ToolTipRole) {
        QString blocks;
        if (folded_) {
            const BlockStyle style(*folded_);
            for (int b = s.firstBlock; b < s.endBlock; ++b)
                blocks += (blocks.isEmpty() ? QString() : QStringLiteral(", ")) + style.chainLabel(*folded_, b);
        }
        return tr("Stage %1: chain blocks %2-%3 (%4) on pipeline rank %5, ranks %6-%7 (dp %8 x tp %9)")
            .arg(index.row())
            .arg(s.firstBlock)
            .arg(s.endBlock - 1)
            .arg(blocks)
            .arg(s.device)
            .arg(firstRank)
            .arg(lastRank)
            .arg(mesh_.dp)
            .arg(mesh_.tp);
    }
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
    case Stage: return index.row();
    case Blocks: {
        QString text = s.endBlock - s.firstBlock > 1 ? QStringLiteral("%1-%2").arg(s.firstBlock).arg(s.endBlock - 1)
                                                      : QString::number(s.firstBlock);
        if (folded_) {
            const BlockStyle style(*folded_);
            const QString first = style.chainLabel(*folded_, s.firstBlock), last = style.chainLabel(*folded_, s.endBlock - 1);
            text += QStringLiteral(" (") + (first == last ? first : first + QStringLiteral("-") + last) + QStringLiteral(")");
        }
        return text;
    }
    case PipelineRank: return s.device;
    case Ranks: return firstRank == lastRank ? QString::number(firstRank) : QStringLiteral("%1-%2").arg(firstRank).arg(lastRank);
    case Recomputation: return QString::fromLatin1(recomputeName(s.recompute));
    case TimePerMicroBatch: return QStringLiteral("%1 ms").arg(s.timePerMicroBatch * 1e3, 0, 'f', 2);
    case Weights: return QString::fromStdString(humanBytes(s.weightMemory));
    case Activations: return QString::fromStdString(humanBytes(s.activationMemory));
    case RankMemory:
        return limit_ > 0 ? tr("%1 of %2").arg(QString::fromStdString(humanBytes(rank)), QString::fromStdString(humanBytes(limit_)))
                          : QString::fromStdString(humanBytes(rank));
    default: return {};
    }
}

QVariant StagesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case Stage: return tr("Stage");
    case Blocks: return tr("Blocks");
    case PipelineRank: return tr("Pipeline rank");
    case Ranks: return tr("Ranks");
    case Recomputation: return tr("Recomputation");
    case TimePerMicroBatch: return tr("Time / micro-batch");
    case Weights: return tr("Weights + optimizer");
    case Activations: return tr("Activations");
    case RankMemory: return tr("Rank memory");
    default: return {};
    }
}

} // namespace tapas
