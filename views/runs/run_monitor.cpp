#include "views/runs/run_monitor.h"

#include "views/runs/rank_table_model.h"
#include "views/runs/run_chart.h"
#include "views/runs/run_record.h"
#include "views/runs/run_texts.h"

#include <QCheckBox>
#include <QComboBox>
#include <QSlider>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QHBoxLayout>
#include <QStackedWidget>
#include <QEvent>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QVBoxLayout>
#include <QTableView>

#include <algorithm>

namespace tapas {

RunMonitor::RunMonitor(QWidget* parent)
    : QWidget(parent), header_(new QLabel(this)), rankTable_(new QTableView(this)),
      rankModel_(new RankTableModel(this)), log_(new QPlainTextEdit(this)), logPanel_(new QWidget(this)),
      logSource_(new QComboBox(logPanel_)), rankLog_(new QPlainTextEdit(logPanel_)), logStack_(new QStackedWidget(logPanel_))
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
    rankLog_->setObjectName(QStringLiteral("rankOutput"));
    rankLog_->setReadOnly(true);
    rankLog_->setMaximumBlockCount(int(RunRecord::kMaxLogLines));
    rankLog_->setLineWrapMode(QPlainTextEdit::NoWrap);
    rankLog_->setFont(mono);
    logSource_->setObjectName(QStringLiteral("logSource"));
    logSource_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    logStack_->addWidget(log_);
    logStack_->addWidget(rankLog_);
    auto* top = new QHBoxLayout;
    top->addWidget(logSource_);
    top->addStretch(1);
    auto* l = new QVBoxLayout(logPanel_);
    l->setContentsMargins(0, 2, 0, 0);
    l->setSpacing(2);
    l->addLayout(top);
    l->addWidget(logStack_, 1);
    connect(logSource_, &QComboBox::currentIndexChanged, this, [this](int i) {
        logStack_->setCurrentIndex(i > 0 ? 1 : 0);
        refreshRankOutput(true);
    });
    fillLogSources();
}

void RunMonitor::fillLogSources()
{
    const int ranks = record_ ? record_->spec().ranks : 0;
    const int keep = logSource_->currentIndex();
    const QSignalBlocker block(logSource_);
    logSource_->clear();
    logSource_->addItem(tr("Events and status"));
    for (int r = 0; r < ranks; ++r) logSource_->addItem(tr("Rank %1 output (stdout, stderr)").arg(r), r);
    logSource_->setCurrentIndex(keep >= 0 && keep < logSource_->count() ? keep : 0);
    logStack_->setCurrentIndex(logSource_->currentIndex() > 0 ? 1 : 0);
}

// The chosen rank's logs/rank-N.log, read on from where the last refresh stopped (the start
// of a large file is skipped: the newest lines are what a person looks for).
void RunMonitor::refreshRankOutput(bool reset)
{
    if (reset) {
        rankLog_->clear();
        rankLogOffset_ = 0;
    }
    if (!record_ || logSource_->currentIndex() <= 0) return;
    const int rank = logSource_->currentData().toInt();
    QFile f(QDir(record_->dir()).filePath(QStringLiteral("logs/rank-%1.log").arg(rank)));
    if (!f.open(QIODevice::ReadOnly) || f.size() == 0) {
        if (rankLogOffset_ == 0 && rankLog_->document()->isEmpty())
            rankLog_->setPlainText(tr("Rank %1 has written no output yet.").arg(rank));
        return;
    }
    constexpr qint64 kMaxRead = 256 * 1024;
    if (f.size() < rankLogOffset_) { // the file was replaced (a resumed run starts it again)
        rankLog_->clear();
        rankLogOffset_ = 0;
    }
    if (f.size() == rankLogOffset_) return;
    if (rankLogOffset_ == 0) rankLog_->clear(); // the "no output yet" note
    qint64 from = std::max(rankLogOffset_, f.size() - kMaxRead);
    f.seek(from);
    QByteArray chunk = f.readAll();
    // Whole lines only: the rest is read at the next refresh.
    const qsizetype lastNl = chunk.lastIndexOf('\n');
    if (lastNl < 0) return;
    chunk.truncate(lastNl);
    rankLogOffset_ = from + lastNl + 1;
    rankLog_->appendPlainText(QString::fromUtf8(chunk));
}

void RunMonitor::setRecord(const RunRecord* record)
{
    const bool same = record_ && record && record_->dir() == record->dir();
    record_ = record;
    clearCharts();
    rankModel_->clear();
    refreshLog(true);
    if (!same) fillLogSources();
    refreshRankOutput(true);
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
    refreshRankOutput(false);
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
        chart->setLineStyle(key, r.rank == 0 ? 3.5 : 1.5, r.rank == 0 ? Qt::SolidLine : Qt::DashLine);
        keys << key;
    }
    chart->retainLines(keys);
}

QWidget* RunMonitor::chartControls(const QList<RunChart*>& charts, bool smoothing)
{
    auto* row = new QWidget;
    auto* l = new QHBoxLayout(row);
    l->setContentsMargins(0, 0, 0, 0);
    if (smoothing) {
        auto* label = new QLabel(row);
        chartSmoothing_ = new QSlider(Qt::Horizontal, row);
        chartSmoothing_->setObjectName(QStringLiteral("chartSmoothing"));
        chartSmoothing_->setRange(0, 99);
        chartSmoothing_->setValue(0);
        auto apply = [this, label, charts] {
            const double w = chartSmoothing_->value() / 100.0;
            label->setText(tr("Smoothing: %1").arg(w, 0, 'f', 2));
            for (RunChart* c : charts) c->setSmoothing(w);
        };
        connect(chartSmoothing_, &QSlider::valueChanged, this, apply);
        apply();
        l->addWidget(label);
        l->addWidget(chartSmoothing_, 1);
    }
    logScale_ = new QCheckBox(row);
    logScale_->setObjectName(QStringLiteral("logScale"));
    connect(logScale_, &QCheckBox::toggled, this, [charts](bool on) {
        for (RunChart* c : charts) c->setLogScale(on);
    });
    l->addWidget(logScale_);
    if (!smoothing) l->addStretch(1);
    retranslateControls();
    return row;
}

void RunMonitor::retranslateControls()
{
    if (logScale_) {
        logScale_->setText(tr("Log scale"));
        logScale_->setToolTip(tr("A logarithmic value axis on every chart (values at or below zero are left out)"));
    }
    if (chartSmoothing_) chartSmoothing_->setToolTip(tr("Exponential moving average of each line; hover a chart for the raw values"));
}

void RunMonitor::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange) {
        retranslateCharts();
        rankModel_->retranslate();
        refreshHeader();
        fillLogSources();
        retranslateControls();
        if (chartSmoothing_) Q_EMIT chartSmoothing_->valueChanged(chartSmoothing_->value());
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
