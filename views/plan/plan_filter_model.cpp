#include "views/plan/plan_filter_model.h"

#include "views/plan/plan_model.h"

namespace tapas {

PlanFilterModel::PlanFilterModel(QObject* parent) : QSortFilterProxyModel(parent)
{
    setRecursiveFilteringEnabled(true); // a class row stays while one of its rows matches
    setSortRole(PlanModel::SortRole);
    setSortCaseSensitivity(Qt::CaseInsensitive);
    setDynamicSortFilter(true);
}

bool PlanFilterModel::isFiltering() const
{
    return !opType_.isEmpty() || classId_ >= 0 || collectivesOnly_ || !text_.isEmpty();
}

void PlanFilterModel::setOpType(const QString& opType)
{
    if (opType == opType_) return;
    opType_ = opType;
    invalidateRowsFilter();
}

void PlanFilterModel::setClassId(int classId)
{
    if (classId == classId_) return;
    classId_ = classId;
    invalidateRowsFilter();
}

void PlanFilterModel::setCollectivesOnly(bool only)
{
    if (only == collectivesOnly_) return;
    collectivesOnly_ = only;
    invalidateRowsFilter();
}

void PlanFilterModel::setText(const QString& text)
{
    if (text == text_) return;
    text_ = text;
    invalidateRowsFilter();
}

bool PlanFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    const QModelIndex i = sourceModel()->index(sourceRow, 0, sourceParent);
    const int level = i.data(PlanModel::LevelRole).toInt();
    if (classId_ >= 0 && i.data(PlanModel::ClassRole).toInt() != classId_) return false;
    if (level == 1) return !isFiltering() || (classId_ >= 0 && opType_.isEmpty() && !collectivesOnly_ && text_.isEmpty());
    if (!opType_.isEmpty() && i.data(PlanModel::OpTypeRole).toString() != opType_) return false;
    if (collectivesOnly_ && !i.data(PlanModel::HasCollectiveRole).toBool()) return false;
    if (!text_.isEmpty()) {
        const QString name = i.data(Qt::DisplayRole).toString();
        const QString op = sourceModel()->index(sourceRow, PlanModel::OpType, sourceParent).data().toString();
        if (!name.contains(text_, Qt::CaseInsensitive) && !op.contains(text_, Qt::CaseInsensitive)) return false;
    }
    return true;
}

} // namespace tapas
