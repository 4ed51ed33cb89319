#pragma once
// The monitor of a plan-training run (tapas-worker train-plan): loss, step time per rank,
// throughput, communication share, the cost model's predicted step time beside the measured
// one, memory per rank; the per-rank table and the log below.
#include "views/runs/run_monitor.h"

class QTabWidget;

namespace tapas {

class PlanRunMonitor : public RunMonitor {
    Q_OBJECT
public:
    explicit PlanRunMonitor(QWidget* parent = nullptr);

    RunChart* lossChart() const { return loss_; }
    RunChart* stepTimeChart() const { return stepTime_; }
    RunChart* throughputChart() const { return throughput_; }
    RunChart* commShareChart() const { return commShare_; }
    RunChart* predictedChart() const { return predicted_; }
    RunChart* memoryChart() const { return memory_; }
    QTabWidget* tabs() const { return tabs_; }

protected:
    void refreshCharts() override;
    void clearCharts() override;
    void retranslateCharts() override;

private:
    RunChart* loss_;
    RunChart* stepTime_;
    RunChart* throughput_;
    RunChart* commShare_;
    RunChart* predicted_;
    RunChart* memory_;
    QTabWidget* tabs_;
};

} // namespace tapas
