#pragma once
// Plan ▸ Export…: the plan under edit written in the chosen
// formats (the plan file, Open MPI, SLURM, DTensor, Megatron-LM, DOT/SVG/PNG; one entry per
// registered PlanExporter) for the hosts and GPUs per node given here, into one folder. Every
// format that can be written is written; the ones that refuse (Megatron's recipe for a TAPAS
// plan, a host name no script can quote) are listed with their reasons beside the written
// files, and the form keeps what the user typed.
#include <QDialog>
#include <QList>
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

    // Exports now; returns the refusals shown (empty: every format was written). The written
    // files are listed in writtenList() (absolute paths), the refused formats in refusedList().
    QString exportNow();

    QListWidget* formatList() const { return formats_; }
    QLineEdit* hostsEdit() const { return hosts_; }
    QSpinBox* gpusPerNode() const { return gpus_; }
    QLineEdit* outputEdit() const { return output_; }
    QLineEdit* jobNameEdit() const { return jobName_; }
    QListWidget* writtenList() const { return written_; }
    QListWidget* refusedList() const { return refused_; }
    QList<QLabel*> formLabels() const { return formLabels_; }
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
    QListWidget* refused_;
    QLabel* writtenTitle_;
    QLabel* refusedTitle_;
    QList<QLabel*> formLabels_;
    QStringList writtenFiles_;
};

} // namespace tapas
