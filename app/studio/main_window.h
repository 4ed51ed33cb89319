#pragma once
// Tapas Studio's main window: menus and actions, the model summary in the centre, the Log dock,
// and the status bar that shows a background load with its Cancel button. Wiring only: the
// importer, summary and every other algorithm live in core/.
#include "core/ir/shape.h"

#include <QMainWindow>
#include <QString>

class QAction;
class QCloseEvent;
class QDragEnterEvent;
class QDropEvent;
class QDockWidget;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QToolBar;

namespace tapas {

class LanguageManager;
class LogView;
class ModelDocument;
class ModelLoader;
class ModelSummaryView;
class PlanActions;
class PlanDocks;
class PlanSession;
class GraphPanel;
class StudioDocks;
class RunsController;
class RunsPanel;
class RecentFiles;
class WelcomeView;
struct LoadedModel;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Starts a background load; modelLoaded() or loadFailed() follows. A load still running is
    // cancelled. Empty `dims` means the session's bindings (from --dim on the command line).
    void openModel(const QString& path, const DimBindings& dims = {});
    // The model embedded as ":/models/sample_gpt.onnx" (first start, Help ▸ Open Sample Model).
    // Returns false when the build embeds no sample model.
    bool openSampleModel();
    // What the program does with no file on the command line: the sample on a first start.
    void openStartupModel();
    void setSessionDims(const DimBindings& dims) { sessionDims_ = dims; }

    ModelSummaryView* summaryView() const { return summary_; }
    LogView* logView() const { return log_; }
    QDockWidget* logDock() const { return logDock_; }
    StudioDocks* docks() const { return docks_; }
    // The plan of the open model and the Plan dock, graph overlay and Undo/Redo on it.
    PlanSession* planSession() const { return planSession_; }
    PlanDocks* planDocks() const { return planDocks_; }
    // Plan ▸ Search…/Export…, the project actions and the Costs dock.
    PlanActions* planActions() const { return planActions_; }
    // The Runs dock (launch form, run list, live monitors) and what wires it to the launcher.
    QDockWidget* runsDock() const { return runsDock_; }
    RunsPanel* runsPanel() const { return runsPanel_; }
    RunsController* runsController() const { return runs_; }
    GraphPanel* graphPanel() const;
    // Shown in the graph's place while no model is open.
    WelcomeView* welcomeView() const { return welcome_; }
    LanguageManager* languageManager() const { return language_; }
    ModelDocument* document() const { return document_; }
    ModelLoader* loader() const { return loader_; }
    QMenu* fileMenu() const { return fileMenu_; }
    QToolBar* mainToolBar() const { return toolBar_; }
    bool isLoading() const;

Q_SIGNALS:
    void modelLoaded();
    void loadFailed(const QString& error);

protected:
    void changeEvent(QEvent* event) override;
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private Q_SLOTS:
    void chooseAndOpen();
    void reload();
    void onLoadStarted(const QString& path);
    void onLoadProgress(int permille, const QString& stage);
    void onLoaded(const tapas::LoadedModel& model);
    void onLoadFailed(const QString& path, const QString& error);
    void onLoadCancelled(const QString& path);
    void onDocumentChanged();
    void showAbout();
    void exportView(bool svg);
    void onGraphNotice(const QString& text);

private:
    void createActions();
    void createMenus();
    void createToolBar();
    void createStatusBar();
    void createDocks();
    void retranslateUi();
    void updateTitle();
    void setLoadingUi(bool loading);
    // Stops whatever is loading: the import and fold, and the graph's layout.
    void cancelLoading();
    void restoreWindowState();
    QString stageText(const QString& stage) const;

    ModelDocument* document_;
    ModelLoader* loader_;
    RecentFiles* recent_;
    LanguageManager* language_;
    ModelSummaryView* summary_;
    LogView* log_;
    QDockWidget* logDock_ = nullptr;
    StudioDocks* docks_ = nullptr;
    PlanSession* planSession_ = nullptr;
    PlanDocks* planDocks_ = nullptr;
    PlanActions* planActions_ = nullptr;
    QDockWidget* runsDock_ = nullptr;
    RunsPanel* runsPanel_ = nullptr;
    RunsController* runs_ = nullptr;
    WelcomeView* welcome_ = nullptr;
    DimBindings sessionDims_;
    QString loadingName_;
    bool dockSizesPending_ = false; // no saved layout: size the docks once the window has its size

    QAction* openAction_ = nullptr;
    QAction* reloadAction_ = nullptr;
    QAction* sampleAction_ = nullptr;
    QAction* quitAction_ = nullptr;
    QAction* cancelLoadAction_ = nullptr;
    QAction* aboutAction_ = nullptr;
    QAction* aboutQtAction_ = nullptr;
    QAction* exportPngAction_ = nullptr;
    QAction* exportSvgAction_ = nullptr;

    QMenu* fileMenu_ = nullptr;
    QMenu* recentMenu_ = nullptr;
    QMenu* editMenu_ = nullptr;
    QMenu* viewMenu_ = nullptr;
    QMenu* settingsMenu_ = nullptr;
    QMenu* languageMenu_ = nullptr;
    QMenu* helpMenu_ = nullptr;
    QToolBar* toolBar_ = nullptr;

    QLabel* stageLabel_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QPushButton* cancelButton_ = nullptr;
};

} // namespace tapas
