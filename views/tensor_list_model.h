#pragma once
// A model's graph inputs or outputs: name, element type and shape (symbolic dims kept by name).
#include "core/report/model_summary.h"

#include <QAbstractTableModel>

#include <vector>

namespace tapas {

class TensorListModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, DTypeColumn, ShapeColumn, ColumnCount };

    explicit TensorListModel(QObject* parent = nullptr);

    void setTensors(const std::vector<TensorSummary>& tensors);
    void clear();
    void retranslate();

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<TensorSummary> tensors_;
};

} // namespace tapas
