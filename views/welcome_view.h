#pragma once
// What the centre of the window shows while no model is open: Open, the bundled sample and the
// recent models, one click each (as Netron's and Qt Creator's start pages do), instead of an
// empty canvas. It only asks: the window opens the files.
#include <QStringList>
#include <QWidget>

class QLabel;
class QListWidget;
class QPushButton;

namespace tapas {

class WelcomeView : public QWidget {
    Q_OBJECT
public:
    explicit WelcomeView(QWidget* parent = nullptr);

    // Newest first; files that no longer exist are listed greyed out and cannot be opened.
    void setRecentFiles(const QStringList& paths);
    void setSampleAvailable(bool available);

    QPushButton* openButton() const { return open_; }
    QPushButton* sampleButton() const { return sample_; }
    QListWidget* recentList() const { return recent_; }

Q_SIGNALS:
    void openRequested();
    void sampleRequested();
    void recentRequested(const QString& path);

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslateUi();

    QLabel* title_;
    QLabel* tagline_;
    QPushButton* open_;
    QPushButton* sample_;
    QLabel* recentTitle_;
    QListWidget* recent_;
    QLabel* noRecent_;
    QLabel* dropHint_;
};

} // namespace tapas
