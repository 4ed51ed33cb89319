#include "views/plan/override_dialog.h"

#include "views/graph/sharding_style.h"

#include "core/plan/plan_editor.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QRadioButton>
#include <QVBoxLayout>

#include <algorithm>

namespace tapas {

namespace {

QString specText(const Graph& g, TensorId t, const TensorLayout& l, bool activationDp)
{
    return QString::fromStdString(toShardingSpec(l, g.tensor(t).shape.rank(), activationDp).toString());
}

} // namespace

OverrideDialog::OverrideDialog(const Graph& graph, const FoldedGraph* folded, const PlanEditor& editor, NodeId node,
                               int weightInput, QWidget* parent)
    : QDialog(parent), graph_(graph), editor_(editor), node_(node), weightInput_(weightInput),
      combo_(new QComboBox(this)), detail_(new QLabel(this)), instanceButton_(new QRadioButton(this)),
      classButton_(new QRadioButton(this))
{
    setObjectName(QStringLiteral("overrideDialog"));
    const Node& n = graph.node(node);
    const OpStrategy& current = editor.plan().nodes[size_t(node)];
    const std::vector<OpStrategy> allowed = editor.allowedStrategies(node);
    auto* form = new QFormLayout;
    auto* what = new QLabel(this);
    what->setTextInteractionFlags(Qt::TextSelectableByMouse);
    if (weightInput >= 0) {
        weight_ = n.input(size_t(weightInput));
        setWindowTitle(tr("Change Weight Layout"));
        what->setText(tr("%1\n(read by %2, %3)")
                          .arg(QString::fromStdString(graph.tensor(weight_).name),
                               QString::fromStdString(n.name), QString::fromStdString(n.opType)));
        // The layouts the rule allows for this input, each once, the current one first.
        const TensorLayout now = size_t(weightInput) < current.inputs.size() ? current.inputs[size_t(weightInput)] : TensorLayout{};
        layouts_.push_back(now);
        for (const OpStrategy& s : allowed)
            if (size_t(weightInput) < s.inputs.size() &&
                std::find(layouts_.begin(), layouts_.end(), s.inputs[size_t(weightInput)]) == layouts_.end())
                layouts_.push_back(s.inputs[size_t(weightInput)]);
        for (const TensorLayout& l : layouts_)
            combo_->addItem(tr("%1 %2").arg(QString::fromStdString(l.toString()), specText(graph, weight_, l, false)),
                            QString::fromStdString(l.toString()));
    } else {
        setWindowTitle(tr("Change Sharding"));
        what->setText(tr("%1 (%2)").arg(QString::fromStdString(n.name), QString::fromStdString(n.opType)));
        for (const OpStrategy& s : allowed) combo_->addItem(ShardingStyle::strategyText(s.name), QString::fromStdString(s.name));
        const int at = combo_->findData(QString::fromStdString(current.name));
        if (at >= 0) combo_->setCurrentIndex(at);
    }
    combo_->setObjectName(QStringLiteral("overrideChoice"));
    form->addRow(weightInput >= 0 ? tr("Weight:") : tr("Op:"), what);
    form->addRow(weightInput >= 0 ? tr("Store as:") : tr("Strategy:"), combo_);
    detail_->setWordWrap(true);
    detail_->setObjectName(QStringLiteral("overrideDetail"));
    form->addRow(QString(), detail_);

    const int peers = int(editor.classPeers(node).size());
    (void)folded; // the editor knows the class peers
    instanceButton_->setText(tr("This instance only"));
    instanceButton_->setObjectName(QStringLiteral("applyToInstance"));
    classButton_->setText(peers > 1 ? tr("Every instance of its block class (%n instances)", nullptr, peers)
                                    : tr("Every instance of its block class (it has only this one)"));
    classButton_->setObjectName(QStringLiteral("applyToClass"));
    classButton_->setEnabled(peers > 1);
    (peers > 1 ? classButton_ : instanceButton_)->setChecked(true);
    auto* applyTo = new QVBoxLayout;
    applyTo->addWidget(instanceButton_);
    applyTo->addWidget(classButton_);
    form->addRow(tr("Apply to:"), applyTo);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(buttons);
    connect(combo_, &QComboBox::currentIndexChanged, this, [this] { updateDetail(); });
    updateDetail();
}

void OverrideDialog::updateDetail()
{
    const std::vector<OpStrategy> allowed = editor_.allowedStrategies(node_);
    const Node& n = graph_.node(node_);
    const bool dp = editor_.plan().mesh.dp > 1;
    if (editsWeight()) {
        const TensorLayout l = layout();
        QStringList users;
        for (const OpStrategy& s : allowed)
            if (size_t(weightInput_) < s.inputs.size() && s.inputs[size_t(weightInput_)] == l)
                users << QString::fromStdString(s.name);
        detail_->setText(tr("Strategies of %1 that store it this way: %2")
                             .arg(QString::fromStdString(n.opType), users.join(QStringLiteral(", "))));
        return;
    }
    const QString name = strategy();
    for (const OpStrategy& s : allowed) {
        if (QString::fromStdString(s.name) != name) continue;
        QStringList parts;
        for (size_t i = 0; i < n.inputs.size() && i < s.inputs.size(); ++i)
            if (n.inputs[i] != kNoTensor)
                parts << tr("in %1: %2").arg(i).arg(specText(graph_, n.inputs[i], s.inputs[i], dp && !isSourceWeight(graph_, n.inputs[i])));
        if (n.output(0) != kNoTensor && !s.outputs.empty())
            parts << tr("out: %1").arg(specText(graph_, n.output(0), s.outputs[0], dp));
        detail_->setText(parts.join(QStringLiteral("  ·  ")));
        return;
    }
    detail_->clear();
}

QStringList OverrideDialog::choices() const
{
    QStringList out;
    for (int i = 0; i < combo_->count(); ++i) out << combo_->itemData(i).toString();
    return out;
}

int OverrideDialog::choiceCount() const
{
    return combo_->count();
}

void OverrideDialog::setChoice(int index)
{
    combo_->setCurrentIndex(index);
}

bool OverrideDialog::selectChoice(const QString& text)
{
    const int at = combo_->findData(text);
    if (at < 0) return false;
    combo_->setCurrentIndex(at);
    return true;
}

QString OverrideDialog::strategy() const
{
    return editsWeight() ? QString() : combo_->currentData().toString();
}

TensorLayout OverrideDialog::layout() const
{
    const int i = combo_->currentIndex();
    return editsWeight() && i >= 0 && size_t(i) < layouts_.size() ? layouts_[size_t(i)] : TensorLayout{};
}

bool OverrideDialog::wholeClass() const
{
    return classButton_->isChecked();
}

void OverrideDialog::setWholeClass(bool whole)
{
    (whole && classButton_->isEnabled() ? classButton_ : instanceButton_)->setChecked(true);
}

} // namespace tapas
