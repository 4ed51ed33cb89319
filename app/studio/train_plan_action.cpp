#include "app/studio/train_plan_action.h"

#include "app/studio/main_window.h"
#include "app/studio/model_document.h"
#include "app/studio/plan_session.h"
#include "core/plan/plan_file.h"
#include "views/log_view.h"
#include "views/runs/launch_form.h"
#include "views/runs/runs_panel.h"

#include <QAction>
#include <QCoreApplication>
#include <QDir>
#include <QDockWidget>
#include <QEvent>
#include <QFile>
#include <QFileInfo>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>

namespace tapas {

TrainPlanAction::TrainPlanAction(MainWindow* window, PlanSession* session)
    : QObject(window), window_(window), session_(session), action_(new QAction(this))
{
    action_->setObjectName(QStringLiteral("trainPlanAction"));
    action_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
    connect(action_, &QAction::triggered, this, [this] {
        if (const QString error = prepare(); !error.isEmpty()) {
            window_->logView()->error(error);
            window_->statusBar()->showMessage(error, 8000);
        }
    });
    connect(session_, &PlanSession::resultsChanged, this, &TrainPlanAction::updateEnabled);
    connect(session_, &PlanSession::modelChanged, this, &TrainPlanAction::updateEnabled);
    window_->installEventFilter(this);
    retranslate();
    updateEnabled();
}

QString TrainPlanAction::dataDir() const
{
    return dataDir_.isEmpty() ? QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) : dataDir_;
}

bool TrainPlanAction::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == window_ && event->type() == QEvent::LanguageChange) retranslate();
    return QObject::eventFilter(watched, event);
}

void TrainPlanAction::retranslate()
{
    action_->setText(tr("&Train This Plan…"));
    action_->setToolTip(tr("Fill the Runs dock's New Run form with this plan and model (%1)")
                            .arg(action_->shortcut().toString(QKeySequence::NativeText)));
    action_->setStatusTip(tr("Train the plan under edit on MPI ranks: the Runs dock opens with the form filled in"));
}

void TrainPlanAction::updateEnabled()
{
    action_->setEnabled(session_->hasPlan() && session_->graph());
}

QString TrainPlanAction::modelFile(QString* error) const
{
    const QString path = window_->document()->path();
    if (!path.startsWith(QLatin1Char(':'))) return path;
    // The worker is another program: the bundled sample needs a file of its own.
    const QString out = QDir(dataDir()).filePath(QStringLiteral("models/") + QFileInfo(path).fileName());
    QDir().mkpath(QFileInfo(out).absolutePath());
    QFile::remove(out);
    if (!QFile::copy(path, out)) {
        *error = tr("Cannot write the sample model to %1.").arg(QDir::toNativeSeparators(out));
        return {};
    }
    QFile::setPermissions(out, QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup | QFile::ReadOther);
    return out;
}

QString TrainPlanAction::prepare()
{
    const PlanEditor* editor = session_->editor();
    if (!editor || !session_->graph()) return tr("There is no plan to train: run a search first.");
    QString error;
    const QString model = modelFile(&error);
    if (model.isEmpty()) return error;

    // The plan as it is now, edits included, named after the model, the searcher and the mesh.
    const int current = session_->currentResult();
    PlanProvenance provenance;
    QString searcher = QStringLiteral("plan");
    if (current >= 0 && current < int(session_->results().size())) {
        const SearchResult& r = session_->results()[size_t(current)];
        provenance = {r.searcher, QCoreApplication::applicationVersion().toStdString(), r.searchSeconds};
        searcher = QString::fromStdString(r.searcher);
    }
    const DeviceMesh& mesh = editor->plan().mesh;
    const QString planPath = QDir(dataDir()).filePath(
        QStringLiteral("plans/%1-%2-%3.tapas.json")
            .arg(QFileInfo(window_->document()->displayName()).completeBaseName(), searcher,
                 QString::fromStdString(mesh.toString())));
    QDir().mkpath(QFileInfo(planPath).absolutePath());
    const std::string json = savePlanJson(*session_->graph(), session_->folded().get(), editor->plan(),
                                          session_->cluster(), editor->report(), provenance);
    if (Status s = savePlanFile(planPath.toStdString(), json); !s)
        return tr("Cannot write the plan to %1: %2").arg(QDir::toNativeSeparators(planPath), QString::fromStdString(s.error));

    LaunchForm* form = window_->runsPanel()->form();
    form->setKind(LaunchForm::PlanTraining);
    form->setPlanPath(planPath);
    form->setModelPath(model);
    form->ranksBox()->setValue(mesh.size());
    QDockWidget* dock = window_->runsDock();
    dock->show();
    dock->raise();
    form->startButton()->setFocus();
    window_->logView()->info(tr("Ready to train %1 on %n rank(s): press Start Run in the Runs dock.", nullptr, mesh.size())
                                 .arg(QDir::toNativeSeparators(planPath)));
    return {};
}

} // namespace tapas

// The moc output lives in this object, so the window links it only when it uses this class.
#include "moc_train_plan_action.cpp"
