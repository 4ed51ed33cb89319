#pragma once
// A model's graph inputs or outputs: name, element type and shape (symbolic dims kept by name).
#include "core/report/model_summary.h"

#include "views/flat_table_model.h"

#include <vector>

namespace tapas {

class TensorListModel : public FlatTableModel {
    Q_OBJECT
public:
    enum Column { Name, DTypeColumn, ShapeColumn, ColumnCount };

    explicit TensorListModel(QObject* parent = nullptr);

    void setTensors(const std::vector<TensorSummary>& tensors);
    void clear();

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    int rows() const override { return int(tensors_.size()); }
    std::vector<TensorSummary> tensors_;
};

} // namespace tapas
