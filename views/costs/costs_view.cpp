#include "views/costs/costs_view.h"

#include "views/graph/block_style.h"

#include <QBarCategoryAxis>
#include <QCursor>
#include <QGraphicsLayout>
#include <QHorizontalStackedBarSeries>
#include <QLegend>
#include <QTabWidget>
#include <QToolTip>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QEvent>
#include <QLabel>
#include <QLineSeries>
#include <QPainter>
#include <QResizeEvent>
#include <QStackedBarSeries>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace tapas {

namespace {

constexpr double kMs = 1e3;
constexpr double kGB = 1e-9;

QChartView* makeView(QWidget* parent, const char* name)
{
    auto* v = new QChartView(parent);
    v->setObjectName(QString::fromLatin1(name));
    v->setRenderHint(QPainter::Antialiasing);
    v->setMinimumSize(200, 140);
    return v;
}

QBarSet* makeSet(const QString& label, const QColor& color)
{
    auto* s = new QBarSet(label);
    s->setColor(color);
    s->setBorderColor(color.darker(120));
    return s;
}

QFont smallerFont(QFont f)
{
    f.setPointSizeF(std::max(7.0, f.pointSizeF() - 1));
    return f;
}

// A chart that spends its few hundred pixels on the bars: no outer margins, a small legend.
QChart* bareChart(const QString& title)
{
    auto* chart = new QChart;
    chart->setTitle(title);
    QFont tf = smallerFont(chart->titleFont());
    tf.setBold(true);
    chart->setTitleFont(tf);
    chart->setAnimationOptions(QChart::NoAnimation); // follows every edit; animation would lag
    chart->setMargins(QMargins(4, 2, 4, 2));
    chart->layout()->setContentsMargins(0, 0, 0, 0);
    chart->setBackgroundRoundness(0);
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->legend()->setFont(smallerFont(chart->legend()->font()));
    return chart;
}

// Round axis maximum for `top`.
double niceTop(double top)
{
    if (!(top > 0)) return 1;
    const double mag = std::pow(10.0, std::floor(std::log10(top)));
    for (double m : {1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0})
        if (m * mag >= top) return m * mag;
    return 10 * mag;
}

// The value axis carries its unit in every label ("12 ms"), so it needs no title to elide.
QValueAxis* valueAxis(double top, const QString& unitFormat)
{
    auto* axis = new QValueAxis;
    axis->setRange(0, niceTop(top * 1.05));
    axis->setTickCount(5);
    axis->setLabelFormat(unitFormat);
    axis->setLabelsFont(smallerFont(axis->labelsFont()));
    return axis;
}

double stackTop(const QList<QBarSet*>& sets, int count, double minTop)
{
    double top = minTop;
    for (int i = 0; i < count; ++i) {
        double sum = 0;
        for (QBarSet* s : sets) sum += s->at(i);
        top = std::max(top, sum);
    }
    return top;
}

// One bar per plan, lying down: plan names read across at the left, as long as they are.
QChart* plansChart(const QString& title, const QStringList& plans, const QList<QBarSet*>& sets, const QString& unitFormat,
                   double minTop)
{
    QChart* chart = bareChart(title);
    auto* series = new QHorizontalStackedBarSeries;
    series->append(sets);
    series->setBarWidth(0.6);
    chart->addSeries(series);
    auto* y = new QBarCategoryAxis;
    y->append(plans);
    y->setLabelsFont(smallerFont(y->labelsFont()));
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(y);
    QValueAxis* x = valueAxis(stackTop(sets, int(plans.size()), minTop), unitFormat);
    chart->addAxis(x, Qt::AlignBottom);
    series->attachAxis(x);
    return chart;
}

// One column per block of the current plan, in chain order.
QChart* blocksChart(const QString& title, const QStringList& blocks, const QList<QBarSet*>& sets, const QString& unitFormat)
{
    QChart* chart = bareChart(title);
    auto* series = new QStackedBarSeries;
    series->append(sets);
    chart->addSeries(series);
    auto* x = new QBarCategoryAxis;
    x->append(blocks);
    x->setLabelsFont(smallerFont(x->labelsFont()));
    chart->addAxis(x, Qt::AlignBottom);
    series->attachAxis(x);
    QValueAxis* y = valueAxis(stackTop(sets, int(blocks.size()), 0), unitFormat);
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(y);
    return chart;
}

// "%.1f ms": as many decimals as values of this size need to tell ticks apart. The unit is an SI
// symbol, not translated: Qt Charts formats tick labels from Latin-1 ("毫秒" became "??").
QString unitFormat(double top, const char* unit)
{
    const int decimals = top >= 10 ? 0 : top >= 1 ? 1 : 2;
    return QStringLiteral("%.") + QString::number(decimals) + QStringLiteral("f ") + QLatin1String(unit);
}

template <class Value>
double largest(const std::vector<PlanCosts>& plans, Value value)
{
    double top = 0;
    for (const PlanCosts& p : plans) top = std::max(top, value(p.total));
    return top;
}

// The device limit as a dashed line across the whole plot of a horizontal bar chart: on the
// bars' value axis, with its own hidden 0..1 axis across.
QLineSeries* addLimitLine(QChart* chart, double limitGB, const QString& name)
{
    auto* line = new QLineSeries;
    line->setName(name);
    line->append(limitGB, 0);
    line->append(limitGB, 1);
    QPen pen(QColor(0xd5, 0x5e, 0x00));
    pen.setWidth(2);
    pen.setStyle(Qt::DashLine);
    line->setPen(pen);
    chart->addSeries(line);
    auto* across = new QValueAxis;
    across->setRange(0, 1);
    across->setVisible(false);
    chart->addAxis(across, Qt::AlignRight);
    line->attachAxis(chart->axes(Qt::Horizontal).value(0));
    line->attachAxis(across);
    return line;
}

void replaceChart(QChartView* view, QChart* chart)
{
    QChart* old = view->chart();
    view->setChart(chart); // the view releases the old chart without deleting it
    delete old;
}

} // namespace

CostsView::CostsView(QWidget* parent)
    : QWidget(parent), headline_(new QLabel(this)), timeView_(makeView(this, "costsTimeChart")),
      memoryView_(makeView(this, "costsMemoryChart")), blockView_(makeView(this, "costsBlockChart")),
      stageView_(makeView(this, "costsStageChart"))
{
    setObjectName(QStringLiteral("costsView"));
    headline_->setObjectName(QStringLiteral("costsHeadline"));
    headline_->setWordWrap(true);
    headline_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // One chart a page, each with the dock's whole size: below about 200 px of height Qt Charts
    // elides every axis label to "...", and the dock shares the bottom with the Plan table.
    pages_ = new QTabWidget(this);
    pages_->setObjectName(QStringLiteral("costsPages"));
    pages_->setDocumentMode(true);
    pages_->addTab(timeView_, QString());
    pages_->addTab(memoryView_, QString());
    pages_->addTab(blockView_, QString());
    pages_->addTab(stageView_, QString());
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(headline_);
    layout->addWidget(pages_, 1);
    rebuild();
}

CostsView::~CostsView() = default;

void CostsView::setData(CostsData data)
{
    // The current plan leads, whatever order the caller used.
    std::stable_partition(data.plans.begin(), data.plans.end(), [](const PlanCosts& p) { return p.current; });
    data_ = std::move(data);
    rebuild();
}

void CostsView::clear()
{
    data_ = {};
    rebuild();
}

void CostsView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange) retranslateUi();
    QWidget::changeEvent(event);
}

void CostsView::retranslateUi()
{
    rebuild(); // titles and legends are baked into the charts
}

// Hovering a bar names its plan (or block), its part and its value with the unit.
void CostsView::connectTooltips(const QList<QBarSet*>& sets, const QStringList& categories, const QString& unit)
{
    for (QBarSet* set : sets) {
        if (!set) continue;
        connect(set, &QBarSet::hovered, this, [set, categories, unit](bool on, int index) {
            if (!on || index < 0 || index >= int(categories.size())) {
                QToolTip::hideText();
                return;
            }
            QToolTip::showText(QCursor::pos(), tr("%1 · %2: %3 %4")
                                                   .arg(categories[index], set->label())
                                                   .arg(set->at(index), 0, 'g', 4)
                                                   .arg(unit));
        });
    }
}

void CostsView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    fitToSize();
}

// As many value ticks as their labels ("12.5 ms") have room for.
void CostsView::fitToSize()
{
    const int labelWidth = fontMetrics().horizontalAdvance(QStringLiteral("000.0 ms")) + 16;
    for (QChartView* v : {timeView_, memoryView_, blockView_, stageView_}) {
        const int plot = width() - 120;
        const int ticks = std::clamp(plot / labelWidth + 1, 2, 6);
        for (QAbstractAxis* a : v->chart()->axes())
            if (auto* value = qobject_cast<QValueAxis*>(a); value && value->isVisible()) value->setTickCount(ticks);
    }
}

QString CostsView::headline() const
{
    return headline_->text();
}

void CostsView::rebuild()
{
    pages_->setTabText(0, tr("Step time"));
    pages_->setTabText(1, tr("Memory"));
    pages_->setTabText(2, tr("Per block"));
    pages_->setTabToolTip(0, tr("Step time per device of each plan: compute, tensor- and data-parallel communication"));
    pages_->setTabToolTip(1, tr("Memory per device of each plan against the device's limit"));
    pages_->setTabToolTip(2, tr("The current plan per block, in model order: A3 is the third instance of block A, U a unique part"));
    pages_->setTabText(3, tr("Stages"));
    pages_->setTabToolTip(3, tr("The current plan's memory per pipeline rank against the device's limit"));
    QStringList planNames;
    // Short legend labels; the tooltips on the bars say the rest.
    compute_ = makeSet(tr("Compute"), QColor(0x00, 0x72, 0xb2));
    tpComm_ = makeSet(tr("TP comm."), QColor(0xe6, 0x9f, 0x00));
    dpComm_ = makeSet(tr("DP comm."), QColor(0x00, 0x9e, 0x73));
    weights_ = makeSet(tr("Weights + optimizer"), QColor(0xcc, 0x79, 0xa7));
    activations_ = makeSet(tr("Activations"), QColor(0x56, 0xb4, 0xe9));
    // Plans without stages show the three parts they always had.
    bool staged = false;
    for (const PlanCosts& p : data_.plans) staged = staged || p.total.ppComm > 0 || p.total.bubble > 0;
    ppComm_ = staged ? makeSet(tr("PP sends"), QColor(0x88, 0x22, 0x55)) : nullptr;
    bubble_ = staged ? makeSet(tr("Bubble"), QColor(0xbb, 0xbb, 0xbb)) : nullptr;
    for (const PlanCosts& p : data_.plans) {
        planNames << (p.mesh.isEmpty() ? p.label : QStringLiteral("%1 %2").arg(p.label, p.mesh));
        *compute_ << p.total.compute * kMs;
        *tpComm_ << p.total.tpComm * kMs;
        *dpComm_ << p.total.dpComm * kMs;
        if (staged) {
            *ppComm_ << p.total.ppComm * kMs;
            *bubble_ << p.total.bubble * kMs;
        }
        *weights_ << p.total.weightMemory * kGB;
        *activations_ << p.total.activationMemory * kGB;
    }
    QList<QBarSet*> timeSets{compute_, tpComm_, dpComm_};
    if (staged) timeSets << ppComm_ << bubble_;
    replaceChart(timeView_, plansChart(tr("Step time per device"), planNames, timeSets,
                                       unitFormat(largest(data_.plans, [](const CostTerms& t) { return t.time() * kMs; }), "ms"), 0));
    const double limitGB = data_.memoryLimit * kGB;
    const double memoryTop = std::max(limitGB, largest(data_.plans, [](const CostTerms& t) { return t.memory() * kGB; }));
    QChart* memory = plansChart(tr("Memory per device"), planNames, {weights_, activations_}, unitFormat(memoryTop, "GB"), limitGB);
    limit_ = nullptr;
    if (limitGB > 0 && !data_.plans.empty())
        limit_ = addLimitLine(memory, limitGB, tr("Device limit (%1 GB)").arg(limitGB, 0, 'f', 1));
    replaceChart(memoryView_, memory);
    connectTooltips(timeSets, planNames, tr("ms"));
    connectTooltips({weights_, activations_}, planNames, tr("GB"));

    // Per block of the current plan, in chain order: "A3" is the third instance of block A.
    QStringList blockNames;
    blockCompute_ = makeSet(tr("Compute"), QColor(0x00, 0x72, 0xb2));
    blockComm_ = makeSet(tr("Communication"), QColor(0xe6, 0x9f, 0x00));
    if (data_.folded) {
        const FoldedGraph& f = *data_.folded;
        const BlockStyle style(f);
        for (size_t b = 0; b < data_.perBlock.size() && b < f.chain.size(); ++b) {
            blockNames << style.chainLabel(f, int(b));
            *blockCompute_ << data_.perBlock[b].compute * kMs;
            *blockComm_ << (data_.perBlock[b].tpComm + data_.perBlock[b].dpComm) * kMs;
        }
    }
    double blockTop = 0;
    for (const CostTerms& t : data_.perBlock) blockTop = std::max(blockTop, (t.compute + t.tpComm + t.dpComm) * kMs);
    replaceChart(blockView_, blocksChart(tr("Step time per block, current plan"), blockNames, {blockCompute_, blockComm_},
                                         unitFormat(blockTop, "ms")));
    connectTooltips({blockCompute_, blockComm_}, blockNames, tr("ms"));
    rebuildStages();

    fitToSize();
    if (data_.plans.empty()) {
        headline_->setText(tr("No plan yet: run Plan ▸ Search… to compare plans."));
    } else {
        const PlanCosts& p = data_.plans.front();
        QString text = tr("%1 on mesh %2: %3 ms per step, %4 GB per device (%5)")
                           .arg(p.label, p.mesh)
                           .arg(p.total.time() * kMs, 0, 'f', 2)
                           .arg(p.total.memory() * kGB, 0, 'f', 2)
                           .arg(p.fits ? tr("fits") : tr("does not fit"));
        if (p.current && data_.pipeline.staged())
            text += QStringLiteral("; ") + tr("%n stage(s), bubble %1% of the step (%2 ms)", nullptr, int(data_.pipeline.stages.size()))
                                              .arg(data_.pipeline.bubbleFraction * 100, 0, 'f', 1)
                                              .arg(p.total.bubble * kMs, 0, 'f', 2);
        headline_->setText(text);
    }
}

// The current plan's pipeline ranks, each with the stages it holds, their weights (with
// gradients and optimizer state) and kept activations against the device limit.
void CostsView::rebuildStages()
{
    const PipelineSchedule& p = data_.pipeline;
    stageWeights_ = makeSet(tr("Weights + optimizer"), QColor(0xcc, 0x79, 0xa7));
    stageActivations_ = makeSet(tr("Activations"), QColor(0x56, 0xb4, 0xe9));
    stageLimit_ = nullptr;
    QStringList ranks;
    const int pp = p.staged() ? std::max(1, data_.pipelineRanks) : 0;
    for (int r = 0; r < pp; ++r) {
        QStringList held;
        double weights = 0, activations = 0;
        for (size_t s = 0; s < p.stages.size(); ++s) {
            if (p.stages[s].device != r) continue;
            held << QString::number(s);
            weights += p.stages[s].weightMemory;
            activations += p.stages[s].activationMemory;
        }
        ranks << tr("pp %1 (stage %2)").arg(r).arg(held.join(QStringLiteral(", ")));
        *stageWeights_ << weights * kGB;
        *stageActivations_ << activations * kGB;
    }
    const double limitGB = data_.memoryLimit * kGB;
    QChart* chart = plansChart(tr("Memory per pipeline rank, current plan"), ranks, {stageWeights_, stageActivations_},
                               unitFormat(std::max(limitGB, stackTop({stageWeights_, stageActivations_}, pp, 0)), "GB"), limitGB);
    if (limitGB > 0 && pp > 0) stageLimit_ = addLimitLine(chart, limitGB, tr("Device limit (%1 GB)").arg(limitGB, 0, 'f', 1));
    replaceChart(stageView_, chart);
    connectTooltips({stageWeights_, stageActivations_}, ranks, tr("GB"));
    pages_->setTabVisible(3, pp > 0);
}

} // namespace tapas
