#include "views/runs/run_monitor.h"

#include "views/runs/rank_table_model.h"
#include "views/runs/run_chart.h"
#include "views/runs/run_record.h"
#include "views/runs/run_texts.h"

#include <QDateTime>
#include <QEvent>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QVBoxLayout>
#include <QTableView>

namespace tapas {

RunMonitor::RunMonitor(QWidget* parent)
    : QWidget(parent), header_(new QLabel(this)), rankTable_(new QTableView(this)),
      rankModel_(new RankTableModel(this)), log_(new QPlainTextEdit(this))
{
    header_->setObjectName(QStringLiteral("runHeader"));
    header_->setTextFormat(Qt::RichText);
    header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    rankTable_->setObjectName(QStringLiteral("rankTable"));
    rankTable_->setModel(rankModel_);
    rankTable_->verticalHeader()->hide();
    rankTable_->setSelectionBehavior(QAbstractItemView::SelectRows);
    rankTable_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    rankTable_->horizontalHeader()->setStretchLastSection(true);
    rankTable_->setAlternatingRowColors(true);
    log_->setObjectName(QStringLiteral("runLog"));
    log_->setReadOnly(true);
    log_->setMaximumBlockCount(int(RunRecord::kMaxLogLines));
    log_->setLineWrapMode(QPlainTextEdit::NoWrap);
    QFont mono(QStringLiteral("monospace"));
    mono.setStyleHint(QFont::Monospace);
    log_->setFont(mono);
}

void RunMonitor::setRecord(const RunRecord* record)
{
    record_ = record;
    clearCharts();
    rankModel_->clear();
    refreshLog(true);
    refresh();
}

void RunMonitor::refresh()
{
    refreshHeader();
    if (!record_) return;
    refreshCharts();
    rankModel_->setRows(record_->ranks());
    // Only the figures this kind of run reports: an empty column reads as missing data.
    for (int c = RankTableModel::StepTime; c < RankTableModel::ColumnCount; ++c)
        rankTable_->setColumnHidden(c, rankModel_->rowCount() > 0 && !rankModel_->hasValues(c));
    refreshLog(false);
}

void RunMonitor::refreshHeader()
{
    if (!record_) {
        header_->setText(tr("No run selected."));
        return;
    }
    const auto& spec = record_->spec();
    QString step;
    if (record_->lastStep() >= 0)
        step = spec.steps > 0 ? tr("step %1 of %2").arg(record_->lastStep()).arg(spec.steps)
                              : tr("step %1").arg(record_->lastStep());
    QString text = tr("<b>%1</b> · %2 · %3 · %n rank(s)", nullptr, spec.ranks)
                       .arg(record_->id().toHtmlEscaped(), RunTexts::kindName(spec.kind),
                            RunTexts::stateName(record_->state()));
    if (!step.isEmpty()) text += QStringLiteral(" · ") + step;
    if (!record_->detail().isEmpty() && record_->isTerminal())
        text += QStringLiteral(" · <i>%1</i>").arg(record_->detail().toHtmlEscaped());
    header_->setText(text);
}

void RunMonitor::refreshLog(bool reset)
{
    if (reset) {
        log_->clear();
        logShown_ = 0;
    }
    if (!record_) return;
    const auto& lines = record_->log();
    const std::size_t fresh = std::min(record_->logTotal() - logShown_, lines.size());
    for (std::size_t i = lines.size() - fresh; i < lines.size(); ++i) {
        const RunLogLine& l = lines[i];
        const QString time = l.time > 0
            ? QDateTime::fromMSecsSinceEpoch(qint64(l.time * 1000)).toString(QStringLiteral("HH:mm:ss"))
            : QStringLiteral("--:--:--");
        const QString who = l.rank >= 0 ? tr("rank %1").arg(l.rank) : QString();
        log_->appendPlainText(QStringLiteral("%1  %2  %3%4").arg(time, RunTexts::levelName(l.level).leftJustified(8),
                                                                   who.isEmpty() ? QString() : who + QStringLiteral(": "),
                                                                   l.text));
    }
    logShown_ = record_->logTotal();
}

QList<QPointF> RunMonitor::seriesPoints(const std::string& name, double scale) const
{
    const RunSeries* s = record_ ? record_->series(name) : nullptr;
    if (!s) return {};
    QList<QPointF> pts = s->linePoints();
    if (scale != 1)
        for (QPointF& p : pts) p.setY(p.y() * scale);
    return pts;
}

void RunMonitor::setRankLines(RunChart* chart, const std::string& name, double scale) const
{
    if (!record_) return;
    QStringList keys;
    for (const RankRow& r : record_->ranks()) {
        const RunSeries* s = record_->rankSeries(r.rank, name);
        if (!s) continue;
        QList<QPointF> pts = s->linePoints();
        if (scale != 1)
            for (QPointF& p : pts) p.setY(p.y() * scale);
        const QString key = QStringLiteral("rank%1").arg(r.rank);
        chart->setLine(key, tr("rank %1").arg(r.rank), pts, RunChart::paletteColor(r.rank));
        keys << key;
    }
    chart->retainLines(keys);
}

void RunMonitor::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange) {
        retranslateCharts();
        rankModel_->retranslate();
        refreshHeader();
    }
    QWidget::changeEvent(event);
}

void RunMonitor::finishLayout(QWidget* charts, QWidget* details, Qt::Orientation orientation, int chartStretch,
                              int detailStretch)
{
    auto* split = new QSplitter(orientation);
    split->addWidget(charts);
    split->addWidget(details);
    split->setStretchFactor(0, chartStretch);
    split->setStretchFactor(1, detailStretch);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(header());
    layout->addWidget(split, 1);
    retranslateCharts();
    setRecord(nullptr);
}

} // namespace tapas
