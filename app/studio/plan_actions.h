#pragma once
// The plan workflow's part of the main window: Plan ▸ Search… and Export…, the File
// menu's project actions (Open/Save/Save As Project, Open Plan, recent projects), the Costs dock
// and the unsaved-changes prompt. MainWindow creates one of these; keeping the wiring here keeps
// main_window.cpp about the model and the window.
#include "core/ir/shape.h"

#include <QObject>
#include <QString>

class QAction;
class QMenu;

namespace tapas {

class CostsDock;
class ExportDialog;
class MainWindow;
class PlanSession;
class ProjectDocument;
class RecentFiles;
class SearchDialog;
class TrainPlanAction;

class PlanActions : public QObject {
    Q_OBJECT
public:
    PlanActions(MainWindow* window, PlanSession* session);
    ~PlanActions() override;

    QAction* searchAction() const { return search_; }
    QAction* exportAction() const { return export_; }
    QAction* openProjectAction() const { return openProject_; }
    QAction* saveProjectAction() const { return saveProject_; }
    QAction* saveProjectAsAction() const { return saveProjectAs_; }
    QAction* openPlanAction() const { return openPlan_; }
    QMenu* planMenu() const { return planMenu_; }
    CostsDock* costsDock() const { return costs_; }
    // Plan ▸ Train This Plan: the Runs dock's form filled from the plan and model.
    TrainPlanAction* trainPlan() const { return train_; }
    ProjectDocument* project() const { return project_; }
    RecentFiles* recentProjects() const { return recent_; }
    // Created on first use (Plan ▸ Search… / Export…).
    SearchDialog* searchDialog();
    ExportDialog* exportDialog();

    // With unsaved changes, asks Save / Discard / Cancel. True: the caller may go on.
    bool maybeSave();
    // The actions' programmatic forms (tests, recent projects): error text or empty.
    QString saveProjectTo(const QString& path);
    QString openProjectFile(const QString& path);
    QString openPlanFile(const QString& path);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void createActions();
    void createMenus();
    void retranslate();
    void updateActions();
    void showSearch();
    void showExport();
    bool saveProject();
    bool saveProjectAs();
    // `fileName` in the open model's folder (the home folder for the bundled sample).
    QString besideModel(const QString& fileName) const;
    void chooseAndOpenProject();
    void chooseAndOpenPlan();
    void onModelLoaded();
    void reportError(const QString& title, const QString& error);

    MainWindow* window_;
    PlanSession* session_;
    ProjectDocument* project_;
    RecentFiles* recent_;
    CostsDock* costs_;
    TrainPlanAction* train_;
    SearchDialog* searchDialog_ = nullptr;
    ExportDialog* exportDialog_ = nullptr;
    QString exportModel_; // the model the Export dialog's folder was chosen for
    bool docksSized_ = false;
    bool reimporting_ = false; // the Search dialog asked for new dims: the project stays attached

    QAction* search_ = nullptr;
    QAction* export_ = nullptr;
    QAction* openProject_ = nullptr;
    QAction* saveProject_ = nullptr;
    QAction* saveProjectAs_ = nullptr;
    QAction* openPlan_ = nullptr;
    QMenu* planMenu_ = nullptr;
    QMenu* recentMenu_ = nullptr;
};

} // namespace tapas
