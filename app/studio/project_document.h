#pragma once
// A Tapas Studio project (.tapasproj, JSON): which model with which dims, the cluster, mesh and
// cost options planned for, every plan the last search returned (each a .tapas.json document,
// so loading checks it against the model), which one was under edit, and the user's overrides.
// Reopening imports the model again, restores the plans and re-applies the overrides through
// PlanEditor::apply, so what comes back is the same plan, re-propagated and re-costed.
// Also opens bare plan files (.tapas.json) against the open model.
#include "core/cost/cost_model.h"
#include "core/ir/shape.h"
#include "core/shard/sharding_plan.h"
#include "core/util/result.h"

#include <QObject>
#include <QString>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tapas {

class ModelDocument;
class PlanSession;

inline constexpr int kProjectSchemaVersion = 1;

struct SavedOverride {
    NodeId node = kNoNode;
    std::string nodeName; // checked on load: a node id of another model is refused
    std::string strategy;
};

// The file's content, as parsed (no model needed yet).
struct ProjectFile {
    QString modelPath; // absolute
    DimBindings dims;
    ClusterSpec cluster;
    DeviceMesh mesh;
    CostOptions cost;
    std::vector<std::string> plans; // .tapas.json texts, one per search result
    int current = 0;
    std::vector<SavedOverride> overrides;
};

// `origin` names the file in errors ("project 'x.tapasproj': field 'cluster.nodes' ...").
Result<ProjectFile> parseProjectFile(const QByteArray& json, const QString& origin, const QString& projectDir);
QByteArray projectFileJson(const ProjectFile& file, const QString& projectDir);

class ProjectDocument : public QObject {
    Q_OBJECT
public:
    using ModelOpener = std::function<void(const QString& path, const DimBindings& dims)>;

    ProjectDocument(PlanSession* session, ModelDocument* model, QObject* parent = nullptr);

    // How a project asks the window to import its model (MainWindow::openModel).
    void setModelOpener(ModelOpener opener) { opener_ = std::move(opener); }

    QString path() const { return path_; }
    // Unsaved work: a search result or an edit since the last save or open.
    bool isModified() const;
    bool isRestoring() const { return pending_.has_value(); }

    // Writes the project; returns the error sentence, or an empty string.
    QString save(const QString& path);
    // Reads the project and imports its model; opened() or openFailed() follows (at once when
    // the model is already open with the same dims). Returns an error when the file itself is bad.
    QString open(const QString& path);
    // The model import failed: the pending project fails with that reason.
    void modelLoadFailed(const QString& error);
    // Loads a .tapas.json plan of the open model as the plan under edit; returns the error
    // (e.g. a plan of another model) or an empty string.
    QString openPlanFile(const QString& path);
    // Forgets the project file (a new model was opened by hand).
    void detach();

Q_SIGNALS:
    void opened(const QString& path, const QStringList& warnings);
    void openFailed(const QString& error);
    void modifiedChanged(bool modified);
    void pathChanged(const QString& path);

private:
    void onModelChanged();
    void restore(const ProjectFile& file);
    void setDirty(bool dirty);

    PlanSession* session_;
    ModelDocument* model_;
    ModelOpener opener_;
    QString path_;
    std::optional<ProjectFile> pending_;
    QString pendingPath_;
    bool dirty_ = false;    // new results not saved
    bool restoring_ = false; // our own setResults: not a user change
};

} // namespace tapas
