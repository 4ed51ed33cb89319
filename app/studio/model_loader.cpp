#include "app/studio/model_loader.h"

#include "core/fold/folded_graph.h"
#include "core/onnx/onnx_importer.h"
#include "core/report/model_summary.h"

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QtConcurrent/QtConcurrentRun>

#include <exception>
#include <string>

namespace tapas {

namespace {

// Runs on the worker thread: nothing here may touch a widget.
LoadOutcome importAndSummarize(const QString& path, const QString& displayName, const QByteArray& bytes,
                               const DimBindings& dims, const Progress& progress)
{
    LoadOutcome out;
    out.path = path;
    QElapsedTimer timer;
    timer.start();
    try {
        ImportOptions options;
        options.dims = dims;
        // The import is most of the work; the summary gets the last few percent of the bar.
        options.progress = progress;
        options.progress.report = [&progress](double fraction, std::string_view stage) {
            progress(fraction * 0.85, stage);
        };
        Result<Graph> graph = bytes.isEmpty()
            ? importOnnxFile(QFile::encodeName(path).toStdString(), options)
            : importOnnxBytes(std::string_view(bytes.constData(), size_t(bytes.size())),
                              displayName.toStdString(), std::string(), options);
        if (progress.cancelled()) {
            out.cancelled = true;
            return out;
        }
        if (!graph.ok()) {
            out.error = QString::fromStdString(graph.error());
            return out;
        }
        progress(0.87, "summarizing");
        LoadedModel model;
        model.path = path;
        model.displayName = displayName;
        model.dims = dims;
        model.summary = summarizeModel(*graph);
        if (model.summary.file.empty()) model.summary.file = displayName.toStdString();
        model.graph = std::make_shared<const Graph>(std::move(graph).value());
        // Folding shares the worker with the import: the view opens folded at once.
        progress(0.9, "folding");
        Progress foldProgress = progress;
        foldProgress.report = [&progress](double fraction, std::string_view) {
            progress(0.9 + fraction * 0.1, "folding");
        };
        Result<FoldedGraph> folded = foldGraph(*model.graph, FoldOptions{}, foldProgress);
        if (progress.cancelled()) {
            out.cancelled = true;
            return out;
        }
        if (folded.ok())
            model.folded = std::make_shared<const FoldedGraph>(std::move(folded).value());
        else
            model.foldError = QString::fromStdString(folded.error());
        model.elapsedMs = timer.elapsed();
        out.model = std::move(model);
    } catch (const std::exception& e) {
        // The importer reports errors as values; this only keeps a library bug from killing the GUI.
        out.error = QStringLiteral("%1: %2").arg(displayName, QString::fromUtf8(e.what()));
    }
    return out;
}

} // namespace

ModelLoader::ModelLoader(QObject* parent) : QObject(parent)
{
    qRegisterMetaType<LoadedModel>();
    connect(&watcher_, &QFutureWatcher<LoadOutcome>::finished, this, &ModelLoader::onFinished);
}

ModelLoader::~ModelLoader()
{
    // The worker posts progress to `this`; it must be gone before we are.
    if (running_) running_->cancel->store(true);
    watcher_.waitForFinished();
}

QString ModelLoader::currentPath() const
{
    return running_ ? running_->request.path : QString();
}

void ModelLoader::loadFile(const QString& path, const DimBindings& dims)
{
    request({path, QFileInfo(path).fileName(), {}, dims});
}

void ModelLoader::loadBytes(const QByteArray& bytes, const QString& sourcePath, const DimBindings& dims)
{
    request({sourcePath, QFileInfo(sourcePath).fileName(), bytes, dims});
}

void ModelLoader::cancel()
{
    pending_.reset();
    if (running_) running_->cancel->store(true);
}

void ModelLoader::request(Request r)
{
    if (running_) {
        pending_ = std::move(r);
        running_->cancel->store(true);
        return;
    }
    start(std::move(r));
}

void ModelLoader::start(Request r)
{
    auto cancelFlag = std::make_shared<std::atomic<bool>>(false);
    auto lastPermille = std::make_shared<std::atomic<int>>(-1);
    running_ = Running{r, cancelFlag, lastPermille};

    Progress progress;
    progress.cancel = cancelFlag.get();
    // Post only when the figure or the stage changes: the importer may report per node and
    // flooding the GUI thread's queue would stall it as surely as blocking it.
    auto lastStage = std::make_shared<std::string>();
    progress.report = [this, cancelFlag, lastPermille, lastStage](double fraction, std::string_view stage) {
        const int permille = int(std::clamp(fraction, 0.0, 1.0) * 1000.0);
        if (permille == lastPermille->load() && stage == *lastStage) return;
        if (cancelFlag->load()) return;
        lastPermille->store(permille);
        *lastStage = std::string(stage);
        const QString stageText = QString::fromUtf8(stage.data(), qsizetype(stage.size()));
        QMetaObject::invokeMethod(this, [this, cancelFlag, permille, stageText] {
            // Drop reports of a load that has since been cancelled or replaced.
            if (running_ && running_->cancel == cancelFlag && !cancelFlag->load())
                Q_EMIT progressChanged(permille, stageText);
        }, Qt::QueuedConnection);
    };

    Q_EMIT started(r.path);
    Q_EMIT progressChanged(0, QStringLiteral("reading"));
    watcher_.setFuture(QtConcurrent::run([r, progress] {
        return importAndSummarize(r.path, r.displayName, r.bytes, r.dims, progress);
    }));
}

void ModelLoader::onFinished()
{
    LoadOutcome outcome = watcher_.result();
    const bool wasCancelled = running_ && running_->cancel->load();
    running_.reset();

    if (wasCancelled || outcome.cancelled)
        Q_EMIT cancelled(outcome.path);
    else if (outcome.model)
        Q_EMIT loaded(*outcome.model);
    else
        Q_EMIT failed(outcome.path, outcome.error);

    if (pending_) {
        Request next = std::move(*pending_);
        pending_.reset();
        start(std::move(next));
    }
}

} // namespace tapas
