#include "app/studio/search_dialog.h"

#include "app/studio/plan_session.h"
#include "core/search/mesh_sweep.h"
#include "core/search/pipeline_sweep.h"
#include "views/background_job.h"
#include "views/cluster_editor.h"

#include <QCheckBox>
#include <QCloseEvent>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QEvent>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

#include <set>

namespace tapas {

namespace {

// A sensible first value for a dim the model leaves open.
int64_t defaultDim(const std::string& name)
{
    if (name.find("batch") != std::string::npos) return 8;
    if (name.find("seq") != std::string::npos || name.find("len") != std::string::npos) return 1024;
    return 1;
}

std::set<std::string> unboundSymbols(const Graph* g)
{
    std::set<std::string> out;
    if (!g) return out;
    for (const Tensor& t : g->tensors)
        for (const Dim& d : t.shape.dims)
            if (d.isSymbolic()) out.insert(d.symbol);
    return out;
}

const char* const kDefaultSearchers[] = {"tapas", "megatron", "dp"};

} // namespace

SearchDialog::SearchDialog(PlanSession* session, QWidget* parent)
    : QDialog(parent), session_(session), cluster_(new ClusterEditor(this)), mesh_(new QComboBox(this)),
      dtype_(new QComboBox(this)), dimsForm_(new QFormLayout), dimsNote_(new QLabel(this)),
      ilpLimit_(new QDoubleSpinBox(this)), keepOverrides_(new QCheckBox(this)), stages_(new QComboBox(this)),
      pp_(new QSpinBox(this)), microBatch_(new QSpinBox(this)), recompute_(new QComboBox(this)),
      virtualStages_(new QSpinBox(this)), zero1_(new QCheckBox(this)), run_(new QPushButton(this)),
      cancel_(new QPushButton(this)), buttons_(new QDialogButtonBox(QDialogButtonBox::Close, this)),
      progress_(new QProgressBar(this)), status_(new QLabel(this)), table_(new QTableView(this)),
      resultsModel_(new QStandardItemModel(this)),
      job_(new BackgroundJob(BackgroundJob::OnRestart::Supersede, this))
{
    setObjectName(QStringLiteral("searchDialog"));
    mesh_->setObjectName(QStringLiteral("searchMesh"));
    dtype_->setObjectName(QStringLiteral("searchDtype"));
    dtype_->addItem(QString(), QString()); // the devices' own: fp32 on CPUs (the worker trains in fp32), fp16 on GPUs
    for (const char* d : {"fp16", "bf16", "fp32"}) dtype_->addItem(QString::fromLatin1(d), QString::fromLatin1(d));
    ilpLimit_->setObjectName(QStringLiteral("searchIlpLimit"));
    ilpLimit_->setRange(1, 3600);
    ilpLimit_->setValue(60);
    ilpLimit_->setSuffix(QStringLiteral(" s"));
    keepOverrides_->setObjectName(QStringLiteral("searchKeepOverrides"));
    // The pipeline, with `tapas search`'s defaults: stages only when nothing fits without them,
    // every micro-batch size, interleaving 1, 2, 4, the least recomputation that fits per rank,
    // optimizer state sharded over dp.
    stages_->setObjectName(QStringLiteral("searchStages"));
    for (int m = 0; m < 3; ++m) stages_->addItem(QString(), m);
    pp_->setObjectName(QStringLiteral("searchPipelineStages"));
    pp_->setRange(2, 4096);
    microBatch_->setObjectName(QStringLiteral("searchMicroBatch"));
    microBatch_->setRange(0, 1 << 20);
    virtualStages_->setObjectName(QStringLiteral("searchVirtualStages"));
    virtualStages_->setRange(0, 64);
    recompute_->setObjectName(QStringLiteral("searchRecompute"));
    recompute_->addItem(QString(), QString());
    for (Recompute r : {Recompute::None, Recompute::Selective, Recompute::Full})
        recompute_->addItem(QString::fromLatin1(recomputeName(r)), QString::fromLatin1(recomputeName(r)));
    zero1_->setObjectName(QStringLiteral("searchDistributedOptimizer"));
    zero1_->setChecked(true);
    run_->setObjectName(QStringLiteral("searchRun"));
    run_->setDefault(true);
    cancel_->setObjectName(QStringLiteral("searchCancel"));
    progress_->setObjectName(QStringLiteral("searchProgress"));
    progress_->setRange(0, 1000);
    status_->setObjectName(QStringLiteral("searchStatus"));
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    table_->setObjectName(QStringLiteral("searchResults"));
    table_->setModel(resultsModel_);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setStretchLastSection(true);
    dimsNote_->setWordWrap(true);

    // Left: the cluster. Right: mesh, dims, searchers. Below: run, progress, results.
    auto* clusterBox = new QGroupBox(this);
    clusterBox->setObjectName(QStringLiteral("clusterBox"));
    (new QVBoxLayout(clusterBox))->addWidget(cluster_);
    auto* planBox = new QGroupBox(this);
    planBox->setObjectName(QStringLiteral("planBox"));
    auto* planForm = new QFormLayout(planBox);
    planForm->addRow(new QLabel(this), mesh_);
    planForm->addRow(new QLabel(this), dtype_);
    auto* pipelineBox = new QGroupBox(this);
    pipelineBox->setObjectName(QStringLiteral("pipelineBox"));
    auto* pipelineForm = new QFormLayout(pipelineBox);
    auto* stagesRow = new QHBoxLayout;
    stagesRow->addWidget(stages_, 1);
    stagesRow->addWidget(pp_);
    pipelineForm->addRow(new QLabel(this), stagesRow);
    pipelineForm->addRow(new QLabel(this), microBatch_);
    pipelineForm->addRow(new QLabel(this), recompute_);
    pipelineForm->addRow(new QLabel(this), virtualStages_);
    pipelineForm->addRow(zero1_);
    auto* dimsBox = new QGroupBox(this);
    dimsBox->setObjectName(QStringLiteral("dimsBox"));
    auto* dimsLayout = new QVBoxLayout(dimsBox);
    dimsLayout->addLayout(dimsForm_);
    dimsLayout->addWidget(dimsNote_);
    auto* searchersBox = new QGroupBox(this);
    searchersBox->setObjectName(QStringLiteral("searchersBox"));
    auto* searchersLayout = new QVBoxLayout(searchersBox);
    for (const auto& s : searchers()) {
        const QString name = QString::fromStdString(s->name());
        auto* box = new QCheckBox(name, this);
        box->setObjectName(QStringLiteral("searcher_") + name);
        box->setToolTip(QString::fromStdString(s->description()));
        for (const char* d : kDefaultSearchers) box->setChecked(box->isChecked() || name == QLatin1String(d));
        searcherBoxes_[name] = box;
        if (name == QLatin1String("ilp")) {
            auto* row = new QHBoxLayout;
            row->addWidget(box);
            row->addWidget(ilpLimit_);
            row->addStretch(1);
            searchersLayout->addLayout(row);
            ilpLimit_->setEnabled(false);
            connect(box, &QCheckBox::toggled, ilpLimit_, &QWidget::setEnabled);
        } else {
            searchersLayout->addWidget(box);
        }
    }
    searchersLayout->addWidget(keepOverrides_);
    auto* right = new QVBoxLayout;
    right->addWidget(planBox);
    right->addWidget(pipelineBox);
    right->addWidget(dimsBox);
    right->addWidget(searchersBox);
    right->addStretch(1);
    auto* top = new QHBoxLayout;
    top->addWidget(clusterBox, 3);
    top->addLayout(right, 2);
    auto* runRow = new QHBoxLayout;
    runRow->addWidget(run_);
    runRow->addWidget(cancel_);
    runRow->addWidget(progress_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addLayout(runRow);
    layout->addWidget(status_);
    layout->addWidget(table_, 1);
    layout->addWidget(buttons_);

    connect(cluster_, &ClusterEditor::clusterChanged, this, &SearchDialog::refreshMeshes);
    connect(stages_, &QComboBox::currentIndexChanged, this, [this] {
        refreshMeshes();
        updatePipelineWidgets();
    });
    connect(pp_, &QSpinBox::valueChanged, this, &SearchDialog::refreshMeshes);
    connect(mesh_, &QComboBox::currentIndexChanged, this, &SearchDialog::updatePipelineWidgets);
    connect(run_, &QPushButton::clicked, this, &SearchDialog::run);
    connect(cancel_, &QPushButton::clicked, this, &SearchDialog::cancel);
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(job_, &BackgroundJob::finished, this, &SearchDialog::onFinished);
    connect(job_, &BackgroundJob::progressChanged, this, [this](int permille, const QString& stage) {
        if (permille >= 1000) return; // the results follow at once
        progress_->setValue(permille);
        status_->setText(tr("Searching: %1…").arg(stage));
    });
    connect(job_, &BackgroundJob::cancelled, this, [this] {
        setRunning(false);
        status_->setText(tr("Search cancelled; the previous plans are kept."));
        Q_EMIT searchFinished(false);
    });
    connect(job_, &BackgroundJob::failed, this, [this](const QString&, const QString& error) {
        setRunning(false);
        status_->setText(tr("The search stopped: %1").arg(error));
        Q_EMIT searchFinished(false);
    });
    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this, &SearchDialog::onRowChosen);
    connect(session_, &PlanSession::resultsChanged, this, &SearchDialog::fillResults);

    retranslateUi();
    cluster_->selectPreset(QStringLiteral("a100x8"));
    refreshMeshes();
    setModelDims({});
    fillResults();
    setRunning(false);
    updatePipelineWidgets();
    resize(960, 720);
}

// The job, a child, cancels and waits for its worker, which holds only copies and shared state.
SearchDialog::~SearchDialog() = default;

void SearchDialog::retranslateUi()
{
    setWindowTitle(tr("Search Sharding Plans"));
    findChild<QGroupBox*>(QStringLiteral("clusterBox"))->setTitle(tr("Cluster"));
    auto* planBox = findChild<QGroupBox*>(QStringLiteral("planBox"));
    planBox->setTitle(tr("Plan"));
    auto* form = static_cast<QFormLayout*>(planBox->layout());
    static_cast<QLabel*>(form->itemAt(0, QFormLayout::LabelRole)->widget())->setText(tr("&Mesh:"));
    mesh_->setToolTip(tr("dp × tp, or dp × pp × tp with a fixed number of pipeline stages"));
    static_cast<QLabel*>(form->itemAt(1, QFormLayout::LabelRole)->widget())->setText(tr("Compute &type:"));
    dtype_->setItemText(0, tr("The devices' own (fp32 on CPUs, fp16 on GPUs)"));
    dtype_->setToolTip(tr("The dtype activations, gradients and messages are priced in"));
    static_cast<QLabel*>(form->itemAt(0, QFormLayout::LabelRole)->widget())->setBuddy(mesh_);
    static_cast<QLabel*>(form->itemAt(1, QFormLayout::LabelRole)->widget())->setBuddy(dtype_);
    auto* pipelineBox = findChild<QGroupBox*>(QStringLiteral("pipelineBox"));
    pipelineBox->setTitle(tr("Pipeline"));
    auto* pform = static_cast<QFormLayout*>(pipelineBox->layout());
    const std::pair<QString, QWidget*> labels[] = {{tr("&Stages:"), stages_},
                                                   {tr("Micro-&batch size:"), microBatch_},
                                                   {tr("&Recomputation:"), recompute_},
                                                   {tr("&Virtual stages per rank:"), virtualStages_}};
    for (int i = 0; i < 4; ++i) {
        auto* label = static_cast<QLabel*>(pform->itemAt(i, QFormLayout::LabelRole)->widget());
        label->setText(labels[i].first);
        label->setBuddy(labels[i].second);
    }
    stages_->setItemText(0, tr("Only when nothing fits without them"));
    stages_->setItemText(1, tr("Let the search pick"));
    stages_->setItemText(2, tr("Fixed number (pp):"));
    stages_->setToolTip(tr("Pipeline stages: contiguous ranges of the folded block chain, run under 1F1B over micro-batches"));
    pp_->setToolTip(tr("Pipeline-parallel degree: the number of pipeline ranks"));
    microBatch_->setSpecialValueText(tr("Let the search pick"));
    microBatch_->setToolTip(tr("Samples per micro-batch"));
    virtualStages_->setSpecialValueText(tr("Try 1, 2 and 4"));
    virtualStages_->setToolTip(tr("Stages per pipeline rank: interleaved 1F1B when more than 1"));
    recompute_->setItemText(0, tr("Least that fits, per rank"));
    recompute_->setToolTip(tr("Activation recomputation: none, selective (the attention core) or full (each block's forward)"));
    zero1_->setText(tr("Distributed optimizer (ZeRO-1) when dp > 1"));
    zero1_->setToolTip(tr("Shard the fp32 master weights and Adam state over the data-parallel group"));
    findChild<QGroupBox*>(QStringLiteral("dimsBox"))->setTitle(tr("Symbolic dimensions"));
    findChild<QGroupBox*>(QStringLiteral("searchersBox"))->setTitle(tr("Searchers"));
    ilpLimit_->setToolTip(tr("Time limit of the exact ILP"));
    keepOverrides_->setText(tr("Keep my overrides fixed"));
    keepOverrides_->setToolTip(tr("Re-search with the strategies you chose in the Plan dock pinned"));
    run_->setText(tr("&Run Search"));
    cancel_->setText(tr("Cancel"));
    resultsModel_->setHorizontalHeaderLabels({tr("Searcher"), tr("Mesh"), tr("Step time (ms)"), tr("Memory / device (GB)"),
                                              tr("Fits"), tr("Search time (s)"), tr("Pipeline")});
    if (mesh_->count() > 0) mesh_->setItemText(0, tr("Let the search pick"));
    dimsNote_->setText(dimBoxes_.empty() ? tr("The model has no symbolic dimensions.")
                                         : tr("Changing a dimension imports the model again before the search."));
}

void SearchDialog::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange) retranslateUi();
    QDialog::changeEvent(event);
}

void SearchDialog::closeEvent(QCloseEvent* event)
{
    cancel(); // closing while a search runs means "stop"
    QDialog::closeEvent(event);
}

QCheckBox* SearchDialog::searcherBox(const QString& name) const
{
    auto it = searcherBoxes_.find(name);
    return it == searcherBoxes_.end() ? nullptr : it->second;
}

bool SearchDialog::isRunning() const
{
    return job_->isRunning();
}

void SearchDialog::refreshMeshes()
{
    const QString previous = mesh_->currentData().toString();
    const QSignalBlocker block(mesh_);
    mesh_->clear();
    mesh_->addItem(tr("Let the search pick"), QString());
    Result<ClusterSpec> c = cluster_->cluster();
    std::vector<DeviceMesh> meshes;
    // A fixed pp lists the meshes dp x pp x tp with that many stages (`tapas search --mesh 2x2x4`).
    if (c && StagesMode(stages_->currentData().toInt()) == StagesMode::Fixed) {
        const int n = c->deviceCount(), pp = pp_->value();
        if (n % pp == 0)
            for (int tp : divisorsOf(n / pp)) meshes.push_back({n / pp / tp, tp, pp});
    } else if (c) {
        meshes = enumerateMeshes(*c, true);
    }
    for (const DeviceMesh& m : meshes) {
        const QString text = QString::fromStdString(m.toString());
        mesh_->addItem(text, text);
    }
    const int i = mesh_->findData(previous);
    mesh_->setCurrentIndex(i >= 0 ? i : 0);
    updatePipelineWidgets();
}

void SearchDialog::setModelDims(const DimBindings& bound)
{
    boundDims_ = bound;
    rebuildDims();
}

void SearchDialog::rebuildDims()
{
    DimBindings shown = boundDims_;
    for (const std::string& s : unboundSymbols(session_->graph().get())) shown.emplace(s, defaultDim(s));
    while (dimsForm_->rowCount() > 0) dimsForm_->removeRow(0);
    dimBoxes_.clear();
    for (const auto& [name, value] : shown) {
        auto* box = new QSpinBox(this);
        box->setObjectName(QStringLiteral("dim_") + QString::fromStdString(name));
        box->setRange(1, 1 << 30);
        box->setValue(int(value));
        dimsForm_->addRow(QString::fromStdString(name) + QLatin1Char(':'), box);
        dimBoxes_[name] = box;
    }
    dimsNote_->setText(dimBoxes_.empty() ? tr("The model has no symbolic dimensions.")
                                         : tr("Changing a dimension imports the model again before the search."));
}

DimBindings SearchDialog::dims() const
{
    DimBindings d;
    for (const auto& [name, box] : dimBoxes_) d[name] = box->value();
    return d;
}

bool SearchDialog::dimsNeedReimport() const
{
    return !dimBoxes_.empty() && dims() != boundDims_;
}

void SearchDialog::setStagesMode(StagesMode mode)
{
    stages_->setCurrentIndex(stages_->findData(int(mode)));
}

// Stages left to the search take the mesh from the sweep, a fixed pp offers its dp x pp x tp
// meshes; the sweep's options matter only where stages may be planned (a fixed dp x tp mesh
// never falls back to stages, as in `tapas search --mesh`).
void SearchDialog::updatePipelineWidgets()
{
    const auto mode = StagesMode(stages_->currentData().toInt());
    const bool meshFixed = !mesh_->currentData().toString().isEmpty();
    pp_->setEnabled(mode == StagesMode::Fixed);
    const bool options = mode != StagesMode::WhenNothingFits || !meshFixed;
    for (QWidget* w : std::initializer_list<QWidget*>{microBatch_, recompute_, virtualStages_, zero1_}) w->setEnabled(options);
    mesh_->setEnabled(mode != StagesMode::SearchPicks);
}

PipelineOptions SearchDialog::pipelineOptions() const
{
    PipelineOptions o;
    if (StagesMode(stages_->currentData().toInt()) == StagesMode::Fixed) o.pp = {pp_->value()};
    if (microBatch_->value() > 0) o.microBatchSizes = {microBatch_->value()};
    if (virtualStages_->value() > 0) o.virtualStages = {virtualStages_->value()};
    Recompute r;
    if (parseRecompute(recompute_->currentData().toString().toStdString(), &r)) o.recompute = r;
    if (!zero1_->isChecked()) o.distributedOptimizer = false;
    return o;
}

void SearchDialog::setRunning(bool running)
{
    run_->setEnabled(!running);
    cancel_->setEnabled(running);
    progress_->setVisible(running);
    cluster_->setEnabled(!running);
}

void SearchDialog::run()
{
    if (isRunning()) return;
    if (!session_->graph()) {
        status_->setText(tr("Open a model first."));
        return;
    }
    Result<ClusterSpec> cluster = cluster_->cluster();
    if (!cluster) {
        status_->setText(tr("The cluster is not valid: %1").arg(QString::fromStdString(cluster.error())));
        return;
    }
    std::vector<const Searcher*> chosen;
    for (const auto& s : searchers())
        if (QCheckBox* box = searcherBox(QString::fromStdString(s->name())); box && box->isChecked()) chosen.push_back(s.get());
    if (chosen.empty()) {
        status_->setText(tr("Choose at least one searcher."));
        return;
    }
    if (dimsNeedReimport()) {
        status_->setText(tr("Importing the model again with the new dimensions…"));
        Q_EMIT reimportRequested(dims());
        return;
    }
    std::vector<DeviceMesh> meshes = enumerateMeshes(*cluster, true);
    const auto stagesMode = StagesMode(stages_->currentData().toInt());
    const bool meshFixed = stagesMode != StagesMode::SearchPicks && !mesh_->currentData().toString().isEmpty();
    PipelineOptions stages = pipelineOptions();
    if (const QString m = mesh_->currentData().toString(); meshFixed) {
        Result<DeviceMesh> mesh = parseMesh(m.toStdString());
        if (!mesh) {
            status_->setText(QString::fromStdString(mesh.error()));
            return;
        }
        meshes = {*mesh};
        if (mesh->pp > 1) { // the sweep keeps this tp and pp; dp follows from the devices
            stages.tp = {mesh->tp};
            stages.tpAcrossNodes = true;
        }
    }
    if (meshes.empty()) {
        status_->setText(tr("The cluster has no valid device mesh."));
        return;
    }

    runCluster_ = *cluster;
    runOptions_ = CostOptions{};
    runOptions_.dtype = dtype_->currentData().toString().toStdString();
    SearchRequest request;
    request.cluster = *cluster;
    request.cost = runOptions_;
    request.ilpTimeLimit = ilpLimit_->value();
    if (keepOverrides_->isChecked() && session_->editor()) request.fixed = session_->editor()->overrides();
    if (stagesMode != StagesMode::WhenNothingFits) request.pipeline = stages;
    std::shared_ptr<const Graph> graph = session_->graph(); // keeps the graph alive for the worker
    setRunning(true);
    progress_->setValue(0);
    status_->setText(tr("Searching…"));
    job_->start([graph, request, meshes, chosen, stages, meshFixed](const Progress& progress) mutable {
        QElapsedTimer clock;
        clock.start();
        SearchOutcome out;
        request.graph = graph.get();
        request.progress.cancel = progress.cancel;
        for (size_t i = 0; i < chosen.size(); ++i) {
            const Searcher* s = chosen[i];
            const size_t n = chosen.size();
            // One bar across the searchers, each labelled by name.
            request.progress.report = [&progress, i, n, s](double f, std::string_view stage) {
                progress((double(i) + f) / double(n), s->name() + ": " + std::string(stage));
            };
            double unstaged = 0;
            Result<SearchResult> r = searchWithStages(*s, request, meshes, stages, !meshFixed, &unstaged);
            if (progress.cancelled()) break; // the job reports the cancel
            if (r && unstaged > 0)
                out.notes.push_back(QString::fromStdString(s->name()) + QStringLiteral(": ") +
                                    SearchDialog::tr("no plan without pipeline stages fits (the fastest needs %1 GB per device); "
                                                     "planned with stages")
                                        .arg(unstaged * 1e-9, 0, 'f', 2));
            if (r) out.results.push_back(std::move(r).value());
            else out.errors.push_back(QString::fromStdString(s->name() + ": " + r.error()));
        }
        out.seconds = double(clock.nsecsElapsed()) * 1e-9;
        return out;
    }, tr("Searching…"));
}

void SearchDialog::cancel()
{
    if (!isRunning()) return;
    job_->cancel();
    status_->setText(tr("Cancelling…"));
}

void SearchDialog::onFinished()
{
    setRunning(false);
    SearchOutcome out = job_->takeResult<SearchOutcome>();
    QStringList lines;
    for (const QString& e : out.errors) lines << e;
    if (out.results.empty()) {
        lines.prepend(tr("No searcher found a plan:"));
        status_->setText(lines.join(QLatin1Char('\n')));
        Q_EMIT searchFinished(false);
        return;
    }
    const DeviceMesh mesh = out.results.front().best.plan.mesh;
    const int found = int(out.results.size());
    session_->setResults(runCluster_, mesh, runOptions_, std::move(out.results));
    lines.prepend(tr("%n plan(s) found in %1 s.", nullptr, found).arg(out.seconds, 0, 'f', 2));
    for (const QString& n : out.notes) lines << n;
    for (const SearchResult& r : session_->results())
        for (const std::string& w : r.warnings) lines << QString::fromStdString(r.searcher + ": " + w);
    status_->setText(lines.join(QLatin1Char('\n')));
    Q_EMIT searchFinished(true);
}

void SearchDialog::fillResults()
{
    const QSignalBlocker block(table_->selectionModel());
    resultsModel_->removeRows(0, resultsModel_->rowCount());
    for (const SearchResult& r : session_->results()) {
        const CostTerms& t = r.best.report.total;
        QList<QStandardItem*> row;
        row << new QStandardItem(QString::fromStdString(r.searcher));
        row << new QStandardItem(QString::fromStdString(r.best.plan.mesh.toString()));
        row << new QStandardItem(QString::number(t.time() * 1e3, 'f', 3));
        row << new QStandardItem(QString::number(t.memory() * 1e-9, 'f', 2));
        row << new QStandardItem(r.feasible ? tr("yes") : tr("no"));
        row << new QStandardItem(QString::number(r.searchSeconds, 'f', 3));
        const PipelineSchedule& p = r.best.plan.pipeline;
        row << new QStandardItem(p.staged() ? tr("pp %1, %n micro-batch(es), bubble %2%", nullptr, p.microBatches)
                                                  .arg(r.best.plan.mesh.pp)
                                                  .arg(p.bubbleFraction * 100, 0, 'f', 1)
                                            : tr("none"));
        for (int c = 2; c < 6; ++c) row[c]->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        if (!r.feasible) row[4]->setForeground(QColor(0xb0, 0x00, 0x20));
        resultsModel_->appendRow(row);
    }
    if (session_->currentResult() >= 0) table_->selectRow(session_->currentResult());
    table_->resizeColumnsToContents();
}

void SearchDialog::onRowChosen()
{
    const QModelIndexList rows = table_->selectionModel()->selectedRows();
    if (rows.isEmpty()) return;
    const int row = rows.front().row();
    // Queued: selecting a result refills this table, which must not happen inside its own
    // selection signal.
    if (row != session_->currentResult())
        QMetaObject::invokeMethod(this, [this, row] { session_->selectResult(row); }, Qt::QueuedConnection);
}

} // namespace tapas

// The moc output lives in this object, so the window links it only when it uses this class.
#include "moc_search_dialog.cpp"
