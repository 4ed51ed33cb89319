#include "views/runs/gan_run_monitor.h"

#include "views/runs/run_chart.h"
#include "views/runs/run_record.h"
#include "views/runs/run_texts.h"

#include <QFileInfo>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPixmap>
#include <QPlainTextEdit>
#include <QSlider>
#include <QTabWidget>
#include <QTableView>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace tapas {

GanRunMonitor::GanRunMonitor(QWidget* parent)
    : RunMonitor(parent), loss_(new RunChart), dOut_(new RunChart), throughput_(new RunChart),
      stepTime_(new RunChart), congestion_(new RunChart), staleness_(new RunChart), quality_(new RunChart),
      lr_(new RunChart), smoothingLabel_(new QLabel), smoothing_(new QSlider(Qt::Horizontal)),
      sampleImage_(new QLabel), sampleCaption_(new QLabel), sampleSlider_(new QSlider(Qt::Horizontal)),
      settings_(new QTreeWidget), tabs_(new QTabWidget)
{
    setObjectName(QStringLiteral("ganRunMonitor"));
    loss_->setObjectName(QStringLiteral("ganLossChart"));
    dOut_->setObjectName(QStringLiteral("discriminatorChart"));
    throughput_->setObjectName(QStringLiteral("ganThroughputChart"));
    stepTime_->setObjectName(QStringLiteral("ganStepTimeChart"));
    congestion_->setObjectName(QStringLiteral("congestionChart"));
    staleness_->setObjectName(QStringLiteral("stalenessChart"));
    quality_->setObjectName(QStringLiteral("qualityChart"));
    lr_->setObjectName(QStringLiteral("learningRateChart"));
    for (RunChart* c : {loss_, dOut_, throughput_, stepTime_, congestion_, staleness_, quality_, lr_}) c->setLegendForOneLine(false);
    smoothing_->setObjectName(QStringLiteral("smoothingSlider"));
    smoothing_->setRange(0, 99);
    smoothing_->setValue(60);
    connect(smoothing_, &QSlider::valueChanged, this, [this] {
        smoothingLabel_->setText(tr("Smoothing: %1").arg(smoothing(), 0, 'f', 2));
        if (record_) refreshCharts();
    });

    auto* chartsBox = new QWidget;
    auto* charts = new QVBoxLayout(chartsBox);
    charts->setContentsMargins(0, 0, 0, 0);
    auto* smoothRow = new QHBoxLayout;
    smoothRow->addWidget(smoothingLabel_);
    smoothRow->addWidget(smoothing_, 1);
    smoothRow->addWidget(chartControls({loss_, dOut_, throughput_, stepTime_, congestion_, staleness_, quality_, lr_}, false));
    charts->addLayout(smoothRow);
    auto* grid = new QGridLayout;
    grid->setSpacing(2);
    RunChart* const order[] = {loss_, dOut_, throughput_, stepTime_, congestion_, staleness_, quality_, lr_};
    for (int i = 0; i < 8; ++i) grid->addWidget(order[i], i / 2, i % 2);
    charts->addLayout(grid, 1);

    sampleImage_->setObjectName(QStringLiteral("sampleImage"));
    sampleImage_->setAlignment(Qt::AlignCenter);
    sampleImage_->setMinimumSize(160, 160);
    sampleImage_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
    sampleCaption_->setObjectName(QStringLiteral("sampleCaption"));
    sampleCaption_->setAlignment(Qt::AlignCenter);
    sampleSlider_->setObjectName(QStringLiteral("sampleSlider"));
    sampleSlider_->setRange(0, 0);
    sampleSlider_->setEnabled(false);
    connect(sampleSlider_, &QSlider::valueChanged, this, [this](int i) { showSample(i); });
    auto* samples = new QWidget;
    auto* sampleLayout = new QVBoxLayout(samples);
    sampleLayout->setContentsMargins(0, 0, 0, 0);
    sampleLayout->addWidget(sampleImage_, 1);
    sampleLayout->addWidget(sampleCaption_);
    sampleLayout->addWidget(sampleSlider_);

    settings_->setObjectName(QStringLiteral("runSettings"));
    settings_->setColumnCount(2);
    settings_->setRootIsDecorated(false);
    settings_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    // All four tabs visible: scroll arrows hid the Ranks and Log tabs at the default width.
    tabs_->setUsesScrollButtons(false);
    tabs_->addTab(samples, QString());
    tabs_->addTab(settings_, QString());
    tabs_->addTab(rankTable(), QString());
    tabs_->addTab(logPanel(), QString());

    finishLayout(chartsBox, tabs_, Qt::Horizontal, 3, 2);
}

double GanRunMonitor::smoothing() const
{
    return smoothing_->value() / 100.0;
}

void GanRunMonitor::refreshCharts()
{
    const double w = smoothing();
    loss_->setLine(QStringLiteral("g_loss"), tr("G loss"), emaSmoothed(seriesPoints("g_loss"), w), RunChart::paletteColor(0));
    loss_->setLine(QStringLiteral("d_loss"), tr("D loss"), emaSmoothed(seriesPoints("d_loss"), w), RunChart::paletteColor(1));
    dOut_->setLine(QStringLiteral("d_real"), tr("D(x)"), emaSmoothed(seriesPoints("d_real"), w), RunChart::paletteColor(2));
    dOut_->setLine(QStringLiteral("d_fake"), tr("D(G(z))"), emaSmoothed(seriesPoints("d_fake"), w), RunChart::paletteColor(3));
    throughput_->setLine(QStringLiteral("images_per_s"), tr("images/s"), seriesPoints("images_per_s"));
    setRankLines(stepTime_, "step_time", 1e3);
    congestion_->setLine(QStringLiteral("data_wait"), tr("data wait (ms)"), seriesPoints("data_wait", 1e3), RunChart::paletteColor(1));
    congestion_->setLine(QStringLiteral("queue_depth"), tr("queue depth"), seriesPoints("queue_depth"), RunChart::paletteColor(0));
    congestion_->setLine(QStringLiteral("loader_threads"), tr("loader threads"), seriesPoints("loader_threads"), RunChart::paletteColor(2));
    congestion_->setLine(QStringLiteral("prefetch_depth"), tr("prefetch depth"), seriesPoints("prefetch_depth"), RunChart::paletteColor(4));
    staleness_->setLine(QStringLiteral("staleness"), tr("staleness"), seriesPoints("staleness"));
    // Quality: the mixture benchmarks' metrics (PacGAN's) or the image metrics of a classifier;
    // only the lines the run reports, so neither kind of run shows the other's empty legend.
    struct QualityLine { const char* key; QString label; double scale; int color; };
    const QualityLine lines[] = {
        {"modes_covered", tr("modes covered"), 1, 2},
        {"high_quality_share", tr("high-quality share (%)"), 100, 4},
        {"reverse_kl", tr("reverse KL"), 1, 1},
        {"classes_covered", tr("classes covered"), 1, 2},
        {"class_kl", tr("class KL"), 1, 1},
        {"frechet_distance", tr("Fréchet distance"), 1, 4},
    };
    for (const QualityLine& l : lines)
        if (record_ && record_->series(l.key))
            quality_->setLine(QString::fromLatin1(l.key), l.label, seriesPoints(l.key, l.scale), RunChart::paletteColor(l.color));
    lr_->setLine(QStringLiteral("lr_g"), tr("G"), seriesPoints("lr_g"), RunChart::paletteColor(0));
    lr_->setLine(QStringLiteral("lr_d"), tr("D"), seriesPoints("lr_d"), RunChart::paletteColor(1));
    if (settingsOf_ != record_) fillSettings();
    refreshSamples();
}

void GanRunMonitor::clearCharts()
{
    for (RunChart* c : {loss_, dOut_, throughput_, stepTime_, congestion_, staleness_, quality_, lr_}) c->clearLines();
    settings_->clear();
    settingsOf_ = nullptr;
    sampleSlider_->setRange(0, 0);
    sampleSlider_->setEnabled(false);
    sampleImage_->clear();
    sampleCaption_->setText(tr("No sample grid yet."));
    shownSample_.clear();
}

void GanRunMonitor::fillSettings()
{
    settingsOf_ = record_;
    settings_->clear();
    if (!record_) return;
    const auto& s = record_->spec();
    auto add = [this](const QString& k, const QString& v) { settings_->addTopLevelItem(new QTreeWidgetItem({k, v})); };
    add(tr("Run"), record_->id());
    add(tr("Ranks"), QString::number(s.ranks));
    add(tr("Hosts"), s.hosts.empty() ? tr("this machine") : [&] {
        QStringList h;
        for (const auto& x : s.hosts) h << QString::fromStdString(x);
        return h.join(QStringLiteral(", "));
    }());
    add(tr("Steps"), QString::number(s.steps));
    add(tr("Checkpoint every"), s.checkpointEvery > 0 ? tr("%n step(s)", nullptr, s.checkpointEvery) : tr("never"));
    add(tr("Started"), QString::fromStdString(s.created));
    for (const auto& [k, v] : s.options)
        add(QStringLiteral("--") + QString::fromStdString(k), v.empty() ? tr("on") : QString::fromStdString(v));
    add(tr("Directory"), record_->dir());
}

void GanRunMonitor::refreshSamples()
{
    const auto& samples = record_->samples();
    const int n = int(samples.size());
    if (n == 0) return;
    // Follow the newest grid unless the user went back to an earlier one.
    const bool following = !sampleSlider_->isEnabled() || sampleSlider_->value() >= sampleSlider_->maximum();
    if (sampleSlider_->maximum() != n - 1) {
        QSignalBlocker block(sampleSlider_);
        sampleSlider_->setRange(0, n - 1);
    }
    sampleSlider_->setEnabled(n > 1);
    const int index = following ? n - 1 : sampleSlider_->value();
    if (sampleSlider_->value() != index) {
        QSignalBlocker block(sampleSlider_);
        sampleSlider_->setValue(index);
    }
    if (shownSample_ != samples[size_t(index)].path || sampleImage_->pixmap().isNull()) showSample(index);
}

void GanRunMonitor::showSample(int index)
{
    if (!record_ || index < 0 || index >= int(record_->samples().size())) return;
    const RunSample& s = record_->samples()[size_t(index)];
    QPixmap pix(s.path);
    const int n = int(record_->samples().size());
    if (pix.isNull()) {
        // The worker writes the PNG before announcing it; a missing file is a moved run directory.
        sampleImage_->clear();
        sampleCaption_->setText(tr("Step %1: cannot read %2").arg(s.step).arg(QFileInfo(s.path).fileName()));
        shownSample_ = s.path;
        return;
    }
    shownSample_ = s.path;
    sampleImage_->setPixmap(pix.scaled(sampleImage_->size(), Qt::KeepAspectRatio,
                                       pix.width() < sampleImage_->width() / 2 ? Qt::FastTransformation : Qt::SmoothTransformation));
    sampleCaption_->setText(tr("Samples at step %1 (%2 of %3)").arg(s.step).arg(index + 1).arg(n));
}

void GanRunMonitor::resizeEvent(QResizeEvent* event)
{
    RunMonitor::resizeEvent(event);
    if (record_ && !shownSample_.isEmpty()) showSample(sampleSlider_->value());
}

void GanRunMonitor::retranslateCharts()
{
    const QString step = tr("step");
    loss_->setTitle(tr("Generator and discriminator loss"));
    loss_->setAxisTitles(step, tr("loss"));
    dOut_->setTitle(tr("Discriminator outputs"));
    dOut_->setAxisTitles(step, tr("probability"));
    throughput_->setTitle(tr("Throughput"));
    throughput_->setAxisTitles(step, tr("images/s"));
    stepTime_->setTitle(tr("Step time per rank"));
    stepTime_->setAxisTitles(step, tr("ms"));
    congestion_->setTitle(tr("Data pipeline"));
    congestion_->setAxisTitles(step, tr("ms, count"));
    staleness_->setTitle(tr("Staleness"));
    staleness_->setAxisTitles(step, tr("G updates"));
    quality_->setTitle(tr("Mode coverage and sample quality"));
    quality_->setAxisTitles(step, tr("modes, %"));
    lr_->setTitle(tr("Learning rates"));
    lr_->setAxisTitles(step, tr("lr")); // the chart's title says what; a long vertical title elides
    smoothingLabel_->setText(tr("Smoothing: %1").arg(smoothing(), 0, 'f', 2));
    settings_->setHeaderLabels({tr("Setting"), tr("Value")});
    tabs_->setTabText(0, tr("Samples"));
    tabs_->setTabText(1, tr("Settings"));
    tabs_->setTabText(2, tr("Ranks"));
    tabs_->setTabText(3, tr("Log"));
    if (record_) {
        settingsOf_ = nullptr;
        refreshCharts();
    }
}

} // namespace tapas
