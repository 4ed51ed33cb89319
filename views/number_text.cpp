#include "views/number_text.h"

#include "core/report/model_summary.h"

#include <QCoreApplication>
#include <QLocale>

namespace tapas {

namespace {
QLocale groupingLocale()
{
    QLocale l;
    l.setNumberOptions(l.numberOptions() & ~QLocale::OmitGroupSeparator);
    return l;
}
} // namespace

QString groupedCount(int64_t v)
{
    return groupingLocale().toString(qlonglong(v));
}

QString countWithShortForm(int64_t v)
{
    if (v < 10000) return groupedCount(v);
    return QStringLiteral("%1 (%2)").arg(groupedCount(v), QString::fromStdString(humanCount(double(v))));
}

QString bytesWithExact(int64_t v)
{
    return QCoreApplication::translate("tapas::NumberText", "%1 (%2 bytes)")
        .arg(QString::fromStdString(humanBytes(double(v))), groupedCount(v));
}

QString shortCount(double v)
{
    return QString::fromStdString(humanCount(v));
}

} // namespace tapas
