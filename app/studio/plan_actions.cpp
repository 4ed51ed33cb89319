#include "app/studio/plan_actions.h"

#include "app/studio/costs_dock.h"
#include "app/studio/export_dialog.h"
#include "app/studio/main_window.h"
#include "app/studio/model_document.h"
#include "app/studio/plan_session.h"
#include "app/studio/project_document.h"
#include "app/studio/recent_files.h"
#include "app/studio/search_dialog.h"
#include "app/studio/train_plan_action.h"
#include "views/cluster_editor.h"
#include "views/log_view.h"

#include <QAction>
#include <QDir>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>
#include <QToolBar>

namespace tapas {

namespace {
const QString kProjectDirKey = QStringLiteral("plan/lastProjectDir");
} // namespace

PlanActions::PlanActions(MainWindow* window, PlanSession* session)
    : QObject(window), window_(window), session_(session), project_(new ProjectDocument(session, window->document(), this)),
      recent_(new RecentFiles(this, QStringLiteral("recentProjects"))), costs_(new CostsDock(session, window)),
      train_(new TrainPlanAction(window, session))
{
    createActions();
    createMenus();
    // Beside the Log/Plan tabs rather than behind them: the costs are read while editing the plan.
    // (Added beside the bottom area's tab group: splitting a dock that is in a tab group would
    // make the Costs one more tab.)
    window_->addDockWidget(Qt::BottomDockWidgetArea, costs_, Qt::Horizontal);

    project_->setModelOpener([this](const QString& path, const DimBindings& dims) {
        if (path.startsWith(QLatin1Char(':'))) { // the bundled sample
            window_->setSessionDims(dims);
            window_->openSampleModel();
        } else {
            window_->openModel(path, dims);
        }
    });
    connect(project_, &ProjectDocument::opened, this, [this](const QString& path, const QStringList& warnings) {
        recent_->add(path);
        for (const QString& w : warnings) window_->logView()->warning(w);
        window_->logView()->info(tr("Opened the project %1").arg(QDir::toNativeSeparators(path)));
        window_->statusBar()->showMessage(tr("Opened %1").arg(QFileInfo(path).fileName()), 5000);
        costs_->raise();
        updateActions();
    });
    connect(project_, &ProjectDocument::openFailed, this, [this](const QString& e) { reportError(tr("Cannot Open Project"), e); });
    connect(project_, &ProjectDocument::modifiedChanged, this, &PlanActions::updateActions);
    connect(recent_, &RecentFiles::openRequested, this, [this](const QString& p) {
        if (maybeSave()) openProjectFile(p);
    });
    connect(window_, &MainWindow::modelLoaded, this, &PlanActions::onModelLoaded);
    connect(window_, &MainWindow::loadFailed, this, [this](const QString& e) {
        reimporting_ = false;
        project_->modelLoadFailed(e);
    });
    connect(session_, &PlanSession::resultsChanged, this, &PlanActions::updateActions);
    connect(session_, &PlanSession::resultsChanged, this, [this] {
        // The first plans: the bottom docks get room for the charts and the table, once.
        if (session_->results().empty() || docksSized_) return;
        docksSized_ = true;
        costs_->show(); // beside the Plan dock, which shows itself
        window_->resizeDocks({costs_}, {320}, Qt::Vertical);
        // The charts need about as much width as the table.
        if (QDockWidget* plan = window_->findChild<QDockWidget*>(QStringLiteral("planDock")))
            window_->resizeDocks({plan, costs_}, {window_->width() * 11 / 20, window_->width() * 9 / 20}, Qt::Horizontal);
    });
    connect(session_, &PlanSession::modelChanged, this, &PlanActions::updateActions);
    window_->installEventFilter(this);
    retranslate();
    updateActions();
}

PlanActions::~PlanActions() = default;

void PlanActions::createActions()
{
    search_ = new QAction(this);
    search_->setObjectName(QStringLiteral("planSearchAction"));
    search_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    connect(search_, &QAction::triggered, this, &PlanActions::showSearch);
    export_ = new QAction(this);
    export_->setObjectName(QStringLiteral("planExportAction"));
    export_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    connect(export_, &QAction::triggered, this, &PlanActions::showExport);
    openProject_ = new QAction(this);
    openProject_->setObjectName(QStringLiteral("openProjectAction"));
    connect(openProject_, &QAction::triggered, this, &PlanActions::chooseAndOpenProject);
    saveProject_ = new QAction(this);
    saveProject_->setObjectName(QStringLiteral("saveProjectAction"));
    saveProject_->setShortcut(QKeySequence::Save);
    connect(saveProject_, &QAction::triggered, this, &PlanActions::saveProject);
    saveProjectAs_ = new QAction(this);
    saveProjectAs_->setObjectName(QStringLiteral("saveProjectAsAction"));
    saveProjectAs_->setShortcut(QKeySequence::SaveAs);
    connect(saveProjectAs_, &QAction::triggered, this, &PlanActions::saveProjectAs);
    openPlan_ = new QAction(this);
    openPlan_->setObjectName(QStringLiteral("openPlanAction"));
    connect(openPlan_, &QAction::triggered, this, &PlanActions::chooseAndOpenPlan);
}

void PlanActions::createMenus()
{
    // File: the project actions after the model ones, before the first separator.
    QMenu* file = window_->fileMenu();
    QAction* before = nullptr;
    for (QAction* a : file->actions())
        if (a->isSeparator()) {
            before = a;
            break;
        }
    file->insertSeparator(before);
    file->insertAction(before, openProject_);
    recentMenu_ = new QMenu(window_);
    file->insertMenu(before, recentMenu_);
    recent_->attachMenu(recentMenu_);
    file->insertAction(before, saveProject_);
    file->insertAction(before, saveProjectAs_);
    file->insertAction(before, openPlan_);

    // Plan: between the window's own menus and Settings / Help.
    planMenu_ = new QMenu(window_);
    planMenu_->setObjectName(QStringLiteral("planMenu"));
    planMenu_->addAction(search_);
    planMenu_->addAction(export_);
    planMenu_->addAction(train_->action());
    planMenu_->addSeparator();
    planMenu_->addAction(costs_->toggleViewAction());
    // The plan's path in the toolbar, in the order it is walked: search, export, train.
    QToolBar* bar = window_->mainToolBar();
    bar->addSeparator();
    bar->addAction(search_);
    bar->addAction(export_);
    bar->addAction(train_->action());
    const QList<QAction*> menus = window_->menuBar()->actions();
    window_->menuBar()->insertMenu(menus.size() >= 2 ? menus[menus.size() - 2] : nullptr, planMenu_);
}

void PlanActions::retranslate()
{
    search_->setText(tr("&Search…"));
    search_->setStatusTip(tr("Search sharding plans for a cluster and compare them"));
    export_->setText(tr("&Export…"));
    export_->setStatusTip(tr("Write the plan for a cluster: plan file, mpirun, SLURM, DTensor, Megatron-LM, graph"));
    openProject_->setText(tr("Open &Project…"));
    openProject_->setStatusTip(tr("Open a Tapas Studio project: model, cluster, plans and overrides"));
    saveProject_->setText(tr("Sa&ve Project"));
    saveProjectAs_->setText(tr("Save Project &As…"));
    openPlan_->setText(tr("Open P&lan File…"));
    openPlan_->setStatusTip(tr("Load a .tapas.json plan of the open model"));
    recentMenu_->setTitle(tr("Recent Pro&jects"));
    recent_->retranslate();
    planMenu_->setTitle(tr("&Plan"));
}

bool PlanActions::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == window_ && event->type() == QEvent::LanguageChange) retranslate();
    return QObject::eventFilter(watched, event);
}

void PlanActions::updateActions()
{
    const bool model = session_->graph() != nullptr;
    search_->setEnabled(model);
    export_->setEnabled(session_->hasPlan());
    saveProject_->setEnabled(model);
    saveProjectAs_->setEnabled(model);
    openPlan_->setEnabled(model);
}

void PlanActions::reportError(const QString& title, const QString& error)
{
    window_->logView()->error(error);
    // open(), not exec(): the window keeps running behind the message.
    auto* box = new QMessageBox(QMessageBox::Critical, title, error, QMessageBox::Ok, window_);
    box->setObjectName(QStringLiteral("planErrorBox"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

SearchDialog* PlanActions::searchDialog()
{
    if (!searchDialog_) {
        searchDialog_ = new SearchDialog(session_, window_);
        searchDialog_->setModelDims(window_->document()->dims());
        connect(searchDialog_, &SearchDialog::reimportRequested, this, [this](const DimBindings& dims) {
            reimporting_ = true;
            const QString path = window_->document()->path();
            if (path.startsWith(QLatin1Char(':'))) {
                window_->setSessionDims(dims);
                window_->openSampleModel();
            } else {
                window_->openModel(path, dims);
            }
        });
        connect(searchDialog_, &SearchDialog::searchFinished, this, [this](bool ok) {
            if (!ok) return;
            costs_->show();
            costs_->raise();
            window_->statusBar()->showMessage(tr("Search finished: %n plan(s)", nullptr, int(session_->results().size())), 5000);
        });
    }
    return searchDialog_;
}

QString PlanActions::besideModel(const QString& fileName) const
{
    // The bundled sample lives in the resources: its files go to the home folder.
    const QString model = window_->document()->path();
    const QDir dir = model.isEmpty() || model.startsWith(QLatin1Char(':')) ? QDir::home() : QFileInfo(model).absoluteDir();
    return dir.filePath(fileName);
}

ExportDialog* PlanActions::exportDialog()
{
    if (!exportDialog_) exportDialog_ = new ExportDialog(session_, window_);
    // The dialog follows the open model: another model gets its own folder beside it and an
    // empty list of written files.
    const QString model = window_->document()->path();
    if (model != exportModel_ || exportDialog_->outputEdit()->text().isEmpty()) {
        exportModel_ = model;
        exportDialog_->setOutputDir(
            besideModel(QFileInfo(window_->document()->displayName()).completeBaseName() + QStringLiteral("-export")));
    }
    exportDialog_->setModelPath(model);
    return exportDialog_;
}

void PlanActions::showSearch()
{
    SearchDialog* d = searchDialog();
    // Reopened over results: show the cluster they were planned for, not the last one typed.
    if (!session_->results().empty() && !d->isRunning()) d->clusterEditor()->setCluster(session_->cluster());
    d->show();
    d->raise();
    d->activateWindow();
}

void PlanActions::showExport()
{
    ExportDialog* d = exportDialog();
    d->show();
    d->raise();
    d->activateWindow();
}

void PlanActions::onModelLoaded()
{
    if (searchDialog_) searchDialog_->setModelDims(window_->document()->dims());
    if (reimporting_) {
        reimporting_ = false;
        // The dims the search asked for are bound now: carry on with the search.
        if (searchDialog_) QMetaObject::invokeMethod(searchDialog_, &SearchDialog::run, Qt::QueuedConnection);
        return;
    }
    if (!project_->isRestoring()) project_->detach(); // a model opened by hand is a new piece of work
    updateActions();
}

bool PlanActions::maybeSave()
{
    if (!project_->isModified()) return true;
    QMessageBox box(QMessageBox::Warning, tr("Unsaved Changes"),
                    tr("The plans and overrides have changes that are not saved. Save them as a project?"),
                    QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, window_);
    box.setObjectName(QStringLiteral("unsavedChangesBox"));
    box.setDefaultButton(QMessageBox::Save);
    switch (box.exec()) {
    case QMessageBox::Save: return saveProject();
    case QMessageBox::Discard: return true;
    default: return false;
    }
}

QString PlanActions::saveProjectTo(const QString& path)
{
    const QString error = project_->save(path);
    if (!error.isEmpty()) {
        reportError(tr("Cannot Save Project"), error);
        return error;
    }
    recent_->add(path);
    QSettings().setValue(kProjectDirKey, QFileInfo(path).absolutePath());
    window_->logView()->info(tr("Saved the project %1").arg(QDir::toNativeSeparators(path)));
    window_->statusBar()->showMessage(tr("Saved %1").arg(QFileInfo(path).fileName()), 5000);
    return {};
}

bool PlanActions::saveProject()
{
    if (project_->path().isEmpty()) return saveProjectAs();
    return saveProjectTo(project_->path()).isEmpty();
}

bool PlanActions::saveProjectAs()
{
    // Beside the model it plans (a project names its model by a relative path when it can).
    const QString suggested = !project_->path().isEmpty()
        ? project_->path()
        : besideModel(QFileInfo(window_->document()->displayName()).completeBaseName() + QStringLiteral(".tapasproj"));
    const QString path = QFileDialog::getSaveFileName(window_, tr("Save Project"), suggested,
                                                      tr("Tapas Studio projects (*.tapasproj)"));
    if (path.isEmpty()) return false;
    return saveProjectTo(path).isEmpty();
}

QString PlanActions::openProjectFile(const QString& path)
{
    const QString error = project_->open(path);
    if (!error.isEmpty()) reportError(tr("Cannot Open Project"), error);
    return error;
}

QString PlanActions::openPlanFile(const QString& path)
{
    const QString error = project_->openPlanFile(path);
    if (!error.isEmpty()) {
        reportError(tr("Cannot Open Plan"), error);
        return error;
    }
    window_->logView()->info(tr("Opened the plan %1").arg(QDir::toNativeSeparators(path)));
    costs_->raise();
    return {};
}

void PlanActions::chooseAndOpenProject()
{
    if (!maybeSave()) return;
    const QString path = QFileDialog::getOpenFileName(window_, tr("Open Project"), QSettings().value(kProjectDirKey).toString(),
                                                      tr("Tapas Studio projects (*.tapasproj);;All files (*)"));
    if (!path.isEmpty()) openProjectFile(path);
}

void PlanActions::chooseAndOpenPlan()
{
    if (!maybeSave()) return;
    const QString path = QFileDialog::getOpenFileName(window_, tr("Open Plan"), QSettings().value(kProjectDirKey).toString(),
                                                      tr("Plan files (*.tapas.json *.json);;All files (*)"));
    if (!path.isEmpty()) openPlanFile(path);
}

} // namespace tapas

// The moc output lives in this object, so the window links it only when it uses this class.
#include "moc_plan_actions.cpp"
