#include "views/tensor_list_model.h"

#include <QFontDatabase>

namespace tapas {

TensorListModel::TensorListModel(QObject* parent) : FlatTableModel(ColumnCount, parent) {}

void TensorListModel::setTensors(const std::vector<TensorSummary>& tensors)
{
    beginResetModel();
    tensors_ = tensors;
    endResetModel();
}

void TensorListModel::clear()
{
    beginResetModel();
    tensors_.clear();
    endResetModel();
}

QVariant TensorListModel::data(const QModelIndex& index, int role) const
{
    if (!isValidCell(index)) return {};
    const TensorSummary& t = tensors_[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
    case Qt::ToolTipRole:
        switch (index.column()) {
        case Name: return QString::fromStdString(t.name);
        case DTypeColumn: return QString::fromStdString(t.dtype);
        case ShapeColumn: return QString::fromStdString(t.shape);
        }
        break;
    case Qt::FontRole:
        // Shapes line up digit under digit in a fixed-pitch font.
        if (index.column() == ShapeColumn) return QFontDatabase::systemFont(QFontDatabase::FixedFont);
        break;
    }
    return {};
}

QVariant TensorListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case Name: return tr("Name");
    case DTypeColumn: return tr("Type");
    case ShapeColumn: return tr("Shape");
    }
    return {};
}

} // namespace tapas
