#pragma once
// File ▸ Open Recent: the last models opened, newest first, kept in QSettings. Files that have
// disappeared are pruned when the menu is shown, and the window is told so it can say so.
#include <QObject>
#include <QString>
#include <QStringList>

class QMenu;
class QAction;

namespace tapas {

class RecentFiles : public QObject {
    Q_OBJECT
public:
    static constexpr int kMaxEntries = 10;

    // `settingsKey`: the QSettings key of the list, so recent models and recent projects
    // ("recentProjects") keep separate lists.
    explicit RecentFiles(QObject* parent = nullptr, const QString& settingsKey = QStringLiteral("recentFiles"));

    QStringList files() const { return files_; }
    bool isEmpty() const { return files_.isEmpty(); }
    void add(const QString& path);
    void clear();
    // Drops entries whose file no longer exists; returns the dropped paths.
    QStringList pruneMissing();
    // The menu is rebuilt from the list each time it is about to show.
    void attachMenu(QMenu* menu);
    void retranslate();

Q_SIGNALS:
    void openRequested(const QString& path);
    void pruned(const QStringList& missing);
    // The list changed (added, cleared or pruned).
    void changed();

private:
    void save();
    void rebuildMenu();

    QString key_;
    QStringList files_;
    QMenu* menu_ = nullptr;
    QAction* clearAction_ = nullptr;
};

} // namespace tapas
