#include "views/runs/run_compare_view.h"

#include "views/runs/run_chart.h"
#include "views/runs/run_record.h"
#include "views/runs/run_texts.h"

#include <QCheckBox>
#include <QEvent>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QSlider>
#include <QVBoxLayout>

#include <set>

namespace tapas {

namespace {

// The metric a comparison starts with: the loss of the run kind.
QString preferredValue(const QStringList& names)
{
    for (const char* n : {"loss", "g_loss", "d_loss", "step_time", "images_per_s", "samples_per_s"})
        if (names.contains(QLatin1String(n))) return QLatin1String(n);
    return names.value(0);
}

} // namespace

RunCompareView::RunCompareView(QWidget* parent)
    : QWidget(parent), caption_(new QLabel), metrics_(new QListWidget), smoothingLabel_(new QLabel),
      smoothing_(new QSlider(Qt::Horizontal)), logScale_(new QCheckBox), grid_(new QGridLayout)
{
    setObjectName(QStringLiteral("runCompareView"));
    metrics_->setObjectName(QStringLiteral("compareMetrics"));
    smoothing_->setObjectName(QStringLiteral("compareSmoothing"));
    logScale_->setObjectName(QStringLiteral("compareLogScale"));
    smoothing_->setRange(0, 99);
    smoothing_->setValue(0);
    metrics_->setMaximumWidth(240);
    metrics_->setMinimumWidth(160);
    auto* left = new QVBoxLayout;
    left->addWidget(caption_);
    left->addWidget(metrics_, 1);
    auto* row = new QHBoxLayout;
    row->addWidget(smoothingLabel_);
    row->addWidget(smoothing_, 1);
    row->addWidget(logScale_);
    auto* right = new QVBoxLayout;
    right->addLayout(row);
    grid_->setSpacing(2);
    right->addLayout(grid_, 1);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(left);
    layout->addLayout(right, 1);
    chartAt(0);
    connect(metrics_, &QListWidget::itemChanged, this, [this] { refresh(); });
    connect(smoothing_, &QSlider::valueChanged, this, [this] { refresh(); });
    connect(logScale_, &QCheckBox::toggled, this, [this] { refresh(); });
    retranslateUi();
}

RunChart* RunCompareView::chartAt(int i)
{
    while (charts_.size() <= i) {
        auto* c = new RunChart;
        c->setObjectName(charts_.isEmpty() ? QStringLiteral("compareChart") : QStringLiteral("compareChart%1").arg(charts_.size()));
        charts_ << c;
    }
    return charts_[i];
}

QList<RunChart*> RunCompareView::charts() const
{
    return charts_.mid(0, std::max(shown_, 1));
}

void RunCompareView::setRecords(const std::vector<const RunRecord*>& records)
{
    records_ = records;
    for (RunChart* c : charts_) c->clearLines();
    fillValues();
    refresh();
}

void RunCompareView::fillValues()
{
    const QStringList keep = valueNames();
    std::set<std::string> names;
    for (const RunRecord* r : records_)
        for (const std::string& n : r->seriesNames()) names.insert(n);
    QStringList list;
    for (const std::string& n : names) list << QString::fromStdString(n);
    QStringList checked;
    for (const QString& k : keep)
        if (list.contains(k)) checked << k;
    if (checked.isEmpty() && !list.isEmpty()) checked << preferredValue(list);
    const QSignalBlocker block(metrics_);
    metrics_->clear();
    for (const QString& n : list) {
        const RunTexts::Metric m = RunTexts::metric(n.toStdString());
        auto* item = new QListWidgetItem(m.labelWithUnit(), metrics_);
        item->setData(Qt::UserRole, n);
        item->setToolTip(tr("Recorded as \"%1\"").arg(n));
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(checked.contains(n) ? Qt::Checked : Qt::Unchecked);
    }
}

bool RunCompareView::setValueName(const QString& name)
{
    return setValueNames({name});
}

bool RunCompareView::setValueNames(const QStringList& names)
{
    bool any = false;
    {
        const QSignalBlocker block(metrics_);
        for (int i = 0; i < metrics_->count(); ++i) {
            const bool on = names.contains(metrics_->item(i)->data(Qt::UserRole).toString());
            metrics_->item(i)->setCheckState(on ? Qt::Checked : Qt::Unchecked);
            any = any || on;
        }
    }
    refresh();
    return any;
}

QString RunCompareView::valueName() const
{
    return valueNames().value(0);
}

QStringList RunCompareView::valueNames() const
{
    QStringList out;
    for (int i = 0; i < metrics_->count(); ++i)
        if (metrics_->item(i)->checkState() == Qt::Checked) out << metrics_->item(i)->data(Qt::UserRole).toString();
    return out;
}

void RunCompareView::refresh()
{
    const QStringList names = valueNames();
    const double weight = smoothing_->value() / 100.0;
    // One chart per metric, two a row.
    for (RunChart* c : charts_) grid_->removeWidget(c);
    shown_ = int(names.size());
    const int columns = shown_ > 1 ? 2 : 1;
    for (int m = 0; m < std::max(shown_, 1); ++m) {
        RunChart* c = chartAt(m);
        grid_->addWidget(c, m / columns, m % columns);
        c->show();
    }
    for (int m = std::max(shown_, 1); m < charts_.size(); ++m) charts_[m]->hide();
    for (int m = 0; m < shown_; ++m) {
        RunChart* chart = charts_[m];
        const std::string name = names[m].toStdString();
        const RunTexts::Metric metric = RunTexts::metric(name);
        QStringList keys;
        int i = 0;
        for (const RunRecord* r : records_) {
            const QString key = r->id();
            const RunSeries* s = r->series(name);
            const QColor color = RunChart::paletteColor(i++);
            if (!s) continue;
            QList<QPointF> pts = s->linePoints();
            if (metric.scale != 1)
                for (QPointF& p : pts) p.setY(p.y() * metric.scale);
            chart->setLine(key, key, pts, color);
            keys << key;
        }
        chart->retainLines(keys);
        chart->setSmoothing(weight);
        chart->setLogScale(logScale_->isChecked());
        chart->setTitle(tr("%1 of %n run(s)", nullptr, int(records_.size())).arg(metric.label));
        chart->setAxisTitles(tr("step"), metric.unit.isEmpty() ? metric.label : metric.unit);
    }
    if (shown_ == 0) {
        charts_[0]->clearLines();
        charts_[0]->setTitle(tr("Tick one or more metrics on the left"));
    }
    smoothingLabel_->setText(tr("Smoothing: %1").arg(weight, 0, 'f', 2));
}

void RunCompareView::retranslateUi()
{
    caption_->setText(tr("Compare:"));
    logScale_->setText(tr("Log scale"));
    fillValues();
    refresh();
}

void RunCompareView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange) retranslateUi();
    QWidget::changeEvent(event);
}

} // namespace tapas
