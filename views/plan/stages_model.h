#pragma once
// The pipeline stages of a staged plan, one row each, for the Plan dock: the blocks of the folded
// chain it holds ("A1-A6", with their chain positions), the pipeline rank and the global ranks
// that run it (Megatron-LM's order: rank = (pp * dp + d) * tp + t, so one pipeline rank's devices
// are a contiguous range), its recomputation, its time per micro-batch, its memory and the total
// of its pipeline rank against the device limit. Plain data in: the plan's schedule and mesh.
#include "core/cluster/cluster_spec.h"
#include "core/fold/folded_graph.h"
#include "core/shard/pipeline_schedule.h"
#include "views/flat_table_model.h"

#include <memory>

namespace tapas {

class StagesModel : public FlatTableModel {
    Q_OBJECT
public:
    enum Column { Stage, Blocks, PipelineRank, Ranks, Recomputation, TimePerMicroBatch, Weights, Activations, RankMemory, ColumnCount };
    // Qt::UserRole on any cell: the stage's memory of its pipeline rank in bytes (RankMemory) or
    // its time in seconds (TimePerMicroBatch); true in OverLimitRole when its rank does not fit.
    enum Roles { ValueRole = Qt::UserRole + 1, OverLimitRole };

    explicit StagesModel(QObject* parent = nullptr);

    void setPlan(const PipelineSchedule& schedule, const DeviceMesh& mesh, std::shared_ptr<const FoldedGraph> folded,
                 double memoryLimit);
    void clear();

    // Bytes on pipeline rank r: the weights and kept activations of every stage it holds.
    double rankMemory(int pipelineRank) const;

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

protected:
    int rows() const override { return int(schedule_.stages.size()); }

private:
    PipelineSchedule schedule_;
    DeviceMesh mesh_;
    std::shared_ptr<const FoldedGraph> folded_;
    double limit_ = 0;
};

} // namespace tapas
