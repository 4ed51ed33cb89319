#pragma once
// The Costs dock's charts: per-device step time split into compute, tensor-parallel and
// data-parallel communication, and memory split into weights (+gradients and optimizer state) and
// activations, for the plan under edit beside the baselines the last search produced (Megatron,
// DP, ILP, ...), memory against the device limit, and the plan's per-block breakdown. A plan with
// pipeline stages adds its sends between stages and its bubble to the step time, and a Stages page:
// the memory of each pipeline rank against the device limit. Plain data in, no PlanSession: the
// app feeds it on every plan change.
#include "core/cost/cost_model.h"
#include "core/fold/folded_graph.h"
#include "core/shard/pipeline_schedule.h"

#include <QString>
#include <QWidget>

#include <memory>
#include <vector>

class QBarSet;
class QChart;
class QChartView;
class QLabel;
class QLineSeries;
class QStackedBarSeries;
class QTabWidget;

namespace tapas {

struct PlanCosts {
    QString label;     // "tapas", "megatron", "tapas (edited)"
    QString mesh;      // "2x4"
    CostTerms total;
    bool fits = true;
    bool current = false; // the plan under edit (drawn first)
};

struct CostsData {
    std::vector<PlanCosts> plans;      // the current plan first
    double memoryLimit = 0;            // bytes per device; 0 = no limit line
    std::vector<CostTerms> perBlock;   // the current plan's, in FoldedGraph::chain order
    std::shared_ptr<const FoldedGraph> folded; // names the blocks; may be null
    PipelineSchedule pipeline;         // the current plan's stages (none: no Stages page)
    int pipelineRanks = 1;             // the current plan's pp
};

class CostsView : public QWidget {
    Q_OBJECT
public:
    explicit CostsView(QWidget* parent = nullptr);
    ~CostsView() override;

    void setData(CostsData data);
    void clear();
    const CostsData& data() const { return data_; }

    QChartView* timeChart() const { return timeView_; }
    QChartView* memoryChart() const { return memoryView_; }
    QChartView* blockChart() const { return blockView_; }
    QChartView* stageChart() const { return stageView_; }
    // The bar sets behind the charts (tests read their values): time in ms, memory in GB.
    QBarSet* computeSet() const { return compute_; }
    QBarSet* tpCommSet() const { return tpComm_; }
    QBarSet* dpCommSet() const { return dpComm_; }
    // Sends between pipeline stages and the bubble: null unless some plan has stages.
    QBarSet* ppCommSet() const { return ppComm_; }
    QBarSet* bubbleSet() const { return bubble_; }
    // The Stages page, one bar per pipeline rank of the current plan (GB).
    QBarSet* stageWeightSet() const { return stageWeights_; }
    QBarSet* stageActivationSet() const { return stageActivations_; }
    QLineSeries* stageLimitLine() const { return stageLimit_; }
    QBarSet* weightMemorySet() const { return weights_; }
    QBarSet* activationMemorySet() const { return activations_; }
    QLineSeries* memoryLimitLine() const { return limit_; }
    QBarSet* blockComputeSet() const { return blockCompute_; }
    QBarSet* blockCommSet() const { return blockComm_; }
    QString headline() const;
    QTabWidget* pages() const { return pages_; }

protected:
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void rebuild();
    void retranslateUi();
    void fitToSize();
    void connectTooltips(const QList<QBarSet*>& sets, const QStringList& categories, const QString& unit);
    void rebuildStages();

    CostsData data_;
    QLabel* headline_;
    QTabWidget* pages_ = nullptr;
    QChartView* timeView_;
    QChartView* memoryView_;
    QChartView* blockView_;
    QChartView* stageView_;
    QBarSet* compute_ = nullptr;
    QBarSet* tpComm_ = nullptr;
    QBarSet* dpComm_ = nullptr;
    QBarSet* ppComm_ = nullptr;
    QBarSet* bubble_ = nullptr;
    QBarSet* stageWeights_ = nullptr;
    QBarSet* stageActivations_ = nullptr;
    QLineSeries* stageLimit_ = nullptr;
    QBarSet* weights_ = nullptr;
    QBarSet* activations_ = nullptr;
    QBarSet* blockCompute_ = nullptr;
    QBarSet* blockComm_ = nullptr;
    QLineSeries* limit_ = nullptr;
};

} // namespace tapas
