#include "app/studio/recent_files.h"

#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>

namespace tapas {

RecentFiles::RecentFiles(QObject* parent, const QString& settingsKey) : QObject(parent), key_(settingsKey)
{
    // An absent key reads as one empty string, not an empty list: drop blanks so a first start
    // is recognised as one.
    files_ = QSettings().value(key_, QStringList()).toStringList();
    files_.removeAll(QString());
    while (files_.size() > kMaxEntries) files_.removeLast();
}

void RecentFiles::add(const QString& path)
{
    const QString abs = QFileInfo(path).absoluteFilePath();
    files_.removeAll(abs);
    files_.prepend(abs);
    while (files_.size() > kMaxEntries) files_.removeLast();
    save();
}

void RecentFiles::clear()
{
    files_.clear();
    save();
}

QStringList RecentFiles::pruneMissing()
{
    QStringList missing;
    for (const QString& f : std::as_const(files_))
        if (!QFileInfo::exists(f)) missing << f;
    if (!missing.isEmpty()) {
        for (const QString& f : std::as_const(missing)) files_.removeAll(f);
        save();
        Q_EMIT pruned(missing);
    }
    return missing;
}

void RecentFiles::attachMenu(QMenu* menu)
{
    menu_ = menu;
    clearAction_ = new QAction(this);
    connect(clearAction_, &QAction::triggered, this, &RecentFiles::clear);
    connect(menu_, &QMenu::aboutToShow, this, [this] {
        pruneMissing();
        rebuildMenu();
    });
    retranslate();
    rebuildMenu();
}

void RecentFiles::retranslate()
{
    if (clearAction_) clearAction_->setText(tr("Clear Recent Files"));
}

void RecentFiles::save()
{
    QSettings().setValue(key_, files_);
    Q_EMIT changed();
}

void RecentFiles::rebuildMenu()
{
    if (!menu_) return;
    menu_->clear(); // deletes the per-file actions it owns; clearAction_ belongs to us
    for (int i = 0; i < files_.size(); ++i) {
        const QString path = files_[i];
        // "&1 resnet18.onnx": the number is the keyboard accelerator, 10 becomes "1&0".
        const QString number = i < 9 ? QStringLiteral("&%1").arg(i + 1) : QStringLiteral("1&0");
        QAction* a = menu_->addAction(QStringLiteral("%1  %2").arg(number, QFileInfo(path).fileName()));
        a->setToolTip(QDir::toNativeSeparators(path));
        a->setStatusTip(QDir::toNativeSeparators(path));
        connect(a, &QAction::triggered, this, [this, path] { Q_EMIT openRequested(path); });
    }
    if (files_.isEmpty()) {
        QAction* none = menu_->addAction(tr("No recent files"));
        none->setEnabled(false);
    }
    menu_->addSeparator();
    menu_->addAction(clearAction_);
    clearAction_->setEnabled(!files_.isEmpty());
}

} // namespace tapas
