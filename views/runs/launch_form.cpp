#include "views/runs/launch_form.h"

#include "runtime/protocol/gan_presets.h"

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace tapas {

namespace {

// GAN presets that train well on this machine's built-in data sets (names translated in
// retranslateUi, in this order after "Custom"); step budgets from protocol/gan_presets.h.
struct GanPreset {
    const char* data;
    const char* model;
    bool async;
    int staleness;
};
constexpr GanPreset kPresets[] = {
    {"ring8", "mlp", false, 0},
    {"ring8", "mlp", true, 1},
    {"grid25", "mlp", false, 0},
    {"fashion-mnist", "dcgan", false, 0},
    {"fashion-mnist", "dcgan", true, 1},
    {"shapes", "dcgan", false, 0},
    {"shapes", "biggan", false, 0},
};

const char* const kDataSets[] = {"ring8", "grid25", "fashion-mnist", "shapes", "folder"};
const char* const kGanModels[] = {"", "mlp", "dcgan", "biggan"};

QWidget* withButton(QLineEdit* edit, QPushButton* button)
{
    auto* w = new QWidget;
    auto* row = new QHBoxLayout(w);
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(edit, 1);
    row->addWidget(button);
    return w;
}

} // namespace

LaunchForm::LaunchForm(QWidget* parent)
    : QWidget(parent), kind_(new QComboBox), pages_(new QStackedWidget), plan_(new QLineEdit), model_(new QLineEdit),
      planBrowse_(new QPushButton), modelBrowse_(new QPushButton), preset_(new QComboBox), data_(new QComboBox),
      folder_(new QLineEdit), folderBrowse_(new QPushButton), ganModel_(new QComboBox), async_(new QCheckBox),
      staleness_(new QSpinBox), ranks_(new QSpinBox), hosts_(new QLineEdit), steps_(new QSpinBox),
      checkpoint_(new QSpinBox), start_(new QPushButton), error_(new QLabel), common_(new QFormLayout),
      planForm_(new QFormLayout), ganForm_(new QFormLayout)
{
    setObjectName(QStringLiteral("launchForm"));
    kind_->setObjectName(QStringLiteral("runKind"));
    kind_->addItems({QString(), QString()});
    plan_->setObjectName(QStringLiteral("planPath"));
    model_->setObjectName(QStringLiteral("modelPath"));
    preset_->setObjectName(QStringLiteral("ganPreset"));
    preset_->addItem(QString());
    for (size_t i = 0; i < std::size(kPresets); ++i) preset_->addItem(QString());
    data_->setObjectName(QStringLiteral("ganData"));
    for (const char* d : kDataSets) data_->addItem(QString(), QString::fromLatin1(d));
    folder_->setObjectName(QStringLiteral("ganFolder"));
    ganModel_->setObjectName(QStringLiteral("ganModel"));
    for (const char* m : kGanModels) ganModel_->addItem(QString(), QString::fromLatin1(m));
    async_->setObjectName(QStringLiteral("ganAsync"));
    staleness_->setObjectName(QStringLiteral("ganStaleness"));
    staleness_->setRange(0, 16);
    staleness_->setValue(1);
    ranks_->setObjectName(QStringLiteral("runRanks"));
    ranks_->setRange(1, 1024);
    ranks_->setValue(2);
    hosts_->setObjectName(QStringLiteral("runHosts"));
    steps_->setObjectName(QStringLiteral("runSteps"));
    steps_->setRange(1, 10'000'000);
    steps_->setValue(50);
    checkpoint_->setObjectName(QStringLiteral("runCheckpoint"));
    checkpoint_->setRange(0, 1'000'000);
    checkpoint_->setValue(10);
    start_->setObjectName(QStringLiteral("startRun"));
    error_->setObjectName(QStringLiteral("launchError"));
    error_->setWordWrap(true);
    error_->setStyleSheet(QStringLiteral("color: #b00020"));
    error_->hide();

    auto* planPage = new QWidget;
    planForm_->setParent(nullptr);
    planPage->setLayout(planForm_);
    planForm_->setContentsMargins(0, 0, 0, 0);
    planForm_->addRow(new QLabel, withButton(plan_, planBrowse_));
    planForm_->addRow(new QLabel, withButton(model_, modelBrowse_));
    auto* ganPage = new QWidget;
    ganPage->setLayout(ganForm_);
    ganForm_->setContentsMargins(0, 0, 0, 0);
    ganForm_->addRow(new QLabel, preset_);
    ganForm_->addRow(new QLabel, data_);
    ganForm_->addRow(new QLabel, withButton(folder_, folderBrowse_));
    ganForm_->addRow(new QLabel, ganModel_);
    auto* asyncRow = new QWidget;
    auto* asyncLayout = new QHBoxLayout(asyncRow);
    asyncLayout->setContentsMargins(0, 0, 0, 0);
    asyncLayout->addWidget(async_);
    asyncLayout->addWidget(staleness_);
    asyncLayout->addStretch(1);
    ganForm_->addRow(new QLabel, asyncRow);
    pages_->addWidget(planPage);
    pages_->addWidget(ganPage);

    common_->setContentsMargins(0, 0, 0, 0);
    common_->addRow(new QLabel, kind_);
    common_->addRow(new QLabel, ranks_);
    common_->addRow(new QLabel, hosts_);
    common_->addRow(new QLabel, steps_);
    common_->addRow(new QLabel, checkpoint_);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(common_);
    layout->addWidget(pages_);
    layout->addWidget(error_);
    layout->addWidget(start_);

    connect(kind_, &QComboBox::currentIndexChanged, this, [this](int i) {
        pages_->setCurrentIndex(i);
        updateEnabled();
    });
    connect(preset_, &QComboBox::activated, this, &LaunchForm::applyPreset);
    connect(data_, &QComboBox::currentIndexChanged, this, &LaunchForm::updateEnabled);
    connect(async_, &QCheckBox::toggled, this, &LaunchForm::updateEnabled);
    connect(start_, &QPushButton::clicked, this, &LaunchForm::submit);
    connect(planBrowse_, &QPushButton::clicked, this,
            [this] { browse(plan_, tr("Plan files (*.tapas.json *.json);;All files (*)"), false); });
    connect(modelBrowse_, &QPushButton::clicked, this,
            [this] { browse(model_, tr("ONNX models (*.onnx);;All files (*)"), false); });
    connect(folderBrowse_, &QPushButton::clicked, this, [this] { browse(folder_, QString(), true); });
    retranslateUi();
    updateEnabled();
}

void LaunchForm::setKind(Kind kind)
{
    kind_->setCurrentIndex(int(kind));
}

LaunchForm::Kind LaunchForm::kind() const
{
    return Kind(kind_->currentIndex());
}

void LaunchForm::setPlanPath(const QString& path)
{
    plan_->setText(path);
}

void LaunchForm::setModelPath(const QString& path)
{
    model_->setText(path);
}

void LaunchForm::applyPreset(int index)
{
    preset_->setCurrentIndex(index);
    if (index <= 0 || index > int(std::size(kPresets))) return;
    const GanPreset& p = kPresets[index - 1];
    data_->setCurrentIndex(data_->findData(QString::fromLatin1(p.data)));
    ganModel_->setCurrentIndex(ganModel_->findData(QString::fromLatin1(p.model)));
    async_->setChecked(p.async);
    if (p.async) staleness_->setValue(p.staleness);
    const int steps = protocol::ganDefaultSteps(p.data);
    steps_->setValue(steps);
    checkpoint_->setValue(std::max(1, steps / 5));
    updateEnabled();
}

void LaunchForm::updateEnabled()
{
    const bool folder = data_->currentData().toString() == QLatin1String("folder");
    folder_->setEnabled(folder);
    folderBrowse_->setEnabled(folder);
    staleness_->setEnabled(async_->isChecked());
}

void LaunchForm::browse(QLineEdit* edit, const QString& filter, bool directory)
{
    const QString start = edit->text().isEmpty() ? QString() : QFileInfo(edit->text()).absolutePath();
    const QString path = directory ? QFileDialog::getExistingDirectory(this, tr("Choose a Folder of Images"), start)
                                   : QFileDialog::getOpenFileName(this, tr("Choose a File"), start, filter);
    if (!path.isEmpty()) edit->setText(path);
}

Result<protocol::RunSpec> LaunchForm::spec() const
{
    protocol::RunSpec s;
    s.ranks = ranks_->value();
    s.steps = steps_->value();
    s.checkpointEvery = checkpoint_->value();
    // Host names: letters, digits, dots, dashes (and an optional :slots); nothing a shell or
    // mpirun would read as an option.
    static const QRegularExpression hostRe(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._-]*(:[0-9]+)?$"));
    for (const QString& h : hosts_->text().split(QRegularExpression(QStringLiteral("[,\\s]+")), Qt::SkipEmptyParts)) {
        if (!hostRe.match(h).hasMatch())
            return Result<protocol::RunSpec>::failure(tr("Host \"%1\" is not a host name (letters, digits, '.', '-', optionally :slots).").arg(h).toStdString());
        s.hosts.push_back(h.toStdString());
    }
    if (kind() == PlanTraining) {
        s.kind = "train-plan";
        const QString plan = plan_->text().trimmed();
        const QString model = model_->text().trimmed();
        if (plan.isEmpty()) return Result<protocol::RunSpec>::failure(tr("Choose a plan file to run.").toStdString());
        if (!QFileInfo(plan).isFile()) return Result<protocol::RunSpec>::failure(tr("Plan file %1 does not exist.").arg(plan).toStdString());
        if (model.isEmpty()) return Result<protocol::RunSpec>::failure(tr("Choose the ONNX model the plan was made for.").toStdString());
        if (!QFileInfo(model).isFile()) return Result<protocol::RunSpec>::failure(tr("Model file %1 does not exist.").arg(model).toStdString());
        s.planPath = QFileInfo(plan).absoluteFilePath().toStdString();
        s.modelPath = QFileInfo(model).absoluteFilePath().toStdString();
        return s;
    }
    s.kind = "gan";
    const QString data = data_->currentData().toString();
    if (data == QLatin1String("folder")) {
        const QString dir = folder_->text().trimmed();
        if (dir.isEmpty() || !QFileInfo(dir).isDir())
            return Result<protocol::RunSpec>::failure(tr("Image folder \"%1\" does not exist.").arg(dir).toStdString());
        s.options["data-dir"] = QFileInfo(dir).absoluteFilePath().toStdString();
    }
    s.options["data"] = data.toStdString();
    const QString model = ganModel_->currentData().toString();
    if (!model.isEmpty()) s.options["model"] = model.toStdString();
    if (async_->isChecked()) {
        s.options["async"] = "";
        s.options["staleness"] = std::to_string(staleness_->value());
    }
    return s;
}

void LaunchForm::submit()
{
    auto s = spec();
    if (!s) {
        error_->setText(QString::fromStdString(s.error()));
        error_->show();
        return;
    }
    error_->hide();
    Q_EMIT launchRequested(*s);
}

void LaunchForm::retranslateUi()
{
    kind_->setItemText(PlanTraining, tr("Plan training"));
    kind_->setItemText(GanTraining, tr("GAN training"));
    plan_->setPlaceholderText(tr("plan.tapas.json"));
    model_->setPlaceholderText(tr("model.onnx"));
    planBrowse_->setText(tr("…"));
    modelBrowse_->setText(tr("…"));
    folderBrowse_->setText(tr("…"));
    preset_->setItemText(0, tr("Custom"));
    preset_->setItemText(1, tr("Ring of 8 Gaussians, MLP, synchronous"));
    preset_->setItemText(2, tr("Ring of 8 Gaussians, MLP, asynchronous (k = 1)"));
    preset_->setItemText(3, tr("Grid of 25 Gaussians, MLP"));
    preset_->setItemText(4, tr("Fashion-MNIST, DCGAN, synchronous"));
    preset_->setItemText(5, tr("Fashion-MNIST, DCGAN, asynchronous (k = 1)"));
    preset_->setItemText(6, tr("Procedural shapes, DCGAN"));
    preset_->setItemText(7, tr("Procedural shapes, BigGAN"));
    data_->setItemText(0, tr("Ring of 8 Gaussians"));
    data_->setItemText(1, tr("Grid of 25 Gaussians"));
    data_->setItemText(2, tr("Fashion-MNIST (Debian's dataset-fashion-mnist)"));
    data_->setItemText(3, tr("Procedural shapes"));
    data_->setItemText(4, tr("Image folder"));
    folder_->setPlaceholderText(tr("folder of PNG/JPEG images"));
    ganModel_->setItemText(0, tr("Data set's preset"));
    ganModel_->setItemText(1, tr("MLP"));
    ganModel_->setItemText(2, tr("DCGAN"));
    ganModel_->setItemText(3, tr("BigGAN"));
    async_->setText(tr("Asynchronous, staleness bound k ="));
    async_->setToolTip(tr("The discriminator trains on fake samples up to k generator updates old "
                          "instead of waiting for the newest generator (ParaGAN)."));
    hosts_->setPlaceholderText(tr("this machine (or host1,host2:4,…)"));
    checkpoint_->setSpecialValueText(tr("never"));
    start_->setText(tr("Start Run"));
    auto label = [](QFormLayout* f, int row, const QString& text) {
        if (auto* item = f->itemAt(row, QFormLayout::LabelRole); item && item->widget())
            static_cast<QLabel*>(item->widget())->setText(text);
    };
    label(common_, 0, tr("Kind:"));
    label(common_, 1, tr("Ranks:"));
    label(common_, 2, tr("Hosts:"));
    label(common_, 3, tr("Steps:"));
    label(common_, 4, tr("Checkpoint every:"));
    label(planForm_, 0, tr("Plan:"));
    label(planForm_, 1, tr("Model:"));
    label(ganForm_, 0, tr("Preset:"));
    label(ganForm_, 1, tr("Data:"));
    label(ganForm_, 2, tr("Folder:"));
    label(ganForm_, 3, tr("Model:"));
    label(ganForm_, 4, tr("Updates:"));
}

void LaunchForm::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange) retranslateUi();
    QWidget::changeEvent(event);
}

} // namespace tapas
