#include "app/studio/search_dialog.h"

#include "app/studio/plan_session.h"
#include "core/search/mesh_sweep.h"
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
      ilpLimit_(new QDoubleSpinBox(this)), keepOverrides_(new QCheckBox(this)), run_(new QPushButton(this)),
      cancel_(new QPushButton(this)), buttons_(new QDialogButtonBox(QDialogButtonBox::Close, this)),
      progress_(new QProgressBar(this)), status_(new QLabel(this)), table_(new QTableView(this)),
      resultsModel_(new QStandardItemModel(this)),
      job_(new BackgroundJob(BackgroundJob::OnRestart::Supersede, this))
{
    setObjectName(QStringLiteral("searchDialog"));
    mesh_->setObjectName(QStringLiteral("searchMesh"));
    dtype_->setObjectName(QStringLiteral("searchDtype"));
    for (const char* d : {"fp16", "bf16", "fp32"}) dtype_->addItem(QString::fromLatin1(d), QString::fromLatin1(d));
    ilpLimit_->setObjectName(QStringLiteral("searchIlpLimit"));
    ilpLimit_->setRange(1, 3600);
    ilpLimit_->setValue(60);
    ilpLimit_->setSuffix(QStringLiteral(" s"));
    keepOverrides_->setObjectName(QStringLiteral("searchKeepOverrides"));
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
    static_cast<QLabel*>(form->itemAt(0, QFormLayout::LabelRole)->widget())->setText(tr("&Mesh (dp × tp):"));
    static_cast<QLabel*>(form->itemAt(1, QFormLayout::LabelRole)->widget())->setText(tr("Compute &type:"));
    static_cast<QLabel*>(form->itemAt(0, QFormLayout::LabelRole)->widget())->setBuddy(mesh_);
    static_cast<QLabel*>(form->itemAt(1, QFormLayout::LabelRole)->widget())->setBuddy(dtype_);
    findChild<QGroupBox*>(QStringLiteral("dimsBox"))->setTitle(tr("Symbolic dimensions"));
    findChild<QGroupBox*>(QStringLiteral("searchersBox"))->setTitle(tr("Searchers"));
    ilpLimit_->setToolTip(tr("Time limit of the exact ILP"));
    keepOverrides_->setText(tr("Keep my overrides fixed"));
    keepOverrides_->setToolTip(tr("Re-search with the strategies you chose in the Plan dock pinned"));
    run_->setText(tr("&Run Search"));
    cancel_->setText(tr("Cancel"));
    resultsModel_->setHorizontalHeaderLabels({tr("Searcher"), tr("Mesh"), tr("Step time (ms)"), tr("Memory / device (GB)"),
                                              tr("Fits"), tr("Search time (s)")});
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
    mesh_->clear();
    mesh_->addItem(tr("Let the search pick"), QString());
    Result<ClusterSpec> c = cluster_->cluster();
    if (c)
        for (const DeviceMesh& m : enumerateMeshes(*c, true)) {
            const QString text = QString::fromStdString(m.toString());
            mesh_->addItem(text, text);
        }
    const int i = mesh_->findData(previous);
    mesh_->setCurrentIndex(i >= 0 ? i : 0);
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
    if (const QString m = mesh_->currentData().toString(); !m.isEmpty()) {
        Result<DeviceMesh> mesh = parseMesh(m.toStdString());
        if (!mesh) {
            status_->setText(QString::fromStdString(mesh.error()));
            return;
        }
        meshes = {*mesh};
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
    std::shared_ptr<const Graph> graph = session_->graph(); // keeps the graph alive for the worker
    setRunning(true);
    progress_->setValue(0);
    status_->setText(tr("Searching…"));
    job_->start([graph, request, meshes, chosen](const Progress& progress) mutable {
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
            Result<SearchResult> r = searchBestMesh(*s, request, meshes);
            if (progress.cancelled()) break; // the job reports the cancel
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
        for (int c = 2; c < row.size(); ++c) row[c]->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
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
