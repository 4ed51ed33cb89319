#pragma once
// Imports, summarizes and folds a model on a worker thread (a BackgroundJob) so the GUI never
// blocks; progress and the result come back to the GUI thread as signals. One load at a time: a
// new request cancels the running one and starts when it has stopped.
#include "app/studio/model_document.h"

#include <QByteArray>
#include <QObject>
#include <QString>

#include <optional>

namespace tapas {

// The worker's answer: a model, or an error sentence from the importer, or a cancellation.
struct LoadOutcome {
    std::optional<LoadedModel> model;
    QString path;
    QString error;
    bool cancelled = false;
};

class BackgroundJob;

class ModelLoader : public QObject {
    Q_OBJECT
public:
    explicit ModelLoader(QObject* parent = nullptr);
    ~ModelLoader() override;

    void loadFile(const QString& path, const DimBindings& dims = {});
    // For models that are not files: the bundled sample, whose `sourcePath` is its resource path
    // (":/models/sample_gpt.onnx"); messages name it by its file name.
    void loadBytes(const QByteArray& bytes, const QString& sourcePath, const DimBindings& dims = {});
    bool isBusy() const;

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
    void request(const QString& path, const QByteArray& bytes, const DimBindings& dims);
    void onFinished();

    BackgroundJob* job_; // queues a new load behind the cancelled one
};

} // namespace tapas

Q_DECLARE_METATYPE(tapas::LoadedModel)
