#include "app/studio/project_document.h"

#include "app/studio/model_document.h"
#include "app/studio/plan_session.h"
#include "core/cost/staged_cost.h"
#include "core/plan/plan_file.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QStringList>

#include <nlohmann/json.hpp>

namespace tapas {

namespace {

using nlohmann::json;

std::string fieldError(const QString& origin, const std::string& field, const std::string& what)
{
    return "project '" + origin.toStdString() + "': field '" + field + "' " + what;
}

bool isResourcePath(const QString& p)
{
    return p.startsWith(QLatin1Char(':'));
}

// The model is stored relative to the project when it sits beside it, so a project folder can move.
QString storedModelPath(const QString& modelPath, const QString& projectDir)
{
    if (isResourcePath(modelPath) || projectDir.isEmpty()) return modelPath;
    const QString rel = QDir(projectDir).relativeFilePath(modelPath);
    return rel.startsWith(QLatin1String("..")) ? QFileInfo(modelPath).absoluteFilePath() : rel;
}

} // namespace

QByteArray projectFileJson(const ProjectFile& file, const QString& projectDir)
{
    json j;
    j["format"] = "tapas-project";
    j["version"] = kProjectSchemaVersion;
    json dims = json::object();
    for (const auto& [name, value] : file.dims) dims[name] = value;
    j["model"] = {{"path", storedModelPath(file.modelPath, projectDir).toStdString()}, {"dims", dims}};
    j["cluster"] = json::parse(clusterSpecToJson(file.cluster));
    j["mesh"] = file.mesh.toString();
    j["cost_options"] = {{"dtype", file.cost.dtype}, {"bytes_per_param", file.cost.bytesPerParam},
                         {"backward_factor", file.cost.backwardFactor}};
    json plans = json::array();
    for (const std::string& p : file.plans) plans.push_back(json::parse(p));
    j["plans"] = plans;
    j["current"] = file.current;
    json overrides = json::array();
    for (const SavedOverride& o : file.overrides)
        overrides.push_back({{"node", o.node}, {"name", o.nodeName}, {"strategy", o.strategy}});
    j["overrides"] = overrides;
    return QByteArray::fromStdString(j.dump(1) + "\n");
}

Result<ProjectFile> parseProjectFile(const QByteArray& text, const QString& origin, const QString& projectDir)
{
    using R = Result<ProjectFile>;
    const json j = json::parse(text.toStdString(), nullptr, false);
    if (j.is_discarded() || !j.is_object()) return R::failure("project '" + origin.toStdString() + "': not a JSON object");
    if (j.value("format", std::string()) != "tapas-project")
        return R::failure(fieldError(origin, "format", "must be \"tapas-project\" (is this a Tapas Studio project?)"));
    if (!j.contains("version") || !j["version"].is_number_integer() || j["version"].get<int>() != kProjectSchemaVersion)
        return R::failure(fieldError(origin, "version", "must be " + std::to_string(kProjectSchemaVersion)));
    ProjectFile f;
    if (!j.contains("model") || !j["model"].is_object() || !j["model"].contains("path") || !j["model"]["path"].is_string())
        return R::failure(fieldError(origin, "model.path", "is missing"));
    const QString stored = QString::fromStdString(j["model"]["path"].get<std::string>());
    f.modelPath = isResourcePath(stored) || QFileInfo(stored).isAbsolute() ? stored : QDir(projectDir).absoluteFilePath(stored);
    if (j["model"].contains("dims")) {
        const json& d = j["model"]["dims"];
        if (!d.is_object()) return R::failure(fieldError(origin, "model.dims", "must be an object of name: value"));
        for (const auto& [name, value] : d.items()) {
            if (!value.is_number_integer() || value.get<int64_t>() <= 0)
                return R::failure(fieldError(origin, "model.dims." + name, "must be a positive integer"));
            f.dims[name] = value.get<int64_t>();
        }
    }
    if (!j.contains("cluster")) return R::failure(fieldError(origin, "cluster", "is missing"));
    Result<ClusterSpec> cluster = parseClusterSpec(j["cluster"].dump(), origin.toStdString() + "' field 'cluster");
    if (!cluster) return R::failure(cluster.error());
    f.cluster = *cluster;
    if (!j.contains("mesh") || !j["mesh"].is_string()) return R::failure(fieldError(origin, "mesh", "must be a string like \"2x4\""));
    Result<DeviceMesh> mesh = parseMesh(j["mesh"].get<std::string>());
    if (!mesh) return R::failure(fieldError(origin, "mesh", mesh.error()));
    f.mesh = *mesh;
    if (j.contains("cost_options")) {
        const json& c = j["cost_options"];
        if (!c.is_object()) return R::failure(fieldError(origin, "cost_options", "must be an object"));
        f.cost.dtype = c.value("dtype", f.cost.dtype);
        f.cost.bytesPerParam = c.value("bytes_per_param", f.cost.bytesPerParam);
        f.cost.backwardFactor = c.value("backward_factor", f.cost.backwardFactor);
        if (f.cost.bytesPerParam <= 0 || f.cost.backwardFactor < 0)
            return R::failure(fieldError(origin, "cost_options", "must have positive bytes_per_param and backward_factor"));
    }
    if (j.contains("plans")) {
        if (!j["plans"].is_array()) return R::failure(fieldError(origin, "plans", "must be an array of plans"));
        for (const json& p : j["plans"]) {
            if (!p.is_object()) return R::failure(fieldError(origin, "plans", "must hold plan objects"));
            f.plans.push_back(p.dump());
        }
    }
    f.current = j.value("current", 0);
    if (!f.plans.empty() && (f.current < 0 || f.current >= int(f.plans.size())))
        return R::failure(fieldError(origin, "current", "must index one of the " + std::to_string(f.plans.size()) + " plans"));
    if (j.contains("overrides")) {
        if (!j["overrides"].is_array()) return R::failure(fieldError(origin, "overrides", "must be an array"));
        for (const json& o : j["overrides"]) {
            if (!o.is_object() || !o.contains("node") || !o["node"].is_number_integer() || !o.contains("strategy") ||
                !o["strategy"].is_string())
                return R::failure(fieldError(origin, "overrides", "entries need an integer 'node' and a 'strategy'"));
            f.overrides.push_back({NodeId(o["node"].get<int64_t>()), o.value("name", std::string()), o["strategy"].get<std::string>()});
        }
    }
    return f;
}

ProjectDocument::ProjectDocument(PlanSession* session, ModelDocument* model, QObject* parent)
    : QObject(parent), session_(session), model_(model)
{
    connect(session_, &PlanSession::modelChanged, this, &ProjectDocument::onModelChanged);
    connect(session_, &PlanSession::resultsChanged, this, [this] {
        if (!restoring_ && !session_->results().empty()) setDirty(true);
    });
    connect(session_, &PlanSession::modifiedChanged, this, [this](bool) { Q_EMIT modifiedChanged(isModified()); });
}

bool ProjectDocument::isModified() const
{
    return dirty_ || session_->isModified();
}

void ProjectDocument::setDirty(bool dirty)
{
    const bool before = isModified();
    dirty_ = dirty;
    if (isModified() != before) Q_EMIT modifiedChanged(isModified());
}

void ProjectDocument::detach()
{
    path_.clear();
    Q_EMIT pathChanged(path_);
}

QString ProjectDocument::save(const QString& path)
{
    if (model_->isEmpty() || !session_->graph()) return tr("There is no model to save a project of.");
    const Graph& g = *session_->graph();
    ProjectFile f;
    f.modelPath = isResourcePath(model_->path()) ? model_->path() : QFileInfo(model_->path()).absoluteFilePath();
    f.dims = model_->dims();
    f.cluster = session_->cluster();
    f.mesh = session_->mesh();
    f.cost = session_->costOptions();
    f.current = std::max(0, session_->currentResult());
    const std::string version = QCoreApplication::applicationVersion().toStdString();
    // The searchers' own plans; the edits travel as overrides and are re-applied on load, so the
    // file says both what the search found and what the user changed.
    for (const SearchResult& r : session_->results())
        f.plans.push_back(savePlanJson(g, session_->folded().get(), r.best.plan, session_->cluster(), r.best.report,
                                       {r.searcher, version, r.searchSeconds}));
    if (const PlanEditor* e = session_->editor())
        for (const StrategyOverride& o : e->overrides())
            f.overrides.push_back({o.node, o.node >= 0 && size_t(o.node) < g.nodes.size() ? g.node(o.node).name : "", o.strategy});
    if (f.plans.empty()) f.mesh = session_->mesh().size() > 0 ? session_->mesh() : DeviceMesh{};
    if (f.cluster.name.empty()) {
        // No search yet: a project still records the model; the cluster defaults to a preset.
        Result<ClusterSpec> c = loadClusterSpec("a100x8");
        if (c) f.cluster = *c;
    }

    QSaveFile out(path); // replaces the old file only once the new one is complete
    const QByteArray bytes = projectFileJson(f, QFileInfo(path).absolutePath());
    if (!out.open(QIODevice::WriteOnly) || out.write(bytes) != bytes.size() || !out.commit())
        return tr("Cannot write the project %1: %2").arg(QDir::toNativeSeparators(path), out.errorString());
    path_ = QFileInfo(path).absoluteFilePath();
    session_->markSaved();
    setDirty(false);
    Q_EMIT pathChanged(path_);
    return {};
}

QString ProjectDocument::open(const QString& path)
{
    QFile in(path);
    if (!in.open(QIODevice::ReadOnly))
        return tr("Cannot read the project %1: %2").arg(QDir::toNativeSeparators(path), in.errorString());
    Result<ProjectFile> f = parseProjectFile(in.readAll(), QFileInfo(path).fileName(), QFileInfo(path).absolutePath());
    if (!f) return QString::fromStdString(f.error());
    if (!isResourcePath(f->modelPath) && !QFileInfo::exists(f->modelPath))
        return tr("The project %1 refers to the model %2, which does not exist.")
            .arg(QFileInfo(path).fileName(), QDir::toNativeSeparators(f->modelPath));
    pending_ = std::move(f).value();
    pendingPath_ = QFileInfo(path).absoluteFilePath();
    const bool sameModel = !model_->isEmpty() && session_->graph() && model_->dims() == pending_->dims &&
        (isResourcePath(model_->path()) ? model_->path() == pending_->modelPath
                                        : QFileInfo(model_->path()).absoluteFilePath() == pending_->modelPath);
    if (sameModel) {
        onModelChanged();
    } else if (opener_) {
        opener_(pending_->modelPath, pending_->dims);
    } else {
        pending_.reset();
        return tr("Cannot open the model of the project.");
    }
    return {};
}

void ProjectDocument::modelLoadFailed(const QString& error)
{
    if (!pending_) return;
    pending_.reset();
    Q_EMIT openFailed(tr("Cannot open the project's model: %1").arg(error));
}

void ProjectDocument::onModelChanged()
{
    if (!pending_ || !session_->graph()) {
        if (!restoring_) setDirty(false); // a fresh model: nothing searched yet
        return;
    }
    // Queued: every other view reacts to the new model first, then sees the restored plans.
    QMetaObject::invokeMethod(this, [this] {
        if (!pending_ || !session_->graph()) return;
        ProjectFile f = std::move(*pending_);
        pending_.reset();
        restore(f);
    }, Qt::QueuedConnection);
}

void ProjectDocument::restore(const ProjectFile& f)
{
    const Graph& g = *session_->graph();
    const QString name = QFileInfo(pendingPath_).fileName();
    std::vector<SearchResult> results;
    for (size_t i = 0; i < f.plans.size(); ++i) {
        Result<PlanDocument> doc = loadPlanJson(f.plans[i], g, name.toStdString() + "' plan " + std::to_string(i + 1) + " '");
        if (!doc) {
            Q_EMIT openFailed(QString::fromStdString(doc.error()));
            return;
        }
        SearchResult r;
        r.searcher = doc->provenance.searcher;
        r.searchSeconds = doc->provenance.searchSeconds;
        r.best.plan = std::move(doc->plan);
        const PlanGraph planGraph(g, r.best.plan); // a plan that pads tables is costed on them padded
        const CostModel model(planGraph.graph(), f.cluster, costMeshOf(r.best.plan), costOptionsOf(r.best.plan, f.cost));
        Result<CostReport> report = evaluatePlanWithStages(r.best.plan, model, session_->folded().get(), f.cluster.memoryBytes);
        if (!report) {
            Q_EMIT openFailed(tr("%1, plan %2: %3").arg(name).arg(i + 1).arg(QString::fromStdString(report.error())));
            return;
        }
        r.best.report = std::move(report).value();
        r.feasible = r.best.report.fits;
        results.push_back(std::move(r));
    }
    QStringList warnings;
    restoring_ = true;
    session_->setResults(f.cluster, f.mesh, f.cost, std::move(results));
    if (!f.plans.empty()) session_->selectResult(f.current);
    // The overrides, checked against this model, then applied as one change.
    std::vector<StrategyOverride> overrides;
    for (const SavedOverride& o : f.overrides) {
        if (o.node < 0 || size_t(o.node) >= g.nodes.size() || (!o.nodeName.empty() && g.node(o.node).name != o.nodeName)) {
            warnings << tr("Override of %1 skipped: the model has no such node.").arg(QString::fromStdString(o.nodeName));
            continue;
        }
        overrides.push_back({o.node, o.strategy});
    }
    if (const QString refused = session_->restoreOverrides(overrides); !refused.isEmpty())
        warnings << tr("The overrides could not be re-applied: %1").arg(refused);
    session_->markSaved();
    restoring_ = false;
    path_ = pendingPath_;
    setDirty(false);
    Q_EMIT pathChanged(path_);
    Q_EMIT opened(path_, warnings);
}

QString ProjectDocument::openPlanFile(const QString& path)
{
    if (!session_->graph()) return tr("Open the plan's model first.");
    QFile in(path);
    if (!in.open(QIODevice::ReadOnly))
        return tr("Cannot read the plan %1: %2").arg(QDir::toNativeSeparators(path), in.errorString());
    Result<PlanDocument> doc = loadPlanJson(in.readAll().toStdString(), *session_->graph(), QFileInfo(path).fileName().toStdString());
    if (!doc) return QString::fromStdString(doc.error());
    SearchResult r;
    r.searcher = doc->provenance.searcher.empty() ? "file" : doc->provenance.searcher;
    r.searchSeconds = doc->provenance.searchSeconds;
    r.best.plan = std::move(doc->plan);
    const CostOptions options;
    const PlanGraph planGraph(*session_->graph(), r.best.plan); // a plan that pads tables is costed on them padded
    const CostModel model(planGraph.graph(), doc->cluster, costMeshOf(r.best.plan), costOptionsOf(r.best.plan, options));
    Result<CostReport> report = evaluatePlanWithStages(r.best.plan, model, session_->folded().get(), doc->cluster.memoryBytes);
    if (!report) return QFileInfo(path).fileName() + QStringLiteral(": ") + QString::fromStdString(report.error());
    r.best.report = std::move(report).value();
    r.feasible = r.best.report.fits;
    const DeviceMesh mesh = r.best.plan.mesh;
    session_->setResults(doc->cluster, mesh, options, {std::move(r)});
    return {};
}

} // namespace tapas

// The moc output lives in this object, so the window links it only when it uses this class.
#include "moc_project_document.cpp"
