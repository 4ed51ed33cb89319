#include "views/cluster_editor.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFile>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStringList>
#include <QVBoxLayout>

namespace tapas {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kTera = 1e12;
constexpr double kGiga = 1e9;
constexpr double kMicro = 1e-6;

QDoubleSpinBox* makeSpin(QWidget* parent, double max, int decimals, const QString& suffix)
{
    auto* s = new QDoubleSpinBox(parent);
    s->setRange(0, max); // 0 is allowed here so that core's check (and its message) decides
    s->setDecimals(decimals);
    s->setSuffix(suffix);
    s->setKeyboardTracking(false);
    return s;
}

} // namespace

ClusterEditor::ClusterEditor(QWidget* parent)
    : QWidget(parent), preset_(new QComboBox(this)), name_(new QLineEdit(this)), device_(new QLineEdit(this)),
      nodes_(new QSpinBox(this)), devicesPerNode_(new QSpinBox(this)),
      memoryGiB_(makeSpin(this, 1e6, 2, QStringLiteral(" GiB"))), fp32_(makeSpin(this, 1e6, 2, QStringLiteral(" TFLOP/s"))),
      fp16_(makeSpin(this, 1e6, 2, QStringLiteral(" TFLOP/s"))), bf16_(makeSpin(this, 1e6, 2, QStringLiteral(" TFLOP/s"))),
      intraBw_(makeSpin(this, 1e6, 2, QStringLiteral(" GB/s"))), intraLat_(makeSpin(this, 1e6, 2, QStringLiteral(" µs"))),
      interBw_(makeSpin(this, 1e6, 2, QStringLiteral(" GB/s"))), interLat_(makeSpin(this, 1e6, 2, QStringLiteral(" µs"))),
      efficiency_(makeSpin(this, 10, 3, QString())), accelerator_(new QComboBox(this)),
      hbm_(makeSpin(this, 1e6, 1, QStringLiteral(" GB/s"))), l2_(makeSpin(this, 1e6, 1, QStringLiteral(" GB/s"))),
      sms_(new QSpinBox(this)), measured_(new QLabel(this)), forget_(new QPushButton(this)), load_(new QPushButton(this)),
      save_(new QPushButton(this)), error_(new QLabel(this))
{
    setObjectName(QStringLiteral("clusterEditor"));
    preset_->setObjectName(QStringLiteral("clusterPreset"));
    for (const auto& [name, text] : builtinClusterPresets()) preset_->addItem(QString::fromStdString(name), QString::fromStdString(name));
    preset_->addItem(QString(), QString()); // "Custom", text set in retranslateUi
    nodes_->setRange(0, 1000000);
    devicesPerNode_->setRange(0, 1000000);
    nodes_->setKeyboardTracking(false);
    devicesPerNode_->setKeyboardTracking(false);
    efficiency_->setSingleStep(0.05);
    accelerator_->setObjectName(QStringLiteral("clusterAccelerator"));
    accelerator_->addItem(QString(), true);  // GPU, texts set in retranslateUi
    accelerator_->addItem(QString(), false); // CPU
    sms_->setRange(0, 100000);
    sms_->setKeyboardTracking(false);
    measured_->setObjectName(QStringLiteral("clusterMeasurements"));
    forget_->setObjectName(QStringLiteral("clusterForgetMeasurements"));
    error_->setObjectName(QStringLiteral("clusterError"));
    error_->setWordWrap(true);
    error_->setStyleSheet(QStringLiteral("color: #b00020;"));
    error_->hide();
    load_->setObjectName(QStringLiteral("clusterLoad"));
    save_->setObjectName(QStringLiteral("clusterSave"));

    fields_ = {{QStringLiteral("name"), name_},
               {QStringLiteral("device"), device_},
               {QStringLiteral("nodes"), nodes_},
               {QStringLiteral("devices_per_node"), devicesPerNode_},
               {QStringLiteral("memory_bytes"), memoryGiB_},
               {QStringLiteral("peak_flops.fp32"), fp32_},
               {QStringLiteral("peak_flops.fp16"), fp16_},
               {QStringLiteral("peak_flops.bf16"), bf16_},
               {QStringLiteral("intra_node.bandwidth"), intraBw_},
               {QStringLiteral("intra_node.latency"), intraLat_},
               {QStringLiteral("inter_node.bandwidth"), interBw_},
               {QStringLiteral("inter_node.latency"), interLat_},
               {QStringLiteral("efficiency"), efficiency_},
               {QStringLiteral("accelerator"), accelerator_},
               {QStringLiteral("roofline.memory_bandwidth"), hbm_},
               {QStringLiteral("roofline.l2_bandwidth"), l2_},
               {QStringLiteral("roofline.multiprocessors"), sms_},
               {QStringLiteral("op_families"), measured_}};

    auto* form = new QFormLayout;
    auto addRow = [&](QWidget* w) {
        auto* label = new QLabel(this);
        label->setBuddy(w);
        labels_[w] = label;
        form->addRow(label, w);
    };
    for (QWidget* w : std::initializer_list<QWidget*>{preset_, name_, device_, accelerator_, nodes_, devicesPerNode_, memoryGiB_,
                                                      fp16_, bf16_, fp32_, intraBw_, intraLat_, interBw_, interLat_, efficiency_,
                                                      hbm_, l2_, sms_, measured_})
        addRow(w);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(forget_);
    buttons->addWidget(load_);
    buttons->addWidget(save_);
    buttons->addStretch(1);
    auto* top = new QVBoxLayout(this);
    top->setContentsMargins(0, 0, 0, 0);
    top->addLayout(form);
    top->addLayout(buttons);
    top->addWidget(error_);

    connect(preset_, &QComboBox::activated, this, &ClusterEditor::applyPreset);
    connect(load_, &QPushButton::clicked, this, &ClusterEditor::chooseAndLoad);
    connect(save_, &QPushButton::clicked, this, &ClusterEditor::chooseAndSave);
    connect(forget_, &QPushButton::clicked, this, &ClusterEditor::forgetMeasurements);
    // Any hand edit turns the cluster into a custom one, so a saved project never claims a preset
    // name for values that are not the preset's.
    auto edited = [this] {
        if (updating_) return;
        preset_->setCurrentIndex(preset_->count() - 1);
        error_->hide();
        Q_EMIT clusterChanged();
    };
    for (QSpinBox* s : {nodes_, devicesPerNode_, sms_}) connect(s, &QSpinBox::valueChanged, this, edited);
    for (QDoubleSpinBox* s : {memoryGiB_, fp32_, fp16_, bf16_, intraBw_, intraLat_, interBw_, interLat_, efficiency_, hbm_, l2_})
        connect(s, &QDoubleSpinBox::valueChanged, this, edited);
    connect(device_, &QLineEdit::textEdited, this, edited);
    connect(accelerator_, &QComboBox::activated, this, edited);
    connect(hbm_, &QDoubleSpinBox::valueChanged, this, &ClusterEditor::enableRooflineFields);

    retranslateUi();
    if (preset_->count() > 1) applyPreset(0);
}

void ClusterEditor::retranslateUi()
{
    labels_[preset_]->setText(tr("&Preset:"));
    labels_[name_]->setText(tr("Na&me:"));
    labels_[device_]->setText(tr("De&vice:"));
    labels_[nodes_]->setText(tr("&Nodes:"));
    labels_[devicesPerNode_]->setText(tr("Devices per &node:"));
    labels_[memoryGiB_]->setText(tr("Device &memory:"));
    labels_[fp16_]->setText(tr("Peak FP16:"));
    labels_[bf16_]->setText(tr("Peak BF16:"));
    labels_[fp32_]->setText(tr("Peak FP32:"));
    labels_[intraBw_]->setText(tr("Intra-node bandwidth:"));
    labels_[intraLat_]->setText(tr("Intra-node latency:"));
    labels_[interBw_]->setText(tr("Inter-node bandwidth:"));
    labels_[interLat_]->setText(tr("Inter-node latency:"));
    labels_[efficiency_]->setText(tr("Kernel &efficiency:"));
    efficiency_->setToolTip(tr("Fraction of the peak FLOP/s real kernels reach, in (0, 1]"));
    intraBw_->setToolTip(tr("Per device, one direction"));
    interBw_->setToolTip(tr("Per device, one direction"));
    preset_->setItemText(preset_->count() - 1, tr("Custom"));
    labels_[accelerator_]->setText(tr("&Accelerator:"));
    accelerator_->setItemText(0, tr("GPU"));
    accelerator_->setItemText(1, tr("CPU"));
    accelerator_->setToolTip(tr("What a batch script asks the scheduler for"));
    labels_[hbm_]->setText(tr("Memory bandwidth:"));
    labels_[l2_]->setText(tr("L2 bandwidth:"));
    labels_[sms_]->setText(tr("Multiprocessors:"));
    hbm_->setSpecialValueText(tr("no roofline"));
    l2_->setSpecialValueText(tr("not a limit"));
    sms_->setSpecialValueText(tr("no waves"));
    hbm_->setToolTip(tr("Device memory bandwidth per device. When set, each op is priced by a roofline (GEMMs by their "
                        "tiles and waves, element-wise ops by the bytes they move) instead of peak x efficiency"));
    l2_->setToolTip(tr("How fast the L2 cache feeds a GEMM's tiles"));
    sms_->setToolTip(tr("Streaming multiprocessors that run a GEMM's tiles in waves"));
    labels_[measured_]->setText(tr("Measured:"));
    forget_->setText(tr("&Forget Measurements"));
    forget_->setToolTip(tr("Drop the op families measured by calibration: every op is then priced from the fields above"));
    showMeasurements();
    load_->setText(tr("&Load JSON…"));
    save_->setText(tr("&Save As JSON…"));
}

void ClusterEditor::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange) retranslateUi();
    QWidget::changeEvent(event);
}

void ClusterEditor::applyPreset(int index)
{
    const auto& presets = builtinClusterPresets();
    if (index < 0 || size_t(index) >= presets.size()) return; // "Custom": keep the values
    Result<ClusterSpec> c = parseClusterSpec(presets[size_t(index)].second, presets[size_t(index)].first);
    if (!c) {
        showError(QString::fromStdString(c.error()));
        return;
    }
    setCluster(*c);
}

bool ClusterEditor::selectPreset(const QString& name)
{
    const int i = preset_->findData(name);
    if (i < 0 || name.isEmpty()) return false;
    preset_->setCurrentIndex(i);
    applyPreset(i);
    return true;
}

void ClusterEditor::setCluster(const ClusterSpec& c)
{
    updating_ = true;
    base_ = c;
    const int i = c.name.empty() ? -1 : preset_->findData(QString::fromStdString(c.name));
    preset_->setCurrentIndex(i >= 0 ? i : preset_->count() - 1);
    name_->setText(QString::fromStdString(c.name));
    device_->setText(QString::fromStdString(c.device));
    nodes_->setValue(c.nodes);
    devicesPerNode_->setValue(c.devicesPerNode);
    memoryGiB_->setValue(c.memoryBytes / kGiB);
    fp32_->setValue(c.peakFp32 / kTera);
    fp16_->setValue(c.peakFp16 / kTera);
    bf16_->setValue(c.peakBf16 / kTera);
    intraBw_->setValue(c.intraNode.bandwidth / kGiga);
    intraLat_->setValue(c.intraNode.latency / kMicro);
    interBw_->setValue(c.interNode.bandwidth / kGiga);
    interLat_->setValue(c.interNode.latency / kMicro);
    efficiency_->setValue(c.efficiency);
    accelerator_->setCurrentIndex(c.gpu ? 0 : 1);
    hbm_->setValue(c.roofline.memoryBandwidth / kGiga);
    l2_->setValue(c.roofline.l2Bandwidth / kGiga);
    sms_->setValue(c.roofline.multiprocessors);
    enableRooflineFields();
    showMeasurements();
    updating_ = false;
    error_->hide();
    markField({});
    Q_EMIT clusterChanged();
}

Result<ClusterSpec> ClusterEditor::cluster() const
{
    ClusterSpec c = base_; // keeps what has no field here (the measured op families)
    // A hand-edited cluster gets its own name: the preset's name would mislabel it.
    const bool custom = preset_->currentIndex() == preset_->count() - 1;
    c.name = name_->text().trimmed().toStdString();
    if (custom && preset_->findData(name_->text().trimmed()) >= 0) c.name += "-custom";
    if (c.name.empty()) c.name = "custom";
    c.device = device_->text().trimmed().toStdString();
    c.nodes = nodes_->value();
    c.devicesPerNode = devicesPerNode_->value();
    c.memoryBytes = memoryGiB_->value() * kGiB;
    c.peakFp32 = fp32_->value() * kTera;
    c.peakFp16 = fp16_->value() * kTera;
    c.peakBf16 = bf16_->value() * kTera;
    c.intraNode = {intraBw_->value() * kGiga, intraLat_->value() * kMicro};
    c.interNode = {interBw_->value() * kGiga, interLat_->value() * kMicro};
    c.efficiency = efficiency_->value();
    c.gpu = accelerator_->currentData().toBool();
    // No memory bandwidth, no roofline: the other two only qualify it, and are not kept without it.
    c.roofline = {};
    if (hbm_->value() > 0) c.roofline = {hbm_->value() * kGiga, l2_->value() * kGiga, sms_->value()};
    // The same checks as a cluster file gets, so both refuse the same values in the same words.
    Result<ClusterSpec> checked = parseClusterSpec(clusterSpecToJson(c), tr("cluster editor").toStdString());
    markField(checked ? std::string() : checked.error());
    if (!checked) showError(QString::fromStdString(checked.error()));
    else error_->hide();
    return checked;
}

void ClusterEditor::showMeasurements()
{
    if (base_.opFamilies.empty()) {
        measured_->setText(tr("none (peak x efficiency)"));
        measured_->setToolTip(tr("No op family was timed on these devices: every op is priced by the fields above"));
    } else {
        QStringList names;
        for (const auto& [family, rate] : base_.opFamilies) names << QString::fromStdString(family);
        measured_->setText(tr("%1 calibrated op families").arg(names.size()));
        measured_->setToolTip(tr("Timed on these devices by tapas cluster calibrate, they price their ops instead of peak x efficiency: %1")
                                  .arg(names.join(QStringLiteral(", "))));
    }
    forget_->setEnabled(!base_.opFamilies.empty());
}

void ClusterEditor::forgetMeasurements()
{
    if (base_.opFamilies.empty()) return;
    base_.opFamilies.clear();
    showMeasurements();
    // The cluster is no longer the preset it came from.
    preset_->setCurrentIndex(preset_->count() - 1);
    error_->hide();
    Q_EMIT clusterChanged();
}

void ClusterEditor::enableRooflineFields()
{
    l2_->setEnabled(hbm_->value() > 0);
    sms_->setEnabled(hbm_->value() > 0);
}

QWidget* ClusterEditor::fieldWidget(const QString& jsonField) const
{
    auto it = fields_.find(jsonField);
    return it == fields_.end() ? nullptr : it->second;
}

void ClusterEditor::markField(const std::string& error) const
{
    // core's messages read "cluster 'origin': field 'memory_bytes' must be positive".
    QString field;
    const QString e = QString::fromStdString(error);
    const int at = e.indexOf(QLatin1String("field '"));
    if (at >= 0) {
        const int from = at + 7;
        field = e.mid(from, e.indexOf(QLatin1Char('\''), from) - from);
    }
    for (const auto& [name, w] : fields_)
        w->setStyleSheet(name == field ? QStringLiteral("background: #ffd6d6;") : QString());
}

void ClusterEditor::showError(const QString& text) const
{
    error_->setText(text);
    error_->show();
}

QString ClusterEditor::loadJsonFile(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        const QString e = tr("Cannot read %1: %2").arg(path, f.errorString());
        showError(e);
        return e;
    }
    Result<ClusterSpec> c = parseClusterSpec(f.readAll().toStdString(), path.toStdString());
    if (!c) {
        markField(c.error());
        showError(QString::fromStdString(c.error()));
        return QString::fromStdString(c.error());
    }
    setCluster(*c);
    return {};
}

QString ClusterEditor::saveJsonFile(const QString& path) const
{
    Result<ClusterSpec> c = cluster();
    if (!c) return QString::fromStdString(c.error());
    QFile f(path);
    const QByteArray bytes = QByteArray::fromStdString(clusterSpecToJson(*c) + "\n");
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(bytes) != bytes.size()) {
        const QString e = tr("Cannot write %1: %2").arg(path, f.errorString());
        showError(e);
        return e;
    }
    return {};
}

void ClusterEditor::chooseAndLoad()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Load Cluster"), QString(), tr("Cluster files (*.json)"));
    if (!path.isEmpty()) loadJsonFile(path);
}

void ClusterEditor::chooseAndSave()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Save Cluster As"), name_->text() + QStringLiteral(".json"),
                                                      tr("Cluster files (*.json)"));
    if (!path.isEmpty()) saveJsonFile(path);
}

} // namespace tapas
