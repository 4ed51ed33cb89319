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

ExportDialog::ExportDialog(PlanSession* session, QWidget* parent)
    : QDialog(parent), session_(session), formats_(new QListWidget(this)), hosts_(new QLineEdit(this)),
      gpus_(new QSpinBox(this)), jobName_(new QLineEdit(QStringLiteral("tapas"), this)), output_(new QLineEdit(this)),
      browse_(new QPushButton(this)), export_(new QPushButton(this)),
      buttons_(new QDialogButtonBox(QDialogButtonBox::Close, this)), status_(new QLabel(this)), written_(new QListWidget(this))
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
    for (const auto& e : planExporters()) {
        auto* item = new QListWidgetItem(QStringLiteral("%1 — %2").arg(QString::fromStdString(e->name()),
                                                                      QString::fromStdString(e->description())),
                                         formats_);
        item->setData(Qt::UserRole, QString::fromStdString(e->name()));
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(e->name() == "plan" ? Qt::Checked : Qt::Unchecked);
    }

    auto* form = new QFormLayout;
    form->addRow(new QLabel(this), formats_);
    form->addRow(new QLabel(this), hosts_);
    form->addRow(new QLabel(this), gpus_);
    form->addRow(new QLabel(this), jobName_);
    auto* out = new QHBoxLayout;
    out->addWidget(output_, 1);
    out->addWidget(browse_);
    form->addRow(new QLabel(this), out);
    auto* run = new QHBoxLayout;
    run->addWidget(export_);
    run->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addLayout(run);
    layout->addWidget(status_);
    layout->addWidget(written_, 1);
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
    auto* form = static_cast<QFormLayout*>(static_cast<QVBoxLayout*>(layout())->itemAt(0)->layout());
    const QString labels[] = {tr("&Formats:"), tr("&Hosts:"), tr("&GPUs per node:"), tr("&Job name:"), tr("&Output folder:")};
    for (int i = 0; i < 5; ++i) static_cast<QLabel*>(form->itemAt(i, QFormLayout::LabelRole)->widget())->setText(labels[i]);
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
    modelPath_ = path;
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

    // Every format first, then the files: a refusal in any format writes nothing.
    std::map<std::string, ExportFiles> all;
    QStringList errors;
    for (const QString& name : names) {
        const PlanExporter* e = findPlanExporter(name.toStdString());
        if (!e) {
            errors << tr("%1: no such export format").arg(name);
            continue;
        }
        Result<ExportFiles> files = e->write(in, options);
        if (!files) errors << QStringLiteral("%1: %2").arg(name, QString::fromStdString(files.error()));
        else all[name.toStdString()] = std::move(*files);
    }
    if (!errors.isEmpty()) return fail(tr("Nothing was written.\n%1").arg(errors.join(QLatin1Char('\n'))));
    written_->clear();
    writtenFiles_.clear();
    for (const auto& [name, files] : all) {
        if (Status s = writeExportFiles(dir.toStdString(), files); !s)
            return fail(tr("%1: %2").arg(QString::fromStdString(name), QString::fromStdString(s.error)));
        for (const auto& [file, content] : files) {
            const QString path = QDir(dir).absoluteFilePath(QString::fromStdString(file));
            writtenFiles_ << path;
            written_->addItem(QDir::toNativeSeparators(path));
        }
    }
    status_->setStyleSheet(QString());
    status_->setText(tr("Wrote %n file(s) into %1.", nullptr, int(writtenFiles_.size())).arg(QDir::toNativeSeparators(dir)));
    return {};
}

} // namespace tapas

// The moc output lives in this object, so the window links it only when it uses this class.
#include "moc_export_dialog.cpp"
