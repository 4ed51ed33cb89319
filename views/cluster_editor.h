#pragma once
// Editing a ClusterSpec (in the Search dialog): a preset to start from, then nodes, devices per
// node, device memory, peak FLOP/s and the intra-/inter-node links in the units people quote
// (GiB, TFLOP/s, GB/s, µs). The values are checked by core's parseClusterSpec, so the editor
// and a hand-written JSON file refuse the same things with the same field names; the field at
// fault is also marked in the form. Save As / Load round-trip through clusterSpecToJson.
// What the form has no field for (the op families `tapas cluster calibrate` measured, the
// GEMM rates by size) rides along from the preset or file the form was filled from: editing a
// calibrated cluster's node count must not drop its measurements. The form says they are there,
// and "Forget Measurements" drops them on purpose.
#include "core/cluster/cluster_spec.h"

#include <QString>
#include <QWidget>

#include <map>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace tapas {

class ClusterEditor : public QWidget {
    Q_OBJECT
public:
    explicit ClusterEditor(QWidget* parent = nullptr);

    // Shows `c`; the preset combo switches to "Custom" unless c.name is a built-in preset.
    void setCluster(const ClusterSpec& c);
    // Picks a built-in preset by name; false when there is none of that name.
    bool selectPreset(const QString& name);
    // The edited cluster, or the first field at fault (named as in the JSON file and marked).
    Result<ClusterSpec> cluster() const;

    // Reads a cluster JSON file into the form. On failure the form keeps its values and the
    // error (naming the file and field) is returned and shown.
    QString loadJsonFile(const QString& path);
    QString saveJsonFile(const QString& path) const;

    QComboBox* presetCombo() const { return preset_; }
    QLabel* errorLabel() const { return error_; }
    // The spin box behind a JSON field ("nodes", "memory_bytes", "intra_node.bandwidth", ...).
    QWidget* fieldWidget(const QString& jsonField) const;
    // One line on the measured op families the cluster carries ("none" when it has none).
    QLabel* measurementsLabel() const { return measured_; }
    QPushButton* forgetMeasurementsButton() const { return forget_; }

Q_SIGNALS:
    void clusterChanged();

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslateUi();
    void applyPreset(int index);
    void markField(const std::string& error) const;
    void showError(const QString& text) const;
    void chooseAndLoad();
    void chooseAndSave();
    void showMeasurements();
    void forgetMeasurements();
    void enableRooflineFields();

    QComboBox* preset_;
    QLineEdit* name_;
    QLineEdit* device_;
    QSpinBox* nodes_;
    QSpinBox* devicesPerNode_;
    QDoubleSpinBox* memoryGiB_;
    QDoubleSpinBox* fp32_;
    QDoubleSpinBox* fp16_;
    QDoubleSpinBox* bf16_;
    QDoubleSpinBox* intraBw_;
    QDoubleSpinBox* intraLat_;
    QDoubleSpinBox* interBw_;
    QDoubleSpinBox* interLat_;
    QDoubleSpinBox* efficiency_;
    QComboBox* accelerator_;
    QDoubleSpinBox* hbm_;  // roofline.memory_bandwidth in GB/s; 0: no roofline
    QDoubleSpinBox* l2_;   // roofline.l2_bandwidth in GB/s; 0: not a limit
    QSpinBox* sms_;        // roofline.multiprocessors; 0: no wave quantization
    QLabel* measured_;
    QPushButton* forget_;
    QPushButton* load_;
    QPushButton* save_;
    QLabel* error_;
    std::map<QString, QWidget*> fields_;
    std::map<QWidget*, QLabel*> labels_;
    ClusterSpec base_; // what the form was filled from: the fields it has no widget for come from here
    bool updating_ = false; // setCluster in progress: no "Custom" switch, one clusterChanged
};

} // namespace tapas
