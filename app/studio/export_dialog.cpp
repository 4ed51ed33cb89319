#include "app/studio/export_dialog.h"

#include "app/studio/plan_session.h"
#include "core/plan/plan_exporter.h"

#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QDir>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QVBoxLayout>

#include <map>
#include <string>

namespace tapas {

namespace {

// The exporters describe themselves in English (core has no Qt); these are the same sentences
// for lupdate, so the list reads in the user's language.
[[maybe_unused]] const char* const kFormatDescriptions[] = {
    QT_TRANSLATE_NOOP("tapas::ExportFormat", "Tapas plan file (.tapas.json)"),
    QT_TRANSLATE_NOOP("tapas::ExportFormat", "Open MPI hostfile and launch script"),
    QT_TRANSLATE_NOOP("tapas::ExportFormat", "SLURM sbatch script with srun"),
    QT_TRANSLATE_NOOP("tapas::ExportFormat", "PyTorch DTensor parallelize_module plan (Python)"),
    QT_TRANSLATE_NOOP("tapas::ExportFormat", "Megatron-LM parallelism arguments"),
    QT_TRANSLATE_NOOP("tapas::ExportFormat", "annotated graph (Graphviz DOT)"),
    QT_TRANSLATE_NOOP("tapas::ExportFormat", "annotated graph (SVG)"),
    QT_TRANSLATE_NOOP("tapas::ExportFormat", "annotated graph (PNG)"),
};

QString formatDescription(const PlanExporter& e)
{
    const std::string d = e.description();
    return QCoreApplication::translate("tapas::ExportFormat", d.c_str());
}

} // namespace

ExportDialog::ExportDialog(PlanSession* session, QWidget* parent)
    : QDialog(parent), session_(session), formats_(new QListWidget(this)), hosts_(new QLineEdit(this)),
      gpus_(new QSpinBox(this)), jobName_(new QLineEdit(QStringLiteral("tapas"), this)), output_(new QLineEdit(this)),
      browse_(new QPushButton(this)), export_(new QPushButton(this)),
      buttons_(new QDialogButtonBox(QDialogButtonBox::Close, this)), status_(new QLabel(this)), written_(new QListWidget(this)),
      refused_(new QListWidget(this)), writtenTitle_(new QLabel(this)), refusedTitle_(new QLabel(this))
{
    setObjectName(QStringLiteral("exportDialog"));
    formats_->setObjectName(QStringLiteral("exportFormats"));
    hosts_->setObjectName(QStringLiteral("exportHosts"));
    gpus_->setObjectName(QStringLiteral("exportGpusPerNode"));
    gpus_->setRange(0, 1024);
    jobName_->setObjectName(QStringLiteral("exportJobName"));
    output_->setObjectName(QStringLiteral("exportOutput"));
    export_->setObjectName(QStringLiteral("exportRun"));
    export_->setDefault(true);
    status_->setObjectName(QStringLiteral("exportStatus"));
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    written_->setObjectName(QStringLiteral("exportWritten"));
    refused_->setObjectName(QStringLiteral("exportRefused"));
    written_->setTextElideMode(Qt::ElideMiddle);
    refused_->setWordWrap(true);
    for (const auto& e : planExporters()) {
        auto* item = new QListWidgetItem(formats_);
        item->setData(Qt::UserRole, QString::fromStdString(e->name()));
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(e->name() == "plan" ? Qt::Checked : Qt::Unchecked);
    }

    // Each label is its field's buddy, so "&Formats:" shows "Formats:" with F underlined and
    // Alt+F reaches the list (a label without a buddy prints the ampersand).
    auto* form = new QFormLayout;
    auto addRow = [this, form](QWidget* buddy, QLayout* field) {
        auto* label = new QLabel(this);
        label->setBuddy(buddy);
        formLabels_ << label;
        if (field) form->addRow(label, field);
        else form->addRow(label, buddy);
    };
    addRow(formats_, nullptr);
    addRow(hosts_, nullptr);
    addRow(gpus_, nullptr);
    addRow(jobName_, nullptr);
    auto* out = new QHBoxLayout;
    out->addWidget(output_, 1);
    out->addWidget(browse_);
    addRow(output_, out);
    auto* run = new QHBoxLayout;
    run->addWidget(export_);
    run->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addLayout(run);
    layout->addWidget(status_);
    // What was written and what was refused, side by side: one refusal never hides the rest.
    auto* results = new QGridLayout;
    results->addWidget(writtenTitle_, 0, 0);
    results->addWidget(refusedTitle_, 0, 1);
    results->addWidget(written_, 1, 0);
    results->addWidget(refused_, 1, 1);
    results->setColumnStretch(0, 3);
    results->setColumnStretch(1, 2);
    layout->addLayout(results, 1);
    layout->addWidget(buttons_);

    connect(browse_, &QPushButton::clicked, this, &ExportDialog::browse);
    connect(export_, &QPushButton::clicked, this, [this] { exportNow(); });
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
    retranslateUi();
    resize(640, 560);
}

void ExportDialog::retranslateUi()
{
    setWindowTitle(tr("Export Plan"));
    const QString labels[] = {tr("&Formats:"), tr("&Hosts:"), tr("&GPUs per node:"), tr("&Job name:"), tr("&Output folder:")};
    for (int i = 0; i < 5; ++i) formLabels_[i]->setText(labels[i]);
    writtenTitle_->setText(tr("Written"));
    refusedTitle_->setText(tr("Refused"));
    for (int i = 0; i < formats_->count(); ++i) {
        QListWidgetItem* item = formats_->item(i);
        const PlanExporter* e = findPlanExporter(item->data(Qt::UserRole).toString().toStdString());
        if (e) item->setText(QStringLiteral("%1 — %2").arg(QString::fromStdString(e->name()), formatDescription(*e)));
    }
    hosts_->setPlaceholderText(tr("node01, node02, … (empty: from the cluster's node count)"));
    gpus_->setSpecialValueText(tr("from the cluster"));
    browse_->setText(tr("&Browse…"));
    export_->setText(tr("&Export"));
}

void ExportDialog::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange) retranslateUi();
    QDialog::changeEvent(event);
}

void ExportDialog::setModelPath(const QString& path)
{
    if (path == modelPath_) return;
    modelPath_ = path;
    // Another model: what was written for the last one is no longer this dialog's news.
    written_->clear();
    refused_->clear();
    writtenFiles_.clear();
    status_->clear();
    status_->setStyleSheet(QString());
}

void ExportDialog::setOutputDir(const QString& dir)
{
    output_->setText(dir);
}

void ExportDialog::setFormats(const QStringList& names)
{
    for (int i = 0; i < formats_->count(); ++i) {
        QListWidgetItem* item = formats_->item(i);
        item->setCheckState(names.contains(item->data(Qt::UserRole).toString()) ? Qt::Checked : Qt::Unchecked);
    }
}

QStringList ExportDialog::formats() const
{
    QStringList names;
    for (int i = 0; i < formats_->count(); ++i)
        if (formats_->item(i)->checkState() == Qt::Checked) names << formats_->item(i)->data(Qt::UserRole).toString();
    return names;
}

void ExportDialog::browse()
{
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Export Into"), output_->text());
    if (!dir.isEmpty()) output_->setText(dir);
}

QString ExportDialog::exportNow()
{
    auto fail = [this](const QString& e) {
        status_->setText(e);
        status_->setStyleSheet(QStringLiteral("color: #b00020;"));
        return e;
    };
    const PlanEditor* editor = session_->editor();
    if (!editor || !session_->graph()) return fail(tr("There is no plan to export: run a search first."));
    const QStringList names = formats();
    if (names.isEmpty()) return fail(tr("Choose at least one format."));
    const QString dir = output_->text().trimmed();
    if (dir.isEmpty()) return fail(tr("Choose an output folder."));

    ExportOptions options;
    // Hosts are separated by commas; the exporters check each name (a name with a space is refused, not split).
    for (const QString& h : hosts_->text().split(QLatin1Char(','), Qt::SkipEmptyParts))
        if (!h.trimmed().isEmpty()) options.hosts.push_back(h.trimmed().toStdString());
    options.gpusPerNode = gpus_->value();
    options.jobName = jobName_->text().trimmed().isEmpty() ? std::string("tapas") : jobName_->text().trimmed().toStdString();
    if (!modelPath_.isEmpty() && !modelPath_.startsWith(QLatin1Char(':'))) options.modelPath = modelPath_.toStdString();
    const int current = session_->currentResult();
    ExportInput in;
    in.graph = session_->graph().get();
    in.folded = session_->folded().get();
    in.plan = &editor->plan();
    in.cluster = &session_->cluster();
    in.report = &editor->report();
    if (current >= 0 && current < int(session_->results().size())) {
        const SearchResult& r = session_->results()[size_t(current)];
        in.provenance = {r.searcher, QCoreApplication::applicationVersion().toStdString(), r.searchSeconds};
    }

    // Each format on its own: one that refuses this plan (Megatron's recipe for a TAPAS plan,
    // a host name a script cannot quote) is listed with its reason; the others are written.
    written_->clear();
    refused_->clear();
    writtenFiles_.clear();
    QStringList refusals;
    auto refuse = [&](const QString& name, const QString& why) {
        refusals << QStringLiteral("%1: %2").arg(name, why);
        auto* item = new QListWidgetItem(QStringLiteral("%1: %2").arg(name, why), refused_);
        item->setToolTip(why);
        item->setForeground(QColor(0xb0, 0x00, 0x20));
    };
    for (const QString& name : names) {
        const PlanExporter* e = findPlanExporter(name.toStdString());
        if (!e) {
            refuse(name, tr("no such export format"));
            continue;
        }
        Result<ExportFiles> files = e->write(in, options);
        if (!files) {
            refuse(name, QString::fromStdString(files.error()));
            continue;
        }
        if (Status s = writeExportFiles(dir.toStdString(), *files); !s) {
            refuse(name, QString::fromStdString(s.error));
            continue;
        }
        for (const auto& [file, content] : *files) {
            const QString path = QDir(dir).absoluteFilePath(QString::fromStdString(file));
            writtenFiles_ << path;
            auto* item = new QListWidgetItem(QDir::toNativeSeparators(path), written_);
            item->setToolTip(tr("%1, written by the %2 format").arg(QDir::toNativeSeparators(path), name));
        }
    }
    const QString wrote = tr("Wrote %n file(s) into %1.", nullptr, int(writtenFiles_.size())).arg(QDir::toNativeSeparators(dir));
    if (refusals.isEmpty()) {
        status_->setStyleSheet(QString());
        status_->setText(wrote);
        return {};
    }
    const QString text = tr("%1 %n format(s) refused:\n%2", nullptr, int(refusals.size())).arg(wrote, refusals.join(QLatin1Char('\n')));
    fail(text);
    return text;
}

} // namespace tapas

// The moc output lives in this object, so the window links it only when it uses this class.
#include "moc_export_dialog.cpp"
