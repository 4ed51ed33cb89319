#include "app/studio/main_window.h"

#include "app/studio/costs_dock.h"
#include "app/studio/docks.h"
#include "app/studio/language_manager.h"
#include "app/studio/model_document.h"
#include "app/studio/model_loader.h"
#include "app/studio/plan_actions.h"
#include "app/studio/plan_docks.h"
#include "app/studio/plan_session.h"
#include "app/studio/recent_files.h"
#include "app/studio/runs_controller.h"
#include "views/graph/graph_panel.h"
#include "views/log_view.h"
#include "views/model_summary_view.h"
#include "views/runs/runs_panel.h"
#include "views/number_text.h"
#include "views/welcome_view.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QStyle>
#include <QToolBar>

#include <algorithm>

namespace tapas {

namespace {

const QString kSampleModel = QStringLiteral(":/models/sample_gpt.onnx");
const QString kGeometryKey = QStringLiteral("mainWindow/geometry");
const QString kStateKey = QStringLiteral("mainWindow/state");
const QString kLastDirKey = QStringLiteral("mainWindow/lastDir");
constexpr int kStateVersion = 4; // bump when docks change so an old layout is not restored

// The importer's stage labels, so the status bar speaks the user's language.
[[maybe_unused]] const char* const kStageLabels[] = {
    QT_TRANSLATE_NOOP("tapas::ImportStage", "reading"),
    QT_TRANSLATE_NOOP("tapas::ImportStage", "parsing"),
    QT_TRANSLATE_NOOP("tapas::ImportStage", "dropping weight data"),
    QT_TRANSLATE_NOOP("tapas::ImportStage", "checking node order"),
    QT_TRANSLATE_NOOP("tapas::ImportStage", "shape inference"),
    QT_TRANSLATE_NOOP("tapas::ImportStage", "checking the model"),
    QT_TRANSLATE_NOOP("tapas::ImportStage", "converting"),
    QT_TRANSLATE_NOOP("tapas::ImportStage", "filling shapes"),
    QT_TRANSLATE_NOOP("tapas::ImportStage", "done"),
    QT_TRANSLATE_NOOP("tapas::ImportStage", "summarizing"),
    QT_TRANSLATE_NOOP("tapas::ImportStage", "folding"),
};

QStringList onnxFilesIn(const QMimeData* mime)
{
    QStringList files;
    if (!mime || !mime->hasUrls()) return files;
    for (const QUrl& url : mime->urls())
        if (url.isLocalFile() && url.toLocalFile().endsWith(QLatin1String(".onnx"), Qt::CaseInsensitive))
            files << url.toLocalFile();
    return files;
}

} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), document_(new ModelDocument(this)), loader_(new ModelLoader(this)),
      recent_(new RecentFiles(this)), language_(new LanguageManager(this)),
      summary_(new ModelSummaryView(this)), log_(new LogView(this))
{
    setObjectName(QStringLiteral("mainWindow"));
    setAcceptDrops(true);
    createActions();
    createMenus();
    createToolBar();
    createStatusBar();
    createDocks();

    connect(loader_, &ModelLoader::started, this, &MainWindow::onLoadStarted);
    connect(loader_, &ModelLoader::progressChanged, this, &MainWindow::onLoadProgress);
    connect(loader_, &ModelLoader::loaded, this, &MainWindow::onLoaded);
    connect(loader_, &ModelLoader::failed, this, &MainWindow::onLoadFailed);
    connect(loader_, &ModelLoader::cancelled, this, &MainWindow::onLoadCancelled);
    connect(document_, &ModelDocument::changed, this, &MainWindow::onDocumentChanged);
    connect(recent_, &RecentFiles::openRequested, this, [this](const QString& p) { openModel(p); });
    connect(recent_, &RecentFiles::changed, this, [this] { welcome_->setRecentFiles(recent_->files()); });
    connect(recent_, &RecentFiles::pruned, this, [this](const QStringList& missing) {
        for (const QString& m : missing)
            log_->warning(tr("Removed %1 from the recent files: the file no longer exists.")
                              .arg(QDir::toNativeSeparators(m)));
        statusBar()->showMessage(tr("%n missing file(s) removed from the recent files.", nullptr,
                                    int(missing.size())), 5000);
    });

    retranslateUi();
    restoreWindowState();
    updateTitle();
}

MainWindow::~MainWindow() = default;

void MainWindow::createActions()
{
    openAction_ = new QAction(style()->standardIcon(QStyle::SP_DialogOpenButton), QString(), this);
    openAction_->setShortcut(QKeySequence::Open);
    connect(openAction_, &QAction::triggered, this, &MainWindow::chooseAndOpen);

    reloadAction_ = new QAction(style()->standardIcon(QStyle::SP_BrowserReload), QString(), this);
    reloadAction_->setShortcut(QKeySequence::Refresh);
    reloadAction_->setEnabled(false);
    connect(reloadAction_, &QAction::triggered, this, &MainWindow::reload);

    sampleAction_ = new QAction(this);
    sampleAction_->setEnabled(QFile::exists(kSampleModel));
    connect(sampleAction_, &QAction::triggered, this, &MainWindow::openSampleModel);

    cancelLoadAction_ = new QAction(style()->standardIcon(QStyle::SP_BrowserStop), QString(), this);
    cancelLoadAction_->setShortcut(Qt::Key_Escape);
    cancelLoadAction_->setEnabled(false);
    connect(cancelLoadAction_, &QAction::triggered, this, &MainWindow::cancelLoading);

    quitAction_ = new QAction(this);
    quitAction_->setShortcut(QKeySequence::Quit);
    quitAction_->setMenuRole(QAction::QuitRole);
    connect(quitAction_, &QAction::triggered, this, &QWidget::close);

    aboutAction_ = new QAction(this);
    aboutAction_->setMenuRole(QAction::AboutRole);
    connect(aboutAction_, &QAction::triggered, this, &MainWindow::showAbout);
    aboutQtAction_ = new QAction(this);
    aboutQtAction_->setMenuRole(QAction::AboutQtRole);
    connect(aboutQtAction_, &QAction::triggered, qApp, &QApplication::aboutQt);

    exportPngAction_ = new QAction(this);
    exportPngAction_->setEnabled(false);
    connect(exportPngAction_, &QAction::triggered, this, [this] { exportView(false); });
    exportSvgAction_ = new QAction(this);
    exportSvgAction_->setEnabled(false);
    connect(exportSvgAction_, &QAction::triggered, this, [this] { exportView(true); });
}

void MainWindow::createMenus()
{
    fileMenu_ = menuBar()->addMenu(QString());
    fileMenu_->addAction(openAction_);
    recentMenu_ = fileMenu_->addMenu(QString());
    recent_->attachMenu(recentMenu_);
    fileMenu_->addAction(reloadAction_);
    fileMenu_->addAction(sampleAction_);
    fileMenu_->addSeparator();
    fileMenu_->addAction(exportPngAction_);
    fileMenu_->addAction(exportSvgAction_);
    fileMenu_->addSeparator();
    fileMenu_->addAction(cancelLoadAction_);
    fileMenu_->addSeparator();
    fileMenu_->addAction(quitAction_);

    editMenu_ = menuBar()->addMenu(QString()); // Find: the graph panel's action (createDocks)
    viewMenu_ = menuBar()->addMenu(QString()); // zoom, then the docks' and toolbar's toggles

    settingsMenu_ = menuBar()->addMenu(QString());
    languageMenu_ = settingsMenu_->addMenu(QString());
    language_->populateMenu(languageMenu_);

    helpMenu_ = menuBar()->addMenu(QString());
    helpMenu_->addAction(aboutAction_);
    helpMenu_->addAction(aboutQtAction_);
}

void MainWindow::createToolBar()
{
    toolBar_ = addToolBar(QString());
    toolBar_->setObjectName(QStringLiteral("mainToolBar"));
    toolBar_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    toolBar_->addAction(openAction_);
    toolBar_->addAction(reloadAction_);
    viewMenu_->addAction(toolBar_->toggleViewAction());
}

void MainWindow::createStatusBar()
{
    stageLabel_ = new QLabel(this);
    progress_ = new QProgressBar(this);
    progress_->setRange(0, 1000);
    progress_->setMaximumWidth(220);
    progress_->setTextVisible(false);
    cancelButton_ = new QPushButton(this);
    cancelButton_->setFlat(true);
    connect(cancelButton_, &QPushButton::clicked, this, &MainWindow::cancelLoading);
    statusBar()->addPermanentWidget(stageLabel_);
    statusBar()->addPermanentWidget(progress_);
    statusBar()->addPermanentWidget(cancelButton_);
    setLoadingUi(false);
}

void MainWindow::createDocks()
{
    docks_ = new StudioDocks(this, summary_, viewMenu_);
    GraphPanel* panel = docks_->panel();
    // No model yet: the graph's place offers Open, the sample and the recent models.
    welcome_ = new WelcomeView(panel);
    welcome_->setSampleAvailable(QFile::exists(kSampleModel));
    welcome_->setRecentFiles(recent_->files());
    panel->setPlaceholder(welcome_);
    connect(welcome_, &WelcomeView::openRequested, this, &MainWindow::chooseAndOpen);
    connect(welcome_, &WelcomeView::sampleRequested, this, &MainWindow::openSampleModel);
    connect(welcome_, &WelcomeView::recentRequested, this, [this](const QString& p) { openModel(p); });
    // The panel's own actions, so menu, toolbar and Ctrl+F are one thing.
    panel->findAction()->setShortcutContext(Qt::WindowShortcut);
    editMenu_->addAction(panel->findAction());
    viewMenu_->insertAction(viewMenu_->actions().value(0), panel->fitAction());
    viewMenu_->insertAction(viewMenu_->actions().value(1), panel->zoomInAction());
    viewMenu_->insertAction(viewMenu_->actions().value(2), panel->zoomOutAction());
    viewMenu_->insertSeparator(viewMenu_->actions().value(3));
    connect(panel->view(), &GraphView::notice, this, &MainWindow::onGraphNotice);
    // Laying out the graph is part of loading: File > Cancel Loading (Esc) stops it too.
    connect(panel->view(), &GraphView::busyChanged, this, [this] { setLoadingUi(loader_->isBusy()); });
    logDock_ = new QDockWidget(this);
    logDock_->setObjectName(QStringLiteral("logDock")); // saveState/restoreState key
    logDock_->setWidget(log_);
    logDock_->setAllowedAreas(Qt::AllDockWidgetAreas);
    addDockWidget(Qt::BottomDockWidgetArea, logDock_);
    viewMenu_->addAction(logDock_->toggleViewAction());
    planSession_ = new PlanSession(this);
    planDocks_ = new PlanDocks(this, planSession_, panel, editMenu_, viewMenu_);
    tabifyDockWidget(logDock_, planDocks_->planDock());
    planActions_ = new PlanActions(this, planSession_);
    runsPanel_ = new RunsPanel(this);
    runsDock_ = new QDockWidget(this);
    runsDock_->setObjectName(QStringLiteral("runsDock")); // saveState/restoreState key
    runsDock_->setWidget(runsPanel_);
    runsDock_->setAllowedAreas(Qt::AllDockWidgetAreas);
    addDockWidget(Qt::BottomDockWidgetArea, runsDock_);
    tabifyDockWidget(logDock_, runsDock_);
    viewMenu_->addAction(runsDock_->toggleViewAction());
    runs_ = new RunsController(runsPanel_, this);
    // The Runs dock waits behind the bottom tabs until a run is started or opened.
    connect(runs_, &RunsController::runOpened, this, [this] {
        runsDock_->show();
        runsDock_->raise();
    });
    connect(runs_, &RunsController::message, this, [this](int severity, const QString& text) {
        log_->add(severity == 0 ? LogSeverity::Info : severity == 1 ? LogSeverity::Warning : LogSeverity::Error, text);
    });
}

void MainWindow::restoreWindowState()
{
    QSettings settings;
    if (!restoreGeometry(settings.value(kGeometryKey).toByteArray())) {
        // A first start: a comfortable size that still fits small screens.
        QSize size(1280, 820);
        if (const QScreen* s = screen()) size = size.boundedTo(s->availableSize() * 0.9);
        resize(size);
    }
    dockSizesPending_ = !restoreState(settings.value(kStateKey).toByteArray(), kStateVersion);
    if (dockSizesPending_) {
        // A first start: the graph gets the window. The bottom docks wait in their places until
        // used (a plan shows the Plan and Costs docks, a run the Runs dock; View lists them all).
        for (QDockWidget* d : std::initializer_list<QDockWidget*>{logDock_, planDocks_->planDock(), runsDock_,
                                                                  planActions_->costsDock()})
            d->hide();
    }
}

void MainWindow::showEvent(QShowEvent* event)
{
    QMainWindow::showEvent(event);
    if (!dockSizesPending_) return;
    dockSizesPending_ = false;
    // Before the first show the docks share out a window of no size; the graph needs the room:
    // one column on the right, a quarter of the width (within reason), split between the Blocks
    // and the Inspector.
    const int column = std::clamp(width() * 22 / 100, 290, 440);
    resizeDocks({docks_->blocksDock()}, {column}, Qt::Horizontal);
    const int rest = std::max(200, height() - 160);
    resizeDocks({docks_->blocksDock(), docks_->inspectorDock()}, {rest * 2 / 5, rest * 3 / 5}, Qt::Vertical);
    resizeDocks({logDock_}, {160}, Qt::Vertical);
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!planActions_->maybeSave()) { // unsaved plans: the user chose Cancel
        event->ignore();
        return;
    }
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kStateKey, saveState(kStateVersion));
    cancelLoading();
    QMainWindow::closeEvent(event);
}

void MainWindow::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange) retranslateUi();
    QMainWindow::changeEvent(event);
}

void MainWindow::retranslateUi()
{
    openAction_->setText(tr("&Open…"));
    openAction_->setToolTip(tr("Open an ONNX model (%1)").arg(openAction_->shortcut().toString(QKeySequence::NativeText)));
    openAction_->setStatusTip(tr("Open an ONNX model"));
    reloadAction_->setText(tr("&Reload"));
    reloadAction_->setStatusTip(tr("Read the open model from disk again"));
    sampleAction_->setText(tr("Open &Sample Model"));
    sampleAction_->setStatusTip(tr("Open the GPT sample model that ships with Tapas Studio"));
    cancelLoadAction_->setText(tr("&Cancel Loading"));
    quitAction_->setText(tr("&Quit"));
    aboutAction_->setText(tr("&About Tapas Studio"));
    aboutQtAction_->setText(tr("About &Qt"));

    fileMenu_->setTitle(tr("&File"));
    recentMenu_->setTitle(tr("Open &Recent"));
    recent_->retranslate();
    viewMenu_->setTitle(tr("&View"));
    settingsMenu_->setTitle(tr("&Settings"));
    languageMenu_->setTitle(tr("&Language"));
    helpMenu_->setTitle(tr("&Help"));
    toolBar_->setWindowTitle(tr("Main Toolbar"));
    logDock_->setWindowTitle(tr("Log"));
    docks_->retranslate();
    planDocks_->retranslate();
    runsDock_->setWindowTitle(tr("Runs"));
    editMenu_->setTitle(tr("&Edit"));
    exportPngAction_->setText(tr("Export View as &PNG…"));
    exportPngAction_->setStatusTip(tr("Save the whole graph picture as a PNG image"));
    exportSvgAction_->setText(tr("Export View as S&VG…"));
    exportSvgAction_->setStatusTip(tr("Save the whole graph picture as an SVG drawing"));
    cancelButton_->setText(tr("Cancel"));
    cancelButton_->setToolTip(tr("Stop loading and keep the current model"));
    if (!document_->isEmpty()) onDocumentChanged(); // the summary's location line is ours to translate
    updateTitle();
}

void MainWindow::updateTitle()
{
    if (document_->isEmpty())
        setWindowTitle(tr("Tapas Studio"));
    else
        setWindowTitle(tr("%1 — Tapas Studio").arg(document_->displayName()));
}

bool MainWindow::isLoading() const
{
    return loader_->isBusy();
}

void MainWindow::openModel(const QString& path, const DimBindings& dims)
{
    loader_->loadFile(path, dims.empty() ? sessionDims_ : dims);
}

bool MainWindow::openSampleModel()
{
    QFile f(kSampleModel);
    if (!f.open(QIODevice::ReadOnly)) {
        log_->warning(tr("This build embeds no sample model (%1).").arg(kSampleModel));
        return false;
    }
    loader_->loadBytes(f.readAll(), kSampleModel, sessionDims_);
    return true;
}

void MainWindow::openStartupModel()
{
    if (recent_->isEmpty()) openSampleModel();
}

void MainWindow::chooseAndOpen()
{
    if (!planActions_->maybeSave()) return;
    QSettings settings;
    const QString dir = settings.value(kLastDirKey).toString();
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Model"), dir,
                                                      tr("ONNX models (*.onnx);;All files (*)"));
    if (path.isEmpty()) return;
    settings.setValue(kLastDirKey, QFileInfo(path).absolutePath());
    openModel(path);
}

void MainWindow::reload()
{
    if (!document_->isEmpty() && !document_->path().startsWith(QLatin1Char(':')))
        openModel(document_->path(), document_->dims());
}

void MainWindow::onLoadStarted(const QString& path)
{
    loadingName_ = QFileInfo(path).fileName();
    log_->info(tr("Opening %1").arg(QDir::toNativeSeparators(path)));
    setLoadingUi(true);
}

void MainWindow::onLoadProgress(int permille, const QString& stage)
{
    // "done" is followed at once by the result, which hides the bar: QProgressBar::setValue
    // repaints at once, and with it everything else of the window waiting to be painted.
    if (permille >= 1000) return;
    progress_->setValue(permille);
    stageLabel_->setText(tr("Opening %1: %2…").arg(loadingName_, stageText(stage)));
}

QString MainWindow::stageText(const QString& stage) const
{
    return QCoreApplication::translate("tapas::ImportStage", stage.toUtf8().constData());
}

void MainWindow::onLoaded(const LoadedModel& model)
{
    setLoadingUi(loader_->isBusy());
    const bool fromFile = !model.path.startsWith(QLatin1Char(':'));
    document_->setModel(model);
    docks_->setModel(document_->graph(), document_->folded());
    planSession_->setModel(document_->graph(), document_->folded());
    exportPngAction_->setEnabled(true);
    exportSvgAction_->setEnabled(true);
    // Its own turn of the event loop: saving the list and rebuilding the menu and welcome page
    // (about 30 ms) need not lengthen the GUI thread's longest step of opening a model.
    if (fromFile) QMetaObject::invokeMethod(this, [this, path = model.path] { recent_->add(path); }, Qt::QueuedConnection);
    const ModelSummary& s = document_->summary();
    log_->info(tr("Opened %1: %2 nodes, %3 parameters, %4 FLOPs per forward pass (%5 ms)")
                   .arg(model.displayName, groupedCount(s.nodes), shortCount(double(s.params)),
                        shortCount(s.flops))
                   .arg(model.elapsedMs));
    for (const std::string& w : s.warnings) log_->warning(QString::fromStdString(w));
    if (!model.foldError.isEmpty())
        log_->warning(tr("Could not fold %1, every node is shown unique: %2").arg(model.displayName, model.foldError));
    else if (model.folded)
        log_->info(tr("Folded %1: %n repeated block class(es), %2% of the nodes in repeated blocks", nullptr,
                      model.folded->repeatedClassCount())
                       .arg(model.displayName)
                       .arg(model.folded->coverage * 100.0, 0, 'f', 1));
    statusBar()->showMessage(tr("Opened %1").arg(model.displayName), 5000);
    Q_EMIT modelLoaded();
}

void MainWindow::onLoadFailed(const QString& path, const QString& error)
{
    setLoadingUi(loader_->isBusy());
    log_->error(error);
    statusBar()->showMessage(tr("Could not open %1").arg(QFileInfo(path).fileName()), 5000);
    // open() rather than exec(): no nested event loop, the window keeps running behind it.
    auto* box = new QMessageBox(QMessageBox::Critical, tr("Cannot Open Model"), error, QMessageBox::Ok, this);
    box->setObjectName(QStringLiteral("loadErrorBox"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
    Q_EMIT loadFailed(error);
}

void MainWindow::onLoadCancelled(const QString& path)
{
    setLoadingUi(loader_->isBusy());
    log_->info(tr("Cancelled opening %1").arg(QDir::toNativeSeparators(path)));
    statusBar()->showMessage(tr("Loading cancelled"), 3000);
}

void MainWindow::onDocumentChanged()
{
    if (document_->isEmpty())
        summary_->clear();
    else if (document_->path().startsWith(QLatin1Char(':')))
        summary_->setSummary(document_->summary(), tr("Sample model bundled with Tapas Studio"));
    else
        summary_->setSummary(document_->summary(), QDir::toNativeSeparators(document_->path()));
    reloadAction_->setEnabled(!document_->isEmpty() && !document_->path().startsWith(QLatin1Char(':')));
    updateTitle();
}

void MainWindow::cancelLoading()
{
    loader_->cancel();
    graphPanel()->view()->cancelLayout();
}

void MainWindow::setLoadingUi(bool loading)
{
    stageLabel_->setVisible(loading);
    progress_->setVisible(loading);
    cancelButton_->setVisible(loading);
    cancelLoadAction_->setEnabled(loading || (docks_ && graphPanel()->view()->isBusy()));
    if (!loading) {
        progress_->setValue(0);
        stageLabel_->clear();
    }
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (!onnxFilesIn(event->mimeData()).isEmpty()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    const QStringList files = onnxFilesIn(event->mimeData());
    if (files.isEmpty()) return;
    event->acceptProposedAction();
    if (files.size() > 1)
        log_->info(tr("%n file(s) dropped; opening the first, %1.", nullptr, int(files.size()))
                       .arg(QFileInfo(files.first()).fileName()));
    openModel(files.first());
}

GraphPanel* MainWindow::graphPanel() const
{
    return docks_->panel();
}

void MainWindow::onGraphNotice(const QString& text)
{
    log_->info(text);
    statusBar()->showMessage(text, 8000);
}

void MainWindow::exportView(bool svg)
{
    if (document_->isEmpty()) return;
    QSettings settings;
    const QString base = QFileInfo(document_->displayName()).completeBaseName();
    const QString suggested = QDir(settings.value(kLastDirKey).toString())
                                  .filePath(base + (svg ? QStringLiteral(".svg") : QStringLiteral(".png")));
    const QString path = svg
        ? QFileDialog::getSaveFileName(this, tr("Export View as SVG"), suggested, tr("SVG drawings (*.svg)"))
        : QFileDialog::getSaveFileName(this, tr("Export View as PNG"), suggested, tr("PNG images (*.png)"));
    if (path.isEmpty()) return;
    QString error;
    const GraphView* view = graphPanel()->view();
    const bool ok = svg ? view->exportSvg(path, &error) : view->exportPng(path, &error);
    if (!ok) {
        log_->error(error);
        QMessageBox::warning(this, tr("Export Failed"), error);
        return;
    }
    log_->info(tr("Exported the view to %1").arg(QDir::toNativeSeparators(path)));
    statusBar()->showMessage(tr("Exported %1").arg(QFileInfo(path).fileName()), 5000);
}

void MainWindow::showAbout()
{
    QMessageBox::about(this, tr("About Tapas Studio"),
                       tr("<h3>Tapas Studio %1</h3>"
                          "<p>A workbench for planning and running distributed training of large "
                          "neural networks: fold the repeated blocks of a model, search a sharding "
                          "plan per unique block, and launch it on a cluster.</p>")
                           .arg(QCoreApplication::applicationVersion()));
}

} // namespace tapas
