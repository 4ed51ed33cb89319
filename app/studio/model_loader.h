#pragma once
// Imports and summarizes a model on a worker thread (QtConcurrent) so the GUI never blocks;
// progress and the result come back to the GUI thread as signals. One load at a time: a new
// request cancels the running one and starts when it has stopped.
#include "app/studio/model_document.h"

#include <QByteArray>
#include <QFutureWatcher>
#include <QObject>
#include <QString>

#include <atomic>
#include <memory>
#include <optional>

namespace tapas {

// The worker's answer: a model, or an error sentence from the importer, or a cancellation.
struct LoadOutcome {
    std::optional<LoadedModel> model;
    QString path;
    QString error;
    bool cancelled = false;
};

class ModelLoader : public QObject {
    Q_OBJECT
public:
    explicit ModelLoader(QObject* parent = nullptr);
    ~ModelLoader() override;

    void loadFile(const QString& path, const DimBindings& dims = {});
    // For models that are not files: the bundled sample, whose `sourcePath` is its resource path
    // (":/models/sample_gpt.onnx"); messages name it by its file name.
    void loadBytes(const QByteArray& bytes, const QString& sourcePath, const DimBindings& dims = {});
    bool isBusy() const { return running_.has_value(); }
    QString currentPath() const;

public Q_SLOTS:
    void cancel();

Q_SIGNALS:
    void started(const QString& path);
    // permille in [0,1000]; stage is the importer's short label ("parsing", ...)
    void progressChanged(int permille, const QString& stage);
    void loaded(const tapas::LoadedModel& model);
    void failed(const QString& path, const QString& error);
    void cancelled(const QString& path);

private:
    struct Request {
        QString path;
        QString displayName;
        QByteArray bytes; // empty: read `path` from disk
        DimBindings dims;
    };
    struct Running {
        Request request;
        std::shared_ptr<std::atomic<bool>> cancel;
        std::shared_ptr<std::atomic<int>> lastPermille;
    };
    void request(Request r);
    void start(Request r);
    void onFinished();

    QFutureWatcher<LoadOutcome> watcher_;
    std::optional<Running> running_;
    std::optional<Request> pending_;
};

} // namespace tapas

Q_DECLARE_METATYPE(tapas::LoadedModel)
