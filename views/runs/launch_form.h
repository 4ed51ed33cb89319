#pragma once
// The Runs dock's "new run" form: the kind (plan training or GAN training), what to run (plan
// and model files; or data set, model, asynchronous updates with their staleness bound, and
// presets that work for the built-in data sets), where (ranks, hosts) and for how long (steps,
// checkpoint interval). It only describes the run: Start emits a RunSpec, the app launches it.
#include "core/util/result.h"
#include "runtime/protocol/run_directory.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QStackedWidget;
class QFormLayout;

namespace tapas {

class LaunchForm : public QWidget {
    Q_OBJECT
public:
    enum Kind { PlanTraining = 0, GanTraining = 1 };
    explicit LaunchForm(QWidget* parent = nullptr);

    // The run the form describes, or a sentence naming the field that is wrong.
    Result<protocol::RunSpec> spec() const;

    void setKind(Kind kind);
    Kind kind() const;
    void setPlanPath(const QString& path);
    void setModelPath(const QString& path);
    // Applies the GAN preset at `index` in presetBox() (0 is "Custom": changes nothing).
    void applyPreset(int index);

    QComboBox* kindBox() const { return kind_; }
    QLineEdit* planEdit() const { return plan_; }
    QLineEdit* modelEdit() const { return model_; }
    QSpinBox* ranksBox() const { return ranks_; }
    QLineEdit* hostsEdit() const { return hosts_; }
    QSpinBox* stepsBox() const { return steps_; }
    QSpinBox* checkpointBox() const { return checkpoint_; }
    QComboBox* presetBox() const { return preset_; }
    QComboBox* dataBox() const { return data_; }
    QLineEdit* folderEdit() const { return folder_; }
    QComboBox* ganModelBox() const { return ganModel_; }
    QCheckBox* asyncBox() const { return async_; }
    QSpinBox* stalenessBox() const { return staleness_; }
    QPushButton* startButton() const { return start_; }
    QLabel* errorLabel() const { return error_; }

Q_SIGNALS:
    void launchRequested(const tapas::protocol::RunSpec& spec);

protected:
    void changeEvent(QEvent* event) override;

private:
    void submit();
    void browse(QLineEdit* edit, const QString& filter, bool directory);
    void updateEnabled();
    void retranslateUi();

    QComboBox* kind_;
    QStackedWidget* pages_;
    QLineEdit* plan_;
    QLineEdit* model_;
    QPushButton* planBrowse_;
    QPushButton* modelBrowse_;
    QComboBox* preset_;
    QComboBox* data_;
    QLineEdit* folder_;
    QPushButton* folderBrowse_;
    QComboBox* ganModel_;
    QCheckBox* async_;
    QSpinBox* staleness_;
    QSpinBox* ranks_;
    QLineEdit* hosts_;
    QSpinBox* steps_;
    QSpinBox* checkpoint_;
    QPushButton* start_;
    QLabel* error_;
    QFormLayout* common_;
    QFormLayout* planForm_;
    QFormLayout* ganForm_;
};

} // namespace tapas
