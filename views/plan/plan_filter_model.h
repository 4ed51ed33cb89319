#pragma once
// The Plan dock's filters over PlanModel: op type, block class, "has a collective" and a text
// search over names. A class row shows while any of its rows passes; sorting uses the
// model's SortRole so costs sort as numbers.
#include <QSortFilterProxyModel>

namespace tapas {

class PlanFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit PlanFilterModel(QObject* parent = nullptr);

    void setOpType(const QString& opType); // "" = any
    void setClassId(int classId);          // -1 = any
    void setCollectivesOnly(bool only);
    void setText(const QString& text);     // case-insensitive substring of name or op type
    QString opType() const { return opType_; }
    int classId() const { return classId_; }
    bool collectivesOnly() const { return collectivesOnly_; }
    QString text() const { return text_; }
    bool isFiltering() const;

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    QString opType_;
    int classId_ = -1;
    bool collectivesOnly_ = false;
    QString text_;
};

} // namespace tapas
