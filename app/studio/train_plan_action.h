#pragma once
// Plan ▸ Train This Plan: the plan under edit and the open model, handed to the Runs dock's
// New Run form in one action. The plan is written as a .tapas.json (and the bundled sample as
// an .onnx) under the application's data folder, the form is filled with both and with as many
// ranks as the plan's mesh has devices, and the Runs dock comes forward with Start Run focused.
// Nothing starts until the user presses it: a run takes the machine's cores for a while.
#include <QObject>
#include <QString>

class QAction;

namespace tapas {

class MainWindow;
class PlanSession;

class TrainPlanAction : public QObject {
    Q_OBJECT
public:
    TrainPlanAction(MainWindow* window, PlanSession* session);

    QAction* action() const { return action_; }
    // Fills the form as the action does; returns the error shown, or an empty string.
    QString prepare();
    // Where the plan and the sample model are written (tests point it at a temporary folder).
    void setDataDir(const QString& dir) { dataDir_ = dir; }
    QString dataDir() const;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void retranslate();
    void updateEnabled();
    // The model as a file the worker can read: the open file, or the sample copied out.
    QString modelFile(QString* error) const;

    MainWindow* window_;
    PlanSession* session_;
    QAction* action_;
    QString dataDir_;
};

} // namespace tapas
