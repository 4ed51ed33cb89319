#include "app/studio/model_loader.h"

#include "core/fold/folded_graph.h"
#include "core/onnx/onnx_importer.h"
#include "core/report/model_summary.h"
#include "views/background_job.h"

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>

#include <string>

namespace tapas {

namespace {

// Runs on the worker thread: nothing here may touch a widget. An exception escaping it (a
// library bug; the importer reports errors as values) becomes BackgroundJob::failed.
LoadOutcome importAndSummarize(const QString& path, const QString& displayName, const QByteArray& bytes,
                               const DimBindings& dims, const Progress& progress)
{
    LoadOutcome out;
    out.path = path;
    QElapsedTimer timer;
    timer.start();
    ImportOptions options;
    options.dims = dims;
    options.probeBatch = true; // a fixed-batch export's batch axis, for data-parallel plans
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
    return out;
}

} // namespace

ModelLoader::ModelLoader(QObject* parent)
    : QObject(parent), job_(new BackgroundJob(BackgroundJob::OnRestart::Queue, this))
{
    qRegisterMetaType<LoadedModel>();
    // The job's label of a load is the path it reads.
    connect(job_, &BackgroundJob::started, this, [this](const QString& path) {
        Q_EMIT started(path);
        Q_EMIT progressChanged(0, QStringLiteral("reading"));
    });
    connect(job_, &BackgroundJob::progressChanged, this, &ModelLoader::progressChanged);
    connect(job_, &BackgroundJob::finished, this, &ModelLoader::onFinished);
    connect(job_, &BackgroundJob::failed, this, [this](const QString& path, const QString& error) {
        Q_EMIT failed(path, QStringLiteral("%1: %2").arg(QFileInfo(path).fileName(), error));
    });
    connect(job_, &BackgroundJob::cancelled, this, &ModelLoader::cancelled);
}

ModelLoader::~ModelLoader() = default; // the job cancels and waits for its worker

bool ModelLoader::isBusy() const
{
    return job_->isRunning();
}

void ModelLoader::loadFile(const QString& path, const DimBindings& dims)
{
    request(path, {}, dims);
}

void ModelLoader::loadBytes(const QByteArray& bytes, const QString& sourcePath, const DimBindings& dims)
{
    request(sourcePath, bytes, dims);
}

void ModelLoader::cancel()
{
    job_->cancel();
}

void ModelLoader::request(const QString& path, const QByteArray& bytes, const DimBindings& dims)
{
    const QString displayName = QFileInfo(path).fileName();
    job_->start([path, displayName, bytes, dims](const Progress& progress) {
        return importAndSummarize(path, displayName, bytes, dims, progress);
    }, path);
}

void ModelLoader::onFinished()
{
    LoadOutcome outcome = job_->takeResult<LoadOutcome>();
    if (outcome.cancelled) Q_EMIT cancelled(outcome.path);
    else if (outcome.model) Q_EMIT loaded(*outcome.model);
    else Q_EMIT failed(outcome.path, outcome.error);
}

} // namespace tapas
