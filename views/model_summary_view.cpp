#include "views/model_summary_view.h"

#include "views/elided_label.h"
#include "views/number_text.h"
#include "views/op_histogram_model.h"
#include "views/tensor_list_model.h"
#include "views/text_style.h"

#include <QDir>
#include <QEvent>
#include <QFileInfo>
#include <QFrame>
#include <QGridLayout>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QListView>
#include <QResizeEvent>
#include <QLocale>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStackedWidget>
#include <QStandardItemModel>
#include <QStyle>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace tapas {

namespace {

void setUpTable(QTableView* t)
{
    t->verticalHeader()->hide();
    t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 8);
    t->setAlternatingRowColors(true);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setShowGrid(false);
    t->setWordWrap(false);
    t->horizontalHeader()->setHighlightSections(false);
    t->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
}

QString joined(const std::vector<std::string>& items, const QString& sep)
{
    QStringList l;
    for (const std::string& s : items) l << QString::fromStdString(s);
    return l.join(sep);
}

} // namespace

ModelSummaryView::ModelSummaryView(QWidget* parent)
    : QWidget(parent), stack_(new QStackedWidget(this)), placeholder_(new QLabel(this)),
      title_(new QLabel(this)), path_(new QLabel(this)), runnable_(new QLabel(this)), ops_(new OpHistogramModel(this)),
      opsSorted_(new QSortFilterProxyModel(this)), inputs_(new TensorListModel(this)),
      outputs_(new TensorListModel(this)), warnings_(new QStandardItemModel(this))
{
    placeholder_->setAlignment(Qt::AlignCenter);
    placeholder_->setWordWrap(true);
    makeQuiet(placeholder_);

    QFont titleFont = title_->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.5);
    titleFont.setBold(true);
    title_->setFont(titleFont);
    title_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    path_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    makeQuiet(path_);

    auto* header = new QVBoxLayout;
    header->setSpacing(2);
    header->addWidget(title_);
    header->addWidget(path_);
    runnable_->setObjectName(QStringLiteral("runnableLabel"));
    runnable_->setWordWrap(true);
    runnable_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    header->addWidget(runnable_);

    auto* tensors = new QSplitter(Qt::Vertical);
    inputsBox_ = buildTensorBox(inputs_, &inputsTable_);
    outputsBox_ = buildTensorBox(outputs_, &outputsTable_);
    tensors->addWidget(inputsBox_);
    tensors->addWidget(outputsBox_);
    tensors->addWidget(buildWarningsBox());
    tensors->setChildrenCollapsible(false);


    auto* tables = new QSplitter(Qt::Horizontal);
    tables->addWidget(buildOpsBox());
    tables->addWidget(tensors);
    tables->setStretchFactor(0, 2);
    tables->setStretchFactor(1, 3);
    tables->setChildrenCollapsible(false);

    auto* content = new QWidget;
    auto* contentLayout = new QVBoxLayout(content);
    contentLayout->setContentsMargins(12, 12, 12, 12);
    contentLayout->setSpacing(12);
    contentLayout->addLayout(header);
    contentLayout->addWidget(buildFigures());
    contentLayout->addWidget(tables, 1);

    stack_->addWidget(placeholder_);
    stack_->addWidget(content);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(stack_);
    retranslateUi();
}

QWidget* ModelSummaryView::buildFigures()
{
    auto* box = new QWidget;
    auto* grid = new QGridLayout(box);
    figureGrid_ = grid;
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setHorizontalSpacing(10);
    grid->setVerticalSpacing(10);
    for (int i = 0; i < kFigureCount; ++i) {
        auto* card = new QFrame;
        card->setObjectName(QStringLiteral("figureCard"));
        card->setFrameShape(QFrame::StyledPanel);
        card->setAutoFillBackground(true);
        card->setBackgroundRole(QPalette::Base);
        auto* l = new QVBoxLayout(card);
        l->setContentsMargins(10, 8, 10, 8);
        l->setSpacing(2);
        FigureWidgets& w = figures_[size_t(i)];
        w.card = card;
        // Captions wrap and values elide (with the whole text in the tooltip): a card in a
        // narrow dock never cuts a word off.
        w.caption = new QLabel;
        w.caption->setWordWrap(true);
        makeQuiet(w.caption);
        w.value = new ElidedLabel;
        QFont f = w.value->font();
        f.setPointSizeF(f.pointSizeF() * 1.35);
        f.setBold(true);
        w.value->setFont(f);
        w.value->setTextInteractionFlags(Qt::TextSelectableByMouse);
        l->addWidget(w.caption);
        l->addWidget(w.value);
    }
    reflowFigures();
    figure(Figure::Nodes).value->setObjectName(QStringLiteral("nodesValue"));
    figure(Figure::Parameters).value->setObjectName(QStringLiteral("paramsValue"));
    figure(Figure::ParameterBytes).value->setObjectName(QStringLiteral("paramBytesValue"));
    figure(Figure::Flops).value->setObjectName(QStringLiteral("flopsValue"));
    return box;
}

QGroupBox* ModelSummaryView::buildOpsBox()
{
    opsBox_ = new QGroupBox;
    opsSorted_->setSourceModel(ops_);
    opsSorted_->setSortRole(OpHistogramModel::SortRole);
    opTable_ = new QTableView;
    setUpTable(opTable_);
    opTable_->setModel(opsSorted_);
    opTable_->setSortingEnabled(true);
    opTable_->sortByColumn(OpHistogramModel::Count, Qt::DescendingOrder);
    QHeaderView* h = opTable_->horizontalHeader();
    h->setSectionResizeMode(OpHistogramModel::OpType, QHeaderView::Stretch);
    h->setSectionResizeMode(OpHistogramModel::Count, QHeaderView::ResizeToContents);
    h->setSectionResizeMode(OpHistogramModel::Share, QHeaderView::ResizeToContents);
    auto* l = new QVBoxLayout(opsBox_);
    l->addWidget(opTable_);
    return opsBox_;
}

QGroupBox* ModelSummaryView::buildTensorBox(TensorListModel* model, QTableView** view)
{
    auto* box = new QGroupBox;
    auto* t = new QTableView;
    setUpTable(t);
    t->setModel(model);
    QHeaderView* h = t->horizontalHeader();
    h->setSectionResizeMode(TensorListModel::Name, QHeaderView::Interactive);
    h->setSectionResizeMode(TensorListModel::DTypeColumn, QHeaderView::ResizeToContents);
    h->setSectionResizeMode(TensorListModel::ShapeColumn, QHeaderView::Stretch);
    h->resizeSection(TensorListModel::Name, 180);
    auto* l = new QVBoxLayout(box);
    l->addWidget(t);
    *view = t;
    return box;
}

QGroupBox* ModelSummaryView::buildWarningsBox()
{
    warningsBox_ = new QGroupBox;
    warningsView_ = new QListView;
    warningsView_->setModel(warnings_);
    warningsView_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    warningsView_->setWordWrap(true);
    warningsView_->setAlternatingRowColors(true);
    warningsView_->setSpacing(1);
    warningsView_->setIconSize(QSize(16, 16));
    warningsView_->setObjectName(QStringLiteral("warningsList"));
    noWarnings_ = new QLabel;
    noWarnings_->setAlignment(Qt::AlignCenter);
    makeQuiet(noWarnings_);
    auto* l = new QVBoxLayout(warningsBox_);
    l->addWidget(warningsView_);
    l->addWidget(noWarnings_);
    return warningsBox_;
}

void ModelSummaryView::setSummary(const ModelSummary& summary, const QString& location)
{
    summary_ = summary;
    location_ = location;
    hasSummary_ = true;
    ops_->setHistogram(summary.ops);
    inputs_->setTensors(summary.inputs);
    outputs_->setTensors(summary.outputs);
    warnings_->clear();
    const QIcon icon = style()->standardIcon(QStyle::SP_MessageBoxWarning);
    for (const std::string& s : summary.warnings) {
        auto* item = new QStandardItem(icon, QString::fromStdString(s));
        item->setEditable(false);
        item->setToolTip(item->text());
        warnings_->appendRow(item);
    }
    fitTensorTables();
    warningsView_->setVisible(!summary.warnings.empty());
    noWarnings_->setVisible(summary.warnings.empty());
    fillFigures(summary_);
    updateGroupTitles();
    showCurrentPage();
}

void ModelSummaryView::clear()
{
    summary_ = {};
    hasSummary_ = false;
    ops_->clear();
    inputs_->clear();
    outputs_->clear();
    warnings_->clear();
    location_.clear();
    showCurrentPage();
}

// Showing a page lays it out, even under a hidden parent (QWidget::setVisible activates the
// page's layout first): while this view is hidden in its window, as behind another dock's tab,
// the page waits for the view's own show.
void ModelSummaryView::showCurrentPage()
{
    if (isHidden() && !isWindow()) return;
    stack_->setCurrentIndex(hasSummary_ ? 1 : 0);
}

void ModelSummaryView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    showCurrentPage();
}

// Inputs and outputs are usually one or two rows: the tables hug them (up to a few rows, then
// scroll) and leave the height to the warnings, which wrap over several lines.
void ModelSummaryView::fitTensorTables()
{
    constexpr int kMaxVisibleRows = 6;
    for (QTableView* t : {inputsTable_, outputsTable_}) {
        const int rows = std::clamp(t->model()->rowCount(), 1, kMaxVisibleRows);
        const int height = t->horizontalHeader()->sizeHint().height()
            + rows * t->verticalHeader()->defaultSectionSize() + 2 * t->frameWidth() + 2;
        t->setMaximumHeight(height);
        t->setMinimumHeight(std::min(height, t->horizontalHeader()->sizeHint().height()
                                                 + 2 * t->verticalHeader()->defaultSectionSize()));
    }
}

QString ModelSummaryView::figureText(Figure f) const
{
    return figures_[size_t(f)].value->fullText();
}

QLabel* ModelSummaryView::figureValueLabel(Figure f) const
{
    return figures_[size_t(f)].value;
}

QLabel* ModelSummaryView::figureCaptionLabel(Figure f) const
{
    return figures_[size_t(f)].caption;
}

void ModelSummaryView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    reflowFigures();
}

// Four cards a row where there is room, down to one in a narrow dock: a card is never narrower
// than about sixteen characters, so "124.4M" and "Parameter memory" keep their width.
void ModelSummaryView::reflowFigures()
{
    const int minCard = fontMetrics().averageCharWidth() * 16 + 24;
    const int room = width() - 24; // the content's margins
    const int columns = std::clamp((room + figureGrid_->horizontalSpacing()) / (minCard + figureGrid_->horizontalSpacing()), 1, 4);
    if (columns == figureColumns_) return;
    figureColumns_ = columns;
    for (const FigureWidgets& w : figures_) figureGrid_->removeWidget(w.card);
    for (int i = 0; i < kFigureCount; ++i) figureGrid_->addWidget(figures_[size_t(i)].card, i / columns, i % columns);
    for (int c = 0; c < 4; ++c) figureGrid_->setColumnStretch(c, c < columns ? 1 : 0);
}

QStringList ModelSummaryView::warnings() const
{
    QStringList out;
    for (int r = 0; r < warnings_->rowCount(); ++r) out << warnings_->item(r)->text();
    return out;
}

QString ModelSummaryView::runnableText() const { return runnable_->text(); }

void ModelSummaryView::fillFigures(const ModelSummary& s)
{
    const QFileInfo file(QString::fromStdString(s.file));
    title_->setText(file.fileName().isEmpty() ? tr("Untitled model") : file.fileName());
    path_->setText(location_.isEmpty() ? QDir::toNativeSeparators(file.filePath()) : location_);
    if (s.workerGaps.empty()) {
        runnable_->setText(tr("Runnable by tapas-worker: yes"));
    } else {
        QStringList parts;
        for (const WorkerGap& gap : s.workerGaps)
            parts << (gap.nodes == 1 ? tr("%1 (1 node, first '%2'): %3")
                                           .arg(QString::fromStdString(gap.opType), QString::fromStdString(gap.firstNode),
                                                QString::fromStdString(gap.why))
                                     : tr("%1 (%2 nodes, first '%3'): %4")
                                           .arg(QString::fromStdString(gap.opType), QString::number(gap.nodes),
                                                QString::fromStdString(gap.firstNode), QString::fromStdString(gap.why)));
        runnable_->setText(tr("Runnable by tapas-worker: no. %1").arg(parts.join(QStringLiteral("; "))));
    }

    // Cards read at a glance: "124.4M", exact figures in the tooltips.
    figure(Figure::Nodes).value->setFullText(groupedCount(s.nodes));
    figure(Figure::Parameters).value->setFullText(s.params < 10000 ? groupedCount(s.params) : shortCount(double(s.params)));
    figure(Figure::Parameters).value->setExtraToolTip(tr("%1 parameters").arg(groupedCount(s.params)));
    figure(Figure::ParameterBytes).value->setFullText(QString::fromStdString(humanBytes(double(s.paramBytes))));
    figure(Figure::ParameterBytes).value->setExtraToolTip(bytesWithExact(s.paramBytes));
    figure(Figure::Flops).value->setFullText(shortCount(s.flops));
    figure(Figure::Flops).value->setExtraToolTip(
        tr("%1 floating-point operations for one forward pass; symbolic dims not bound with "
           "--dim count as 1.").arg(QLocale().toString(s.flops, 'f', 0)));
    figure(Figure::Activations).value->setFullText(QString::fromStdString(humanBytes(s.activationBytes)));
    figure(Figure::Opset).value->setFullText(s.opset > 0 ? QString::number(s.opset) : tr("unknown"));
    const QString producer = s.producer.empty() ? tr("unknown") : QString::fromStdString(s.producer);
    figure(Figure::Producer).value->setFullText(producer);
    const QString dims = s.symbolicDims.empty() ? tr("none") : joined(s.symbolicDims, QStringLiteral(", "));
    figure(Figure::SymbolicDims).value->setFullText(dims);
    figure(Figure::SymbolicDims).value->setExtraToolTip(
        tr("Dims left symbolic. Bind them with --dim name=value, e.g. --dim batch=8."));
}

void ModelSummaryView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange) retranslateUi();
    QWidget::changeEvent(event);
}

void ModelSummaryView::retranslateUi()
{
    placeholder_->setText(tr("No model is open.\n\nOpen an ONNX model with File ▸ Open, "
                             "or drop a .onnx file on this window."));
    noWarnings_->setText(tr("No warnings."));
    figure(Figure::Nodes).caption->setText(tr("Nodes"));
    figure(Figure::Parameters).caption->setText(tr("Parameters"));
    figure(Figure::ParameterBytes).caption->setText(tr("Parameter memory"));
    figure(Figure::Flops).caption->setText(tr("FLOPs per forward pass"));
    figure(Figure::Activations).caption->setText(tr("Activation memory"));
    figure(Figure::Opset).caption->setText(tr("ONNX opset"));
    figure(Figure::Producer).caption->setText(tr("Producer"));
    figure(Figure::SymbolicDims).caption->setText(tr("Symbolic dims"));
    ops_->retranslate();
    inputs_->retranslate();
    outputs_->retranslate();
    if (hasSummary_) fillFigures(summary_);
    updateGroupTitles();
}

void ModelSummaryView::updateGroupTitles()
{
    opsBox_->setTitle(tr("Operators (%1 types)").arg(ops_->rowCount()));
    inputsBox_->setTitle(tr("Inputs (%1)").arg(inputs_->rowCount()));
    outputsBox_->setTitle(tr("Outputs (%1)").arg(outputs_->rowCount()));
    warningsBox_->setTitle(tr("Warnings (%1)").arg(warnings_->rowCount()));
}

} // namespace tapas
