#pragma once
// The plumbing every read-only flat table in views/ shares: counts that are zero under any
// parent (a table, not a tree) and headers that re-read their tr() texts on a language switch.
#include <QAbstractTableModel>

namespace tapas {

class FlatTableModel : public QAbstractTableModel {
public:
    int rowCount(const QModelIndex& parent = {}) const override { return parent.isValid() ? 0 : rows(); }
    int columnCount(const QModelIndex& parent = {}) const override { return parent.isValid() ? 0 : columns_; }
    // Header texts are looked up at call time; this tells attached views to fetch them again.
    virtual void retranslate() { Q_EMIT headerDataChanged(Qt::Horizontal, 0, columns_ - 1); }

protected:
    FlatTableModel(int columns, QObject* parent) : QAbstractTableModel(parent), columns_(columns) {}
    virtual int rows() const = 0;
    bool isValidCell(const QModelIndex& index) const
    {
        return checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid);
    }

private:
    int columns_;
};

} // namespace tapas
