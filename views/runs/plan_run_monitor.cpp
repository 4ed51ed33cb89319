#include "views/runs/plan_run_monitor.h"

#include "views/runs/run_chart.h"
#include "views/runs/run_record.h"

#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace tapas {

PlanRunMonitor::PlanRunMonitor(QWidget* parent)
    : RunMonitor(parent), loss_(new RunChart), stepTime_(new RunChart), throughput_(new RunChart),
      commShare_(new RunChart), predicted_(new RunChart), memory_(new RunChart), tabs_(new QTabWidget)
{
    setObjectName(QStringLiteral("planRunMonitor"));
    loss_->setObjectName(QStringLiteral("lossChart"));
    stepTime_->setObjectName(QStringLiteral("stepTimeChart"));
    throughput_->setObjectName(QStringLiteral("throughputChart"));
    commShare_->setObjectName(QStringLiteral("commShareChart"));
    predicted_->setObjectName(QStringLiteral("predictedChart"));
    memory_->setObjectName(QStringLiteral("memoryChart"));
    for (RunChart* c : {loss_, stepTime_, throughput_, commShare_, predicted_, memory_}) c->setLegendForOneLine(false);

    auto* charts = new QWidget;
    auto* column = new QVBoxLayout(charts);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(2);
    column->addWidget(chartControls({loss_, stepTime_, throughput_, commShare_, predicted_, memory_}, true));
    auto* grid = new QGridLayout;
    column->addLayout(grid, 1);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setSpacing(2);
    grid->addWidget(loss_, 0, 0);
    grid->addWidget(stepTime_, 0, 1);
    grid->addWidget(throughput_, 0, 2);
    grid->addWidget(predicted_, 1, 0);
    grid->addWidget(commShare_, 1, 1);
    grid->addWidget(memory_, 1, 2);

    tabs_->addTab(rankTable(), QString());
    tabs_->addTab(logPanel(), QString());
    // Room for the header and three ranks below the charts: at its size hint the table showed
    // one rank and a half of a 2-rank run.
    QTableView* table = rankTable();
    tabs_->setMinimumHeight(tabs_->tabBar()->sizeHint().height() + table->horizontalHeader()->sizeHint().height() +
                            3 * table->verticalHeader()->defaultSectionSize() + 2 * table->frameWidth() + 8);
    finishLayout(charts, tabs_, Qt::Vertical, 3, 1);
}

void PlanRunMonitor::refreshCharts()
{
    loss_->setLine(QStringLiteral("loss"), tr("loss"), seriesPoints("loss"));
    setRankLines(stepTime_, "step_time", 1e3);
    throughput_->setLine(QStringLiteral("samples_per_s"), tr("samples/s"), seriesPoints("samples_per_s"));
    commShare_->setLine(QStringLiteral("comm_share"), tr("communication"), seriesPoints("comm_share", 100));
    predicted_->setLine(QStringLiteral("measured"), tr("measured"), seriesPoints("step_time", 1e3),
                        RunChart::paletteColor(0));
    predicted_->setLine(QStringLiteral("predicted"), tr("predicted"), seriesPoints("predicted_step_time", 1e3),
                        RunChart::paletteColor(3));
    setRankLines(memory_, "memory_bytes", 1e-6);
}

void PlanRunMonitor::clearCharts()
{
    for (RunChart* c : {loss_, stepTime_, throughput_, commShare_, predicted_, memory_}) c->clearLines();
}

void PlanRunMonitor::retranslateCharts()
{
    const QString step = tr("step");
    loss_->setTitle(tr("Loss"));
    loss_->setAxisTitles(step, tr("loss"));
    stepTime_->setTitle(tr("Step time per rank"));
    stepTime_->setAxisTitles(step, tr("ms"));
    throughput_->setTitle(tr("Throughput"));
    throughput_->setAxisTitles(step, tr("samples/s"));
    commShare_->setTitle(tr("Communication share of the step"));
    commShare_->setAxisTitles(step, tr("%"));
    predicted_->setTitle(tr("Step time: measured vs. predicted"));
    predicted_->setAxisTitles(step, tr("ms"));
    memory_->setTitle(tr("Memory per rank"));
    memory_->setAxisTitles(step, tr("MB"));
    tabs_->setTabText(0, tr("Ranks"));
    tabs_->setTabText(1, tr("Log"));
    if (record_) refreshCharts(); // legend names are translated too
}

} // namespace tapas
