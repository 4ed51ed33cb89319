#pragma once
// The Model dock's content: the GraphView with its toolbar (fit, zoom, find, export), a find
// bar (Ctrl+F; Enter / Shift+Enter for next / previous, Esc to close), a notice line, and the
// layout's progress bar with Cancel. The main window only needs setModel() and the signals.
#include "views/graph/graph_view.h"

#include <QWidget>

class QAction;
class QLabel;
class QLineEdit;
class QProgressBar;
class QTimer;
class QToolBar;
class QToolButton;

namespace tapas {

class GraphPanel : public QWidget {
    Q_OBJECT
public:
    explicit GraphPanel(QWidget* parent = nullptr);

    GraphView* view() const { return view_; }
    void setModel(std::shared_ptr<const Graph> graph, std::shared_ptr<const FoldedGraph> folded);
    void clearModel();
    QLineEdit* findEdit() const { return findEdit_; }
    QString findStatus() const;
    QString noticeText() const;
    bool isNoticeVisible() const;
    QProgressBar* progressBar() const { return progress_; }
    // The row holding the bar, its label and Cancel: shown once a layout has run this long.
    QWidget* progressRow() const { return progressBar_; }
    static constexpr int kProgressDelayMs = 300;
    // The toolbar's actions, for the main window's menus to share (one shortcut, one text).
    QAction* fitAction() const { return fitAction_; }
    QAction* zoomInAction() const { return zoomInAction_; }
    QAction* zoomOutAction() const { return zoomOutAction_; }
    QAction* findAction() const { return findAction_; }
    QAction* expandAllAction() const { return expandAllAction_; }
    QAction* collapseAllAction() const { return collapseAllAction_; }
    // Shown instead of the graph (and its toolbar) while no model is open, e.g. a welcome page.
    void setPlaceholder(QWidget* placeholder);
    QWidget* placeholder() const { return placeholder_; }
    // A strip between the toolbar and the graph, e.g. the sharding legend: never over the
    // drawing, and the view gives up only the height the strip needs while it is shown.
    void addStrip(QWidget* strip);

public Q_SLOTS:
    void showFindBar();
    void hideFindBar();
    void findNext();
    void findPrevious();
    void exportImage(); // asks for a .png or .svg file name

Q_SIGNALS:
    void selectionChanged(const tapas::GraphSelection& selection);

protected:
    void changeEvent(QEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void retranslateUi();
    void showNotice(const QString& text);
    void updateFindStatus();
    void updateEmptyState();

    GraphView* view_;
    QToolBar* toolbar_;
    QAction* fitAction_;
    QAction* zoomInAction_;
    QAction* zoomOutAction_;
    QAction* expandAllAction_;
    QAction* collapseAllAction_;
    QAction* findAction_;
    QAction* exportAction_;
    QWidget* findBar_;
    QLineEdit* findEdit_;
    QToolButton* prevButton_;
    QToolButton* nextButton_;
    QLabel* findStatus_;
    QWidget* noticeBar_;
    QLabel* notice_;
    QWidget* progressBar_;
    QProgressBar* progress_;
    QLabel* progressLabel_;
    QToolButton* cancelButton_;
    QTimer* progressDelay_;
    QString findText_;
    QWidget* placeholder_ = nullptr;
};

} // namespace tapas
