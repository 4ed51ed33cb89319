#include "app/studio/model_document.h"

namespace tapas {

ModelDocument::ModelDocument(QObject* parent) : QObject(parent) {}

QStringList ModelDocument::warnings() const
{
    QStringList out;
    for (const std::string& w : model_.summary.warnings) out << QString::fromStdString(w);
    return out;
}

void ModelDocument::setModel(LoadedModel model)
{
    model_ = std::move(model);
    Q_EMIT changed();
}

void ModelDocument::close()
{
    model_ = {};
    Q_EMIT changed();
}

} // namespace tapas
