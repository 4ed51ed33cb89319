#include "views/costs/costs_view.h"

#include "views/graph/block_style.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QEvent>
#include <QLabel>
#include <QLineSeries>
#include <QPainter>
#include <QSplitter>
#include <QStackedBarSeries>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>

namespace tapas {

namespace {

constexpr double kMs = 1e3;
constexpr double kGB = 1e-9;

QChartView* makeView(QWidget* parent, const char* name)
{
    auto* v = new QChartView(parent);
    v->setObjectName(QString::fromLatin1(name));
    v->setRenderHint(QPainter::Antialiasing);
    v->setMinimumSize(220, 160);
    return v;
}

QBarSet* makeSet(const QString& label, const QColor& color)
{
    auto* s = new QBarSet(label);
    s->setColor(color);
    s->setBorderColor(color.darker(120));
    return s;
}

// A chart with the given stacked sets over `categories`, values axis titled `unit`.
QChart* stackedChart(const QString& title, const QStringList& categories, const QList<QBarSet*>& sets, const QString& unit,
                     double minTop)
{
    auto* chart = new QChart;
    chart->setTitle(title);
    chart->setAnimationOptions(QChart::NoAnimation); // follows every edit; animation would lag
    chart->legend()->setAlignment(Qt::AlignBottom);
    auto* series = new QStackedBarSeries;
    series->append(sets);
    chart->addSeries(series);
    auto* x = new QBarCategoryAxis;
    x->append(categories);
    chart->addAxis(x, Qt::AlignBottom);
    series->attachAxis(x);
    auto* y = new QValueAxis;
    y->setTitleText(unit);
    double top = minTop;
    for (int i = 0; i < int(categories.size()); ++i) {
        double sum = 0;
        for (QBarSet* s : sets) sum += s->at(i);
        top = std::max(top, sum);
    }
    y->setRange(0, top > 0 ? top * 1.1 : 1);
    y->applyNiceNumbers();
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(y);
    return chart;
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
      memoryView_(makeView(this, "costsMemoryChart")), blockView_(makeView(this, "costsBlockChart"))
{
    setObjectName(QStringLiteral("costsView"));
    headline_->setObjectName(QStringLiteral("costsHeadline"));
    headline_->setWordWrap(true);
    headline_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* top = new QSplitter(Qt::Horizontal, this);
    top->addWidget(timeView_);
    top->addWidget(memoryView_);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(top);
    split->addWidget(blockView_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(headline_);
    layout->addWidget(split, 1);
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

QString CostsView::headline() const
{
    return headline_->text();
}

void CostsView::rebuild()
{
    QStringList planNames;
    compute_ = makeSet(tr("Compute"), QColor(0x00, 0x72, 0xb2));
    tpComm_ = makeSet(tr("TP communication"), QColor(0xe6, 0x9f, 0x00));
    dpComm_ = makeSet(tr("DP communication"), QColor(0x00, 0x9e, 0x73));
    weights_ = makeSet(tr("Weights, gradients, optimizer"), QColor(0xcc, 0x79, 0xa7));
    activations_ = makeSet(tr("Activations"), QColor(0x56, 0xb4, 0xe9));
    for (const PlanCosts& p : data_.plans) {
        planNames << (p.mesh.isEmpty() ? p.label : QStringLiteral("%1\n%2").arg(p.label, p.mesh));
        *compute_ << p.total.compute * kMs;
        *tpComm_ << p.total.tpComm * kMs;
        *dpComm_ << p.total.dpComm * kMs;
        *weights_ << p.total.weightMemory * kGB;
        *activations_ << p.total.activationMemory * kGB;
    }
    replaceChart(timeView_, stackedChart(tr("Step time per device"), planNames, {compute_, tpComm_, dpComm_}, tr("ms"), 0));
    const double limitGB = data_.memoryLimit * kGB;
    QChart* memory = stackedChart(tr("Memory per device"), planNames, {weights_, activations_}, tr("GB"), limitGB);
    limit_ = nullptr;
    if (limitGB > 0 && !data_.plans.empty()) {
        // The limit spans the whole plot: its own hidden 0..1 x axis, the bars' y axis.
        limit_ = new QLineSeries;
        limit_->setName(tr("Device limit (%1 GB)").arg(limitGB, 0, 'f', 1));
        limit_->append(0, limitGB);
        limit_->append(1, limitGB);
        QPen pen(QColor(0xd5, 0x5e, 0x00));
        pen.setWidth(2);
        pen.setStyle(Qt::DashLine);
        limit_->setPen(pen);
        memory->addSeries(limit_);
        auto* x = new QValueAxis;
        x->setRange(0, 1);
        x->setVisible(false);
        memory->addAxis(x, Qt::AlignTop);
        limit_->attachAxis(x);
        limit_->attachAxis(memory->axes(Qt::Vertical).value(0));
    }
    replaceChart(memoryView_, memory);

    // Per block of the current plan, in chain order: "A3" is the third instance of block A.
    QStringList blockNames;
    blockCompute_ = makeSet(tr("Compute"), QColor(0x00, 0x72, 0xb2));
    blockComm_ = makeSet(tr("Communication"), QColor(0xe6, 0x9f, 0x00));
    if (data_.folded) {
        const FoldedGraph& f = *data_.folded;
        std::vector<int> letter(f.classes.size(), -1);
        int repeated = 0;
        for (size_t c = 0; c < f.classes.size(); ++c)
            if (f.classes[c].repeated()) letter[c] = repeated++;
        for (size_t b = 0; b < data_.perBlock.size() && b < f.chain.size(); ++b) {
            const BlockRef& ref = f.chain[b];
            const int l = ref.classId >= 0 && size_t(ref.classId) < letter.size() ? letter[size_t(ref.classId)] : -1;
            blockNames << (l >= 0 ? BlockStyle::letters(l) + QString::number(ref.instance + 1) : tr("U%1").arg(b + 1));
            *blockCompute_ << data_.perBlock[b].compute * kMs;
            *blockComm_ << (data_.perBlock[b].tpComm + data_.perBlock[b].dpComm) * kMs;
        }
    }
    replaceChart(blockView_, stackedChart(tr("Current plan per block (A3: third instance of block A, U: unique part)"), blockNames,
                                          {blockCompute_, blockComm_}, tr("ms"), 0));

    if (data_.plans.empty()) {
        headline_->setText(tr("No plan yet: run Plan ▸ Search… to compare plans."));
    } else {
        const PlanCosts& p = data_.plans.front();
        headline_->setText(tr("%1 on mesh %2: %3 ms per step, %4 GB per device (%5)")
                               .arg(p.label, p.mesh)
                               .arg(p.total.time() * kMs, 0, 'f', 2)
                               .arg(p.total.memory() * kGB, 0, 'f', 2)
                               .arg(p.fits ? tr("fits") : tr("does not fit")));
    }
}

} // namespace tapas
