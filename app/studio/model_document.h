#pragma once
// The model open in the window: its file, Graph, summary and warnings. Later stages (folding,
// plans) hang off this document, so views observe it rather than the loader.
#include "core/fold/folded_graph.h"
#include "core/ir/graph.h"
#include "core/report/model_summary.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>

namespace tapas {

// What a background load hands back to the GUI thread.
struct LoadedModel {
    QString path;         // file path, or the resource path for the bundled sample
    QString displayName;  // "resnet18.onnx"
    DimBindings dims;
    std::shared_ptr<const Graph> graph;
    ModelSummary summary;
    // Null when folding failed (foldError says why): the graph then shows every node unique.
    std::shared_ptr<const FoldedGraph> folded;
    QString foldError;
    qint64 elapsedMs = 0;
};

class ModelDocument : public QObject {
    Q_OBJECT
public:
    explicit ModelDocument(QObject* parent = nullptr);

    bool isEmpty() const { return !model_.graph; }
    const QString& path() const { return model_.path; }
    const QString& displayName() const { return model_.displayName; }
    const DimBindings& dims() const { return model_.dims; }
    std::shared_ptr<const Graph> graph() const { return model_.graph; }
    std::shared_ptr<const FoldedGraph> folded() const { return model_.folded; }
    const ModelSummary& summary() const { return model_.summary; }
    QStringList warnings() const;

    // Replaces the open model in one step: a failed load never reaches here, so the previous
    // model stays intact until a new one is complete.
    void setModel(LoadedModel model);
    void close();

Q_SIGNALS:
    void changed();

private:
    LoadedModel model_;
};

} // namespace tapas
