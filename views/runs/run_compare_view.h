#pragma once
// Several runs side by side: one chart per chosen metric, every selected run overlaid in it with
// one colour per run (e.g. synchronous vs asynchronous GAN training, TAPAS vs Megatron plans).
// Metrics are listed by readable names with their units ("Step time (ms)"), several at once.
#include <QList>
#include <QWidget>

#include <vector>

class QCheckBox;
class QGridLayout;
class QLabel;
class QListWidget;
class QSlider;

namespace tapas {

class RunChart;
class RunRecord;

class RunCompareView : public QWidget {
    Q_OBJECT
public:
    explicit RunCompareView(QWidget* parent = nullptr);

    // The runs to overlay (not owned). The metric list offers what they report.
    void setRecords(const std::vector<const RunRecord*>& records);
    void refresh();
    // Compares exactly this metric (its recorded name, e.g. "loss" or "g_loss"); false when no
    // run reports it.
    bool setValueName(const QString& name);
    // Compares these metrics, one chart each; false when none is reported.
    bool setValueNames(const QStringList& names);
    QString valueName() const; // the first metric compared
    QStringList valueNames() const;

    RunChart* chart() const { return charts_.value(0); } // the first metric's chart
    QList<RunChart*> charts() const;                     // one per compared metric
    QListWidget* metricList() const { return metrics_; }
    QSlider* smoothingSlider() const { return smoothing_; }
    QCheckBox* logScaleBox() const { return logScale_; }

protected:
    void changeEvent(QEvent* event) override;

private:
    void fillValues();
    void retranslateUi();
    RunChart* chartAt(int i);

    std::vector<const RunRecord*> records_;
    QLabel* caption_;
    QListWidget* metrics_;
    QLabel* smoothingLabel_;
    QSlider* smoothing_;
    QCheckBox* logScale_;
    QGridLayout* grid_;
    QList<RunChart*> charts_; // created as needed, kept: chart() stays the same object
    int shown_ = 0;
};

} // namespace tapas
