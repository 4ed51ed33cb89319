#pragma once
// The Costs dock's charts: per-device step time split into compute, tensor-parallel and
// data-parallel communication, and memory split into weights (+gradients and optimizer state) and
// activations, for the plan under edit beside the baselines the last search produced (Megatron,
// DP, ILP, ...), memory against the device limit, and the plan's per-block breakdown. Plain data
// in, no PlanSession: the app feeds it on every plan change.
#include "core/cost/cost_model.h"
#include "core/fold/folded_graph.h"

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
    // The bar sets behind the charts (tests read their values): time in ms, memory in GB.
    QBarSet* computeSet() const { return compute_; }
    QBarSet* tpCommSet() const { return tpComm_; }
    QBarSet* dpCommSet() const { return dpComm_; }
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
    void connectTooltips(QBarSet* a, QBarSet* b, QBarSet* c, const QStringList& categories, const QString& unit);

    CostsData data_;
    QLabel* headline_;
    QTabWidget* pages_ = nullptr;
    QChartView* timeView_;
    QChartView* memoryView_;
    QChartView* blockView_;
    QBarSet* compute_ = nullptr;
    QBarSet* tpComm_ = nullptr;
    QBarSet* dpComm_ = nullptr;
    QBarSet* weights_ = nullptr;
    QBarSet* activations_ = nullptr;
    QBarSet* blockCompute_ = nullptr;
    QBarSet* blockComm_ = nullptr;
    QLineSeries* limit_ = nullptr;
};

} // namespace tapas
