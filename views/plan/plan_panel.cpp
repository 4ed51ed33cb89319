#include "views/plan/plan_panel.h"

#include "core/plan/plan_editor.h"
#include "core/util/human_units.h"
#include "views/plan/override_dialog.h"
#include "views/plan/plan_filter_model.h"
#include "views/plan/plan_model.h"
#include "views/plan/stages_model.h"

#include <algorithm>

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QTableView>
#include <QTreeView>
#include <QVBoxLayout>

namespace tapas {

PlanPanel::PlanPanel(QWidget* parent)
    : QWidget(parent), model_(new PlanModel(this)), filter_(new PlanFilterModel(this)),
      opTypeBox_(new QComboBox(this)), classBox_(new QComboBox(this)), collectiveBox_(new QCheckBox(this)),
      searchEdit_(new QLineEdit(this)), tree_(new QTreeView(this)), summary_(new QLabel(this)),
      stages_(new StagesModel(this)), stagesLabel_(new QLabel(this)), stagesTable_(new QTableView(this)), refusal_(new QLabel(this)), changeButton_(new QPushButton(this))
{
    filter_->setSourceModel(model_);
    opTypeBox_->setObjectName(QStringLiteral("planOpTypeFilter"));
    classBox_->setObjectName(QStringLiteral("planClassFilter"));
    collectiveBox_->setObjectName(QStringLiteral("planCollectiveFilter"));
    searchEdit_->setObjectName(QStringLiteral("planSearch"));
    searchEdit_->setClearButtonEnabled(true);
    tree_->setObjectName(QStringLiteral("planTree"));
    summary_->setObjectName(QStringLiteral("planSummary"));
    stagesLabel_->setObjectName(QStringLiteral("planStagesLabel"));
    stagesLabel_->setWordWrap(true);
    stagesLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    stagesTable_->setObjectName(QStringLiteral("planStages"));
    stagesTable_->setModel(stages_);
    stagesTable_->setSelectionBehavior(QAbstractItemView::SelectRows);
    stagesTable_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    stagesTable_->setAlternatingRowColors(true);
    stagesTable_->verticalHeader()->hide();
    stagesTable_->horizontalHeader()->setStretchLastSection(true);
    stagesLabel_->hide();
    stagesTable_->hide();
    refusal_->setObjectName(QStringLiteral("planRefusal"));
    changeButton_->setObjectName(QStringLiteral("planChangeButton"));

    tree_->setModel(filter_);
    tree_->setSortingEnabled(true);
    tree_->sortByColumn(-1, Qt::AscendingOrder); // model order (chain order) until the user sorts
    tree_->setSelectionBehavior(QAbstractItemView::SelectRows);
    tree_->setSelectionMode(QAbstractItemView::SingleSelection);
    tree_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    tree_->setUniformRowHeights(true);
    tree_->setAlternatingRowColors(true);
    tree_->setContextMenuPolicy(Qt::CustomContextMenu);
    tree_->header()->setStretchLastSection(false);
    tree_->header()->setSectionResizeMode(PlanModel::Sharding, QHeaderView::Interactive);

    refusal_->setWordWrap(true);
    refusal_->setStyleSheet(QStringLiteral("QLabel { color: #a4000f; }"));
    refusal_->hide();
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* filters = new QHBoxLayout;
    filters->addWidget(searchEdit_, 2);
    filters->addWidget(opTypeBox_, 1);
    filters->addWidget(classBox_, 1);
    filters->addWidget(collectiveBox_);
    auto* bottom = new QHBoxLayout;
    bottom->addWidget(summary_, 1);
    bottom->addWidget(changeButton_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(filters);
    layout->addWidget(refusal_);
    layout->addWidget(stagesLabel_);
    layout->addWidget(stagesTable_);
    layout->addWidget(tree_, 1);
    layout->addLayout(bottom);

    connect(searchEdit_, &QLineEdit::textChanged, filter_, &PlanFilterModel::setText);
    connect(opTypeBox_, &QComboBox::currentIndexChanged, this,
            [this] { filter_->setOpType(opTypeBox_->currentData().toString()); });
    connect(classBox_, &QComboBox::currentIndexChanged, this, [this] {
        const QVariant id = classBox_->currentData();
        filter_->setClassId(id.isValid() ? id.toInt() : -1);
    });
    connect(collectiveBox_, &QCheckBox::toggled, filter_, &PlanFilterModel::setCollectivesOnly);
    connect(tree_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] { onCurrentChanged(); });
    connect(tree_, &QTreeView::customContextMenuRequested, this, &PlanPanel::showContextMenu);
    connect(tree_, &QTreeView::doubleClicked, this, [this](const QModelIndex& proxy) {
        if (proxy.column() == PlanModel::Sharding) openOverrideEditor(filter_->mapToSource(proxy));
    });
    connect(changeButton_, &QPushButton::clicked, this, [this] { openOverrideEditor(currentSourceIndex()); });
    retranslateUi();
    updateSummary();
}

void PlanPanel::setGraph(std::shared_ptr<const Graph> graph, std::shared_ptr<const FoldedGraph> folded)
{
    editor_ = nullptr;
    graph_ = graph;
    folded_ = folded;
    model_->setGraph(std::move(graph), std::move(folded));
    refusal_->hide();
    fillFilterBoxes();
    updateSummary();
    updateStages();
}

void PlanPanel::setEditor(const PlanEditor* editor)
{
    editor_ = editor;
    model_->setEditor(editor);
    refusal_->hide();
    updateSummary();
    updateStages();
    // Room for names and layouts; the figures need little.
    QHeaderView* h = tree_->header();
    h->resizeSection(PlanModel::Name, 330);
    h->resizeSection(PlanModel::OpType, 120);
    h->resizeSection(PlanModel::Sharding, 340);
    h->resizeSection(PlanModel::Collectives, 250);
    for (int c : {int(PlanModel::Compute), int(PlanModel::Communication), int(PlanModel::Memory)}) h->resizeSection(c, 105);
}

void PlanPanel::refresh()
{
    model_->refresh();
    updateSummary();
    updateStages();
}

void PlanPanel::fillFilterBoxes()
{
    const QSignalBlocker b1(opTypeBox_), b2(classBox_);
    opTypeBox_->clear();
    opTypeBox_->addItem(tr("All op types"), QString());
    for (const QString& t : model_->opTypes()) opTypeBox_->addItem(t, t);
    classBox_->clear();
    classBox_->addItem(tr("All blocks"));
    for (const auto& [id, name] : model_->classNames())
        if (id >= 0) classBox_->addItem(name, id);
    filter_->setOpType(QString());
    filter_->setClassId(-1);
}

void PlanPanel::updateSummary()
{
    changeButton_->setEnabled(editor_ && currentSourceIndex().isValid() &&
                              currentSourceIndex().data(PlanModel::LevelRole).toInt() >= 2);
    if (!graph_) {
        summary_->setText(tr("No model open."));
        return;
    }
    if (!editor_) {
        summary_->setText(tr("No plan yet: run a search to see each op's sharding and costs."));
        return;
    }
    const CostReport& r = editor_->report();
    const double limit = editor_->model().cluster().memoryBytes;
    const int overrides = int(editor_->overrides().size());
    QString text = tr("Mesh %1 · step %2 ms (compute %3, communication %4) · memory %5 of %6 per device")
                       .arg(QString::fromStdString(editor_->plan().mesh.toString()))
                       .arg(r.total.time() * 1e3, 0, 'f', 2)
                       .arg(r.total.compute * 1e3, 0, 'f', 2)
                       .arg((r.total.tpComm + r.total.dpComm + r.total.ppComm) * 1e3, 0, 'f', 2)
                       .arg(QString::fromStdString(humanBytes(r.total.memory())), QString::fromStdString(humanBytes(limit)));
    if (r.pipelined) text += QStringLiteral(" · ") + tr("bubble %1 ms").arg(r.total.bubble * 1e3, 0, 'f', 2);
    if (!r.fits) text += QStringLiteral(" · ") + tr("does NOT fit");
    if (overrides) text += QStringLiteral(" · ") + tr("%n override(s)", nullptr, overrides);
    if (const std::vector<TablePadding>& padding = editor_->plan().padding; !padding.empty())
        text += QStringLiteral(" · ") + tr("tables padded to split over tp: %1").arg(QString::fromStdString(describeTablePadding(*graph_, padding)));
    summary_->setText(text);
}

// A plan with stages lists them above its ops; without stages the panel stays as it was.
void PlanPanel::updateStages()
{
    const PipelineSchedule* p = editor_ && editor_->plan().pipeline.staged() ? &editor_->plan().pipeline : nullptr;
    stagesLabel_->setVisible(p);
    stagesTable_->setVisible(p);
    if (!p) {
        if (stages_->rowCount() > 0) stages_->clear();
        return;
    }
    const ShardingPlan& plan = editor_->plan();
    stages_->setPlan(*p, plan.mesh, folded_, editor_->model().cluster().memoryBytes);
    QString text = tr("%n pipeline stage(s) on pp %1", nullptr, int(p->stages.size())).arg(plan.mesh.pp);
    if (p->virtualStages > 1) text += QStringLiteral(" (") + tr("%1 interleaved per rank").arg(p->virtualStages) + QLatin1Char(')');
    text += QStringLiteral(" · ") + (p->microBatchSize > 0 ? tr("%n micro-batch(es) of %1", nullptr, p->microBatches).arg(p->microBatchSize)
                                                           : tr("%n micro-batch(es)", nullptr, p->microBatches));
    text += QStringLiteral(" · ") + tr("1F1B bubble %1% of the step").arg(p->bubbleFraction * 100, 0, 'f', 1);
    text += QStringLiteral(" · ") + (p->distributedOptimizer ? tr("distributed optimizer (ZeRO-1) over dp %1").arg(plan.mesh.dp)
                                                             : tr("optimizer state not sharded"));
    // The ops' figures below are the searched micro-batch's; the summary line is the whole step.
    text += QStringLiteral(" · ") + tr("op costs below: one micro-batch");
    stagesLabel_->setText(text);
    stagesTable_->resizeColumnsToContents();
    // All stages in view up to eight rows; the op tree keeps the rest of the dock.
    const int rows = std::min(8, stages_->rowCount());
    stagesTable_->setFixedHeight(stagesTable_->horizontalHeader()->sizeHint().height() +
                                 rows * stagesTable_->verticalHeader()->defaultSectionSize() + 2 * stagesTable_->frameWidth());
}

QModelIndex PlanPanel::currentSourceIndex() const
{
    return filter_->mapToSource(tree_->selectionModel()->currentIndex());
}

void PlanPanel::onCurrentChanged()
{
    updateSummary();
    if (syncing_) return;
    const NodeId n = model_->nodeAt(currentSourceIndex());
    if (n != kNoNode) Q_EMIT nodeActivated(n);
}

void PlanPanel::selectNode(NodeId node)
{
    const QModelIndex proxy = filter_->mapFromSource(model_->indexOfNode(node));
    syncing_ = true;
    if (proxy.isValid()) {
        tree_->selectionModel()->setCurrentIndex(proxy, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        tree_->scrollTo(proxy);
    } else if (node == kNoNode) {
        tree_->selectionModel()->clearSelection();
    }
    syncing_ = false;
}

void PlanPanel::showRefusal(const QString& reason)
{
    refusal_->setText(tr("Refused: %1").arg(reason));
    refusal_->setVisible(!reason.isEmpty());
}

OverrideDialog* PlanPanel::openOverrideEditor(const QModelIndex& sourceIndex)
{
    if (!editor_ || !graph_ || !sourceIndex.isValid()) return nullptr;
    const int level = sourceIndex.data(PlanModel::LevelRole).toInt();
    if (level < 2) return nullptr;
    const NodeId node = sourceIndex.data(PlanModel::NodeRole).toInt();
    const TensorId weight = sourceIndex.data(PlanModel::TensorRole).toInt();
    int weightInput = -1;
    if (weight != kNoTensor) {
        const Node& n = graph_->node(node);
        for (size_t i = 0; i < n.inputs.size(); ++i)
            if (n.inputs[i] == weight) weightInput = int(i);
    }
    auto* dialog = new OverrideDialog(*graph_, folded_.get(), *editor_, node, weightInput, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    // A position row speaks for every instance: offer the class first.
    dialog->setWholeClass(level == 2);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        refusal_->hide();
        if (dialog->editsWeight())
            Q_EMIT weightLayoutRequested(dialog->weight(), dialog->layout(), dialog->wholeClass());
        else
            Q_EMIT strategyRequested(dialog->node(), dialog->strategy(), dialog->wholeClass());
    });
    dialog->open();
    return dialog;
}

void PlanPanel::showContextMenu(const QPoint& pos)
{
    const QModelIndex source = filter_->mapToSource(tree_->indexAt(pos));
    if (!source.isValid() || source.data(PlanModel::LevelRole).toInt() < 2 || !editor_) return;
    QMenu menu(this);
    const bool weight = source.data(PlanModel::TensorRole).toInt() != kNoTensor;
    QAction* change = menu.addAction(weight ? tr("Change Weight Layout…") : tr("Change Sharding…"));
    QAction* chosen = menu.exec(tree_->viewport()->mapToGlobal(pos));
    if (chosen == change) openOverrideEditor(source);
}

void PlanPanel::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange) retranslateUi();
    QWidget::changeEvent(event);
}

void PlanPanel::retranslateUi()
{
    searchEdit_->setPlaceholderText(tr("Search ops and weights…"));
    collectiveBox_->setText(tr("Has collective"));
    collectiveBox_->setToolTip(tr("Show only ops with a collective (all-reduce, all-gather, …) on an input"));
    changeButton_->setText(tr("Change Sharding…"));
    changeButton_->setToolTip(tr("Choose another strategy for the selected op or layout for the selected weight"));
    if (opTypeBox_->count() > 0) opTypeBox_->setItemText(0, tr("All op types"));
    if (classBox_->count() > 0) classBox_->setItemText(0, tr("All blocks"));
    stages_->retranslate();
    updateStages();
    model_->retranslate();
    updateSummary();
}

} // namespace tapas
