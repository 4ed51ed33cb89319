#include "views/runs/run_compare_view.h"

#include "views/runs/run_chart.h"
#include "views/runs/run_record.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QVBoxLayout>

#include <set>

namespace tapas {

namespace {

// The value a comparison starts with: the loss of the run kind.
QString preferredValue(const QStringList& names)
{
    for (const char* n : {"loss", "g_loss", "d_loss", "step_time", "images_per_s", "samples_per_s"})
        if (names.contains(QLatin1String(n))) return QLatin1String(n);
    return names.value(0);
}

} // namespace

RunCompareView::RunCompareView(QWidget* parent)
    : QWidget(parent), caption_(new QLabel), value_(new QComboBox), smoothingLabel_(new QLabel),
      smoothing_(new QSlider(Qt::Horizontal)), chart_(new RunChart)
{
    setObjectName(QStringLiteral("runCompareView"));
    value_->setObjectName(QStringLiteral("compareValue"));
    chart_->setObjectName(QStringLiteral("compareChart"));
    smoothing_->setObjectName(QStringLiteral("compareSmoothing"));
    smoothing_->setRange(0, 99);
    smoothing_->setValue(0);
    auto* row = new QHBoxLayout;
    row->addWidget(caption_);
    row->addWidget(value_);
    row->addSpacing(12);
    row->addWidget(smoothingLabel_);
    row->addWidget(smoothing_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(row);
    layout->addWidget(chart_, 1);
    connect(value_, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
    connect(smoothing_, &QSlider::valueChanged, this, [this] { refresh(); });
    retranslateUi();
}

void RunCompareView::setRecords(const std::vector<const RunRecord*>& records)
{
    records_ = records;
    chart_->clearLines();
    fillValues();
    refresh();
}

void RunCompareView::fillValues()
{
    const QString keep = value_->currentText();
    std::set<std::string> names;
    for (const RunRecord* r : records_)
        for (const std::string& n : r->seriesNames()) names.insert(n);
    QStringList list;
    for (const std::string& n : names) list << QString::fromStdString(n);
    QSignalBlocker block(value_);
    value_->clear();
    value_->addItems(list);
    const int i = value_->findText(list.contains(keep) ? keep : preferredValue(list));
    value_->setCurrentIndex(std::max(i, 0));
}

bool RunCompareView::setValueName(const QString& name)
{
    const int i = value_->findText(name);
    if (i < 0) return false;
    value_->setCurrentIndex(i);
    refresh();
    return true;
}

QString RunCompareView::valueName() const
{
    return value_->currentText();
}

void RunCompareView::refresh()
{
    const std::string name = value_->currentText().toStdString();
    QStringList keys;
    int i = 0;
    for (const RunRecord* r : records_) {
        const QString key = r->id();
        const RunSeries* s = r->series(name);
        const QColor color = RunChart::paletteColor(i++);
        if (!s) continue;
        chart_->setLine(key, key, emaSmoothed(s->linePoints(), smoothing_->value() / 100.0), color);
        keys << key;
    }
    chart_->retainLines(keys);
    chart_->setTitle(tr("%1 of %n run(s)", nullptr, int(records_.size())).arg(value_->currentText()));
    smoothingLabel_->setText(tr("Smoothing: %1").arg(smoothing_->value() / 100.0, 0, 'f', 2));
}

void RunCompareView::retranslateUi()
{
    caption_->setText(tr("Compare:"));
    chart_->setAxisTitles(tr("step"), QString());
    refresh();
}

void RunCompareView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange) retranslateUi();
    QWidget::changeEvent(event);
}

} // namespace tapas
