#pragma once
// Several runs side by side: one chart with the chosen value of every selected run overlaid,
// one colour per run (e.g. synchronous vs asynchronous GAN training, TAPAS vs Megatron plans).
#include <QWidget>

#include <vector>

class QComboBox;
class QLabel;
class QSlider;

namespace tapas {

class RunChart;
class RunRecord;

class RunCompareView : public QWidget {
    Q_OBJECT
public:
    explicit RunCompareView(QWidget* parent = nullptr);

    // The runs to overlay (not owned). The value list offers what they report.
    void setRecords(const std::vector<const RunRecord*>& records);
    void refresh();
    // The value compared, e.g. "loss" or "g_loss"; false when no run reports it.
    bool setValueName(const QString& name);
    QString valueName() const;

    RunChart* chart() const { return chart_; }
    QComboBox* valueBox() const { return value_; }
    QSlider* smoothingSlider() const { return smoothing_; }

protected:
    void changeEvent(QEvent* event) override;

private:
    void fillValues();
    void retranslateUi();

    std::vector<const RunRecord*> records_;
    QLabel* caption_;
    QComboBox* value_;
    QLabel* smoothingLabel_;
    QSlider* smoothing_;
    RunChart* chart_;
};

} // namespace tapas
