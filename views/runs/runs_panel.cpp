#include "views/runs/runs_panel.h"

#include "views/runs/gan_run_monitor.h"
#include "views/runs/launch_form.h"
#include "views/runs/plan_run_monitor.h"
#include "views/runs/run_compare_view.h"
#include "views/runs/run_list_model.h"
#include "views/runs/run_record.h"

#include <QEvent>
#include <QFileDialog>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace tapas {

namespace {

// Redraws at most this often while events stream in: QtCharts replaces are not free, and a
// person cannot read faster than this anyway.
constexpr int kRefreshMs = 250;

} // namespace

RunsPanel::RunsPanel(QWidget* parent)
    : QWidget(parent), form_(new LaunchForm), model_(new RunListModel(this)), list_(new QTableView),
      stop_(new QPushButton), resume_(new QPushButton), refresh_(new QPushButton), follow_(new QPushButton),
      formBox_(new QGroupBox), listBox_(new QGroupBox), stack_(new QStackedWidget), placeholder_(new QLabel),
      plan_(new PlanRunMonitor), gan_(new GanRunMonitor), compare_(new RunCompareView), refreshTimer_(new QTimer(this))
{
    setObjectName(QStringLiteral("runsPanel"));
    list_->setObjectName(QStringLiteral("runList"));
    list_->setModel(model_);
    list_->setSelectionBehavior(QAbstractItemView::SelectRows);
    list_->setSelectionMode(QAbstractItemView::ExtendedSelection); // several runs: overlay
    list_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    list_->verticalHeader()->hide();
    // The run id takes what the short columns leave, elided on the left so that its time of day
    // and suffix stay readable (its date is what the hidden Started column would repeat; the row's
    // tooltip has the directory); kind, state and step are never clipped.
    list_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    list_->horizontalHeader()->setSectionResizeMode(RunListModel::Name, QHeaderView::Stretch);
    list_->setTextElideMode(Qt::ElideLeft);
    list_->setColumnHidden(RunListModel::Created, true);
    list_->setAlternatingRowColors(true);
    list_->setWordWrap(false);
    stop_->setObjectName(QStringLiteral("stopRun"));
    resume_->setObjectName(QStringLiteral("resumeRun"));
    refresh_->setObjectName(QStringLiteral("refreshRuns"));
    follow_->setObjectName(QStringLiteral("followRunDir"));

    // The form and the monitors' charts keep a readable minimum size; scrolling them lets the
    // dock (and so the main window) shrink below it on small screens instead of forcing its size.
    auto scrolled = [](QWidget* content) {
        auto* area = new QScrollArea;
        area->setWidget(content);
        area->setWidgetResizable(true);
        area->setFrameShape(QFrame::NoFrame);
        return area;
    };
    auto* formLayout = new QVBoxLayout(formBox_);
    formLayout->setContentsMargins(4, 4, 4, 4);
    formLayout->addWidget(scrolled(form_), 1);
    // Start Run (and why it refused) stay in view however short the dock: pinned below the
    // fields that scroll, not at their end (moving them takes them out of the form's layout).
    formLayout->addWidget(form_->errorLabel());
    formLayout->addWidget(form_->startButton());

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(stop_);
    buttons->addWidget(resume_);
    buttons->addStretch(1);
    buttons->addWidget(refresh_);
    buttons->addWidget(follow_);
    auto* listLayout = new QVBoxLayout(listBox_);
    listLayout->setContentsMargins(4, 4, 4, 4);
    listLayout->addWidget(list_, 1);
    listLayout->addLayout(buttons);

    auto* left = new QSplitter(Qt::Vertical);
    left->addWidget(formBox_);
    left->addWidget(listBox_);
    left->setStretchFactor(0, 0);
    left->setStretchFactor(1, 1);

    placeholder_->setAlignment(Qt::AlignCenter);
    placeholder_->setWordWrap(true);
    stack_->addWidget(placeholder_);
    stack_->addWidget(plan_);
    stack_->addWidget(gan_);
    stack_->addWidget(compare_);

    QScrollArea* stackScroll = scrolled(stack_);
    stackScroll->setObjectName(QStringLiteral("runMonitorScroll"));

    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(left);
    split->addWidget(stackScroll);
    split->setStretchFactor(0, 0);
    split->setStretchFactor(1, 1);
    split->setSizes({340, 1000});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);

    refreshTimer_->setSingleShot(true);
    refreshTimer_->setInterval(kRefreshMs);
    connect(refreshTimer_, &QTimer::timeout, this, &RunsPanel::refreshNow);
    connect(list_->selectionModel(), &QItemSelectionModel::selectionChanged, this, &RunsPanel::onSelectionChanged);
    connect(form_, &LaunchForm::launchRequested, this, &RunsPanel::launchRequested);
    connect(stop_, &QPushButton::clicked, this, [this] {
        if (const QString id = currentRunId(); !id.isEmpty()) Q_EMIT stopRequested(id);
    });
    connect(resume_, &QPushButton::clicked, this, [this] {
        if (const QString id = currentRunId(); !id.isEmpty()) Q_EMIT resumeRequested(id);
    });
    connect(refresh_, &QPushButton::clicked, this, &RunsPanel::refreshRequested);
    connect(follow_, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a Run Directory"));
        if (!dir.isEmpty()) Q_EMIT followDirectoryRequested(dir);
    });
    retranslateUi();
    updateButtons();
}

RunsPanel::~RunsPanel()
{
    // The monitors point into records_; detach them before the records go.
    plan_->setRecord(nullptr);
    gan_->setRecord(nullptr);
    compare_->setRecords({});
}

void RunsPanel::setRuns(const std::vector<protocol::RunSummary>& runs)
{
    const QStringList selected = selectedRunIds();
    std::vector<protocol::RunSummary> merged = runs;
    // A live run's record knows more than its directory did a moment ago.
    for (protocol::RunSummary& r : merged) {
        const auto it = records_.find(QString::fromStdString(r.spec.id));
        if (it == records_.end() || it->second->eventCount() == 0) continue;
        r.state = it->second->state();
        r.lastStep = std::max(r.lastStep, it->second->lastStep());
    }
    {
        QSignalBlocker block(list_->selectionModel());
        model_->setRuns(merged);
    }
    selectRuns(selected);
}

void RunsPanel::addRun(const protocol::RunSummary& run)
{
    model_->upsert(run);
    ensureRecord(run);
}

RunRecord* RunsPanel::ensureRecord(const protocol::RunSummary& run)
{
    const QString id = QString::fromStdString(run.spec.id);
    auto& slot = records_[id];
    if (!slot) slot = std::make_unique<RunRecord>(run.spec, QString::fromStdString(run.dir));
    return slot.get();
}

void RunsPanel::setHistory(const protocol::RunSummary& run, const std::vector<protocol::MetricsEvent>& events)
{
    const QString id = QString::fromStdString(run.spec.id);
    if (model_->rowOf(id) < 0) model_->upsert(run);
    auto fresh = std::make_unique<RunRecord>(run.spec, QString::fromStdString(run.dir));
    fresh->apply(events);
    model_->updateProgress(id, fresh->state(), fresh->lastStep());
    // A monitor showing the old record must not keep a dangling pointer.
    const bool shown = selectedRunIds().contains(id);
    if (shown) {
        plan_->setRecord(nullptr);
        gan_->setRecord(nullptr);
        compare_->setRecords({});
    }
    records_[id] = std::move(fresh);
    if (shown) showSelection();
    updateButtons();
}

void RunsPanel::appendEvent(const QString& id, const protocol::MetricsEvent& event)
{
    auto it = records_.find(id);
    if (it == records_.end()) {
        const protocol::RunSummary* known = model_->run(id);
        if (!known) return; // unknown run: the controller lists it first
        ensureRecord(*known);
        it = records_.find(id);
    }
    RunRecord& r = *it->second;
    const int changed = r.apply(event);
    if (changed & (RunRecord::State | RunRecord::Series)) model_->updateProgress(id, r.state(), r.lastStep());
    if (changed & RunRecord::State) updateButtons();
    if (selectedRunIds().contains(id)) scheduleRefresh();
}

bool RunsPanel::hasRecord(const QString& id) const
{
    return records_.count(id) > 0;
}

const RunRecord* RunsPanel::record(const QString& id) const
{
    const auto it = records_.find(id);
    return it == records_.end() ? nullptr : it->second.get();
}

void RunsPanel::setControllable(const QString& id, bool controllable)
{
    if (controllable)
        controllable_.insert(id);
    else
        controllable_.remove(id);
    updateButtons();
}

void RunsPanel::selectRun(const QString& id)
{
    selectRuns({id});
}

void RunsPanel::selectRuns(const QStringList& ids)
{
    QItemSelection sel;
    for (const QString& id : ids) {
        const int row = model_->rowOf(id);
        if (row >= 0) sel.select(model_->index(row, 0), model_->index(row, RunListModel::ColumnCount - 1));
    }
    list_->selectionModel()->select(sel, QItemSelectionModel::ClearAndSelect);
    if (!ids.isEmpty() && model_->rowOf(ids.first()) >= 0)
        list_->selectionModel()->setCurrentIndex(model_->index(model_->rowOf(ids.first()), 0), QItemSelectionModel::NoUpdate);
}

QStringList RunsPanel::selectedRunIds() const
{
    QStringList ids;
    for (const QModelIndex& i : list_->selectionModel()->selectedRows()) ids << model_->idAt(i.row());
    return ids;
}

QString RunsPanel::currentRunId() const
{
    const QStringList ids = selectedRunIds();
    return ids.size() == 1 ? ids.first() : QString();
}

QWidget* RunsPanel::currentMonitor() const
{
    return stack_->currentWidget();
}

void RunsPanel::onSelectionChanged()
{
    Q_EMIT runsSelected(selectedRunIds()); // the controller loads histories synchronously
    showSelection();
    updateButtons();
}

void RunsPanel::showSelection()
{
    std::vector<const RunRecord*> records;
    for (const QString& id : selectedRunIds())
        if (const RunRecord* r = record(id)) records.push_back(r);
    if (records.size() > 1) {
        plan_->setRecord(nullptr);
        gan_->setRecord(nullptr);
        compare_->setRecords(records);
        stack_->setCurrentWidget(compare_);
        return;
    }
    compare_->setRecords({});
    if (records.empty()) {
        plan_->setRecord(nullptr);
        gan_->setRecord(nullptr);
        stack_->setCurrentWidget(placeholder_);
        return;
    }
    const RunRecord* r = records.front();
    RunMonitor* show = r->isGan() ? static_cast<RunMonitor*>(gan_) : plan_;
    RunMonitor* other = r->isGan() ? static_cast<RunMonitor*>(plan_) : gan_;
    other->setRecord(nullptr);
    if (show->record() != r) show->setRecord(r);
    stack_->setCurrentWidget(show);
}

void RunsPanel::scheduleRefresh()
{
    if (!refreshTimer_->isActive()) refreshTimer_->start();
}

void RunsPanel::refreshNow()
{
    refreshTimer_->stop();
    QWidget* w = stack_->currentWidget();
    if (w == plan_) plan_->refresh();
    else if (w == gan_) gan_->refresh();
    else if (w == compare_) compare_->refresh();
}

void RunsPanel::updateButtons()
{
    const QString id = currentRunId();
    const RunRecord* r = record(id);
    const protocol::RunSummary* s = model_->run(id);
    const std::string state = r && r->eventCount() > 0 ? r->state() : s ? s->state : std::string();
    const bool terminal = protocol::isTerminalState(state);
    stop_->setEnabled(!id.isEmpty() && controllable_.contains(id) && !terminal);
    // A stopped, failed or hung run continues from its last checkpoint; a finished one is done
    // and a numerics mismatch will not go away by running again.
    resume_->setEnabled(!id.isEmpty() && !controllable_.contains(id) &&
                        (state == "stopped" || state == "failed" || state == "hung"));
}

void RunsPanel::retranslateUi()
{
    formBox_->setTitle(tr("New Run"));
    listBox_->setTitle(tr("Runs"));
    stop_->setText(tr("Stop"));
    stop_->setToolTip(tr("Stop the selected run after its current step"));
    resume_->setText(tr("Resume"));
    resume_->setToolTip(tr("Continue the selected run from its last checkpoint"));
    refresh_->setText(tr("Refresh"));
    refresh_->setToolTip(tr("Read the runs folder again"));
    follow_->setText(tr("Open Run Folder…"));
    follow_->setToolTip(tr("Open a run directory (e.g. one started with `tapas run`) and follow it live"));
    placeholder_->setText(tr("Select a run to see its charts, or several runs to compare them.\n"
                             "Start a new run with the form on the left."));
    model_->retranslate();
}

void RunsPanel::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange) retranslateUi();
    QWidget::changeEvent(event);
}

} // namespace tapas
