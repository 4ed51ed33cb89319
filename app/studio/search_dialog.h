#pragma once
// Plan ▸ Search…: pick or edit the cluster, the mesh (or let the search try every
// dp x tp mesh), the pipeline (stages only when nothing fits, stages chosen by the search, or a
// fixed pp; micro-batch size, recomputation, interleaving and the distributed optimizer, as
// `tapas search` offers them), the symbolic dims and the searchers, run them off the GUI thread with progress
// and Cancel, and list what each found. The results go to the PlanSession, so the Plan and
// Costs docks show them at once; choosing a row makes that plan the one under edit.
// Wiring only: the searchers, the mesh sweep and the cost model live in core/search.
#include "core/ir/shape.h"
#include "core/search/searcher.h"

#include <QDialog>
#include <QString>

#include <map>
#include <vector>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QStandardItemModel;
class QTableView;

namespace tapas {

class BackgroundJob;
class ClusterEditor;
class PlanSession;

// What one background run hands back: one entry per searcher, a result or its error.
struct SearchOutcome {
    std::vector<SearchResult> results;
    std::vector<QString> errors; // "ilp: ..." for searchers that failed
    std::vector<QString> notes;  // "tapas: no plan without stages fits ..."
    double seconds = 0;
};

class SearchDialog : public QDialog {
    Q_OBJECT
public:
    SearchDialog(PlanSession* session, QWidget* parent = nullptr);
    ~SearchDialog() override;

    // The model's dims as bound at import (shown and editable); symbols still unbound in the
    // graph are listed too. Changing one means the model must be imported again first.
    void setModelDims(const DimBindings& bound);
    DimBindings dims() const;
    // True when dims() differ from the bindings the open model was imported with.
    bool dimsNeedReimport() const;

    ClusterEditor* clusterEditor() const { return cluster_; }
    QComboBox* meshCombo() const { return mesh_; }
    QCheckBox* searcherBox(const QString& name) const;
    QDoubleSpinBox* ilpTimeLimit() const { return ilpLimit_; }
    QCheckBox* keepOverridesBox() const { return keepOverrides_; }
    // The pipeline: when to plan stages (StagesMode in its data), pp when fixed, and the sweep's
    // options (0 in a spin box: let the search pick).
    enum class StagesMode { WhenNothingFits, SearchPicks, Fixed };
    QComboBox* stagesCombo() const { return stages_; }
    void setStagesMode(StagesMode mode);
    QSpinBox* pipelineStagesBox() const { return pp_; }
    QSpinBox* microBatchBox() const { return microBatch_; }
    QComboBox* recomputeCombo() const { return recompute_; }
    QSpinBox* virtualStagesBox() const { return virtualStages_; }
    QCheckBox* distributedOptimizerBox() const { return zero1_; }
    QPushButton* runButton() const { return run_; }
    QPushButton* cancelButton() const { return cancel_; }
    QTableView* resultsTable() const { return table_; }
    QStandardItemModel* resultsModel() const { return resultsModel_; }
    QLabel* statusLabel() const { return status_; }
    QProgressBar* progressBar() const { return progress_; }
    bool isRunning() const;

public Q_SLOTS:
    // Starts the search (or asks for the re-import first). Refusals show in the status line.
    void run();
    void cancel();

Q_SIGNALS:
    // The dims changed: the app re-imports the model with them; run() is called again once
    // the session has the new model.
    void reimportRequested(const tapas::DimBindings& dims);
    void searchFinished(bool ok);

protected:
    void changeEvent(QEvent* event) override;
    void closeEvent(QCloseEvent* event) override;

private:
    void retranslateUi();
    void refreshMeshes();
    void rebuildDims();
    void onFinished();
    void onRowChosen();
    void fillResults();
    void setRunning(bool running);
    void updatePipelineWidgets();
    PipelineOptions pipelineOptions() const;

    PlanSession* session_;
    ClusterEditor* cluster_;
    QComboBox* mesh_;
    QComboBox* dtype_;
    QFormLayout* dimsForm_;
    QLabel* dimsNote_;
    std::map<std::string, QSpinBox*> dimBoxes_;
    DimBindings boundDims_;
    std::map<QString, QCheckBox*> searcherBoxes_;
    QDoubleSpinBox* ilpLimit_;
    QCheckBox* keepOverrides_;
    QComboBox* stages_;
    QSpinBox* pp_;
    QSpinBox* microBatch_;
    QComboBox* recompute_;
    QSpinBox* virtualStages_;
    QCheckBox* zero1_;
    QPushButton* run_;
    QPushButton* cancel_;
    QDialogButtonBox* buttons_;
    QProgressBar* progress_;
    QLabel* status_;
    QTableView* table_;
    QStandardItemModel* resultsModel_;
    BackgroundJob* job_;
    bool waitingForModel_ = false;
    ClusterSpec runCluster_;
    CostOptions runOptions_;
};

} // namespace tapas
