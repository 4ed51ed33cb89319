#pragma once
// The monitor of a GAN run (tapas-worker gan): G/D losses with a smoothing slider,
// D(x) and D(G(z)), images/s, step time per rank, the data pipeline's congestion (data wait,
// queue depth, loader threads, prefetch depth), staleness, mode coverage and sample quality,
// learning rates; the latest sample grid with a slider over the earlier ones; the run's
// settings, the per-rank table and the log.
#include "views/runs/run_monitor.h"

class QLabel;
class QSlider;
class QTabWidget;
class QTreeWidget;

namespace tapas {

class GanRunMonitor : public RunMonitor {
    Q_OBJECT
public:
    explicit GanRunMonitor(QWidget* parent = nullptr);

    RunChart* lossChart() const { return loss_; }
    RunChart* discriminatorChart() const { return dOut_; }
    RunChart* throughputChart() const { return throughput_; }
    RunChart* stepTimeChart() const { return stepTime_; }
    RunChart* congestionChart() const { return congestion_; }
    RunChart* stalenessChart() const { return staleness_; }
    RunChart* qualityChart() const { return quality_; }
    RunChart* learningRateChart() const { return lr_; }
    QSlider* smoothingSlider() const { return smoothing_; }
    QSlider* sampleSlider() const { return sampleSlider_; }
    QLabel* sampleView() const { return sampleImage_; }
    QLabel* sampleCaption() const { return sampleCaption_; }
    QTreeWidget* settingsView() const { return settings_; }
    QTabWidget* tabs() const { return tabs_; }
    // The sample file shown now (empty: none).
    QString shownSample() const { return shownSample_; }
    // EMA weight in [0, 1) from the slider.
    double smoothing() const;

protected:
    void refreshCharts() override;
    void clearCharts() override;
    void retranslateCharts() override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void refreshSamples();
    void showSample(int index);
    void fillSettings();

    RunChart* loss_;
    RunChart* dOut_;
    RunChart* throughput_;
    RunChart* stepTime_;
    RunChart* congestion_;
    RunChart* staleness_;
    RunChart* quality_;
    RunChart* lr_;
    QLabel* smoothingLabel_;
    QSlider* smoothing_;
    QLabel* sampleImage_;
    QLabel* sampleCaption_;
    QSlider* sampleSlider_;
    QTreeWidget* settings_;
    QTabWidget* tabs_;
    QString shownSample_;
    const RunRecord* settingsOf_ = nullptr;
};

} // namespace tapas
