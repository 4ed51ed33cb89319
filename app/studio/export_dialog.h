#pragma once
// Plan ▸ Export…: the plan under edit written in the chosen
// formats (the plan file, Open MPI, SLURM, DTensor, Megatron-LM, DOT/SVG/PNG; one entry per
// registered PlanExporter) for the hosts and GPUs per node given here, into one folder. Every
// format is generated before anything is written, so a refused host name writes nothing and
// the form keeps what the user typed. The written files are listed.
#include <QDialog>
#include <QString>
#include <QStringList>

class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSpinBox;

namespace tapas {

class PlanSession;

class ExportDialog : public QDialog {
    Q_OBJECT
public:
    ExportDialog(PlanSession* session, QWidget* parent = nullptr);

    // The model as the cluster will see it (written into the scripts); the open model's path.
    void setModelPath(const QString& path);
    void setOutputDir(const QString& dir);
    // Checks exactly the formats named (by PlanExporter::name).
    void setFormats(const QStringList& names);
    QStringList formats() const;

    // Exports now; returns the error text shown, or an empty string. The written files are
    // listed in writtenList() (absolute paths).
    QString exportNow();

    QListWidget* formatList() const { return formats_; }
    QLineEdit* hostsEdit() const { return hosts_; }
    QSpinBox* gpusPerNode() const { return gpus_; }
    QLineEdit* outputEdit() const { return output_; }
    QLineEdit* jobNameEdit() const { return jobName_; }
    QListWidget* writtenList() const { return written_; }
    QLabel* statusLabel() const { return status_; }
    QPushButton* exportButton() const { return export_; }
    QStringList writtenFiles() const { return writtenFiles_; }

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslateUi();
    void browse();

    PlanSession* session_;
    QString modelPath_;
    QListWidget* formats_;
    QLineEdit* hosts_;
    QSpinBox* gpus_;
    QLineEdit* jobName_;
    QLineEdit* output_;
    QPushButton* browse_;
    QPushButton* export_;
    QDialogButtonBox* buttons_;
    QLabel* status_;
    QListWidget* written_;
    QStringList writtenFiles_;
};

} // namespace tapas
