#include "views/graph/graph_panel.h"

#include "views/background_job.h"
#include "views/graph/graph_scene.h"
#include "views/graph/graph_search.h"

#include <QAction>
#include <QEvent>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProgressBar>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

namespace tapas {

GraphPanel::GraphPanel(QWidget* parent) : QWidget(parent), view_(new GraphView(this)), toolbar_(new QToolBar(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);

    fitAction_ = toolbar_->addAction(QString(), view_, &GraphView::fitToWindow);
    zoomInAction_ = toolbar_->addAction(QString(), view_, &GraphView::zoomIn);
    zoomOutAction_ = toolbar_->addAction(QString(), view_, &GraphView::zoomOut);
    // The keys the tooltips name work wherever the focus is in the window (a text field keeps
    // its own + and -), not only while the graph has the focus.
    fitAction_->setShortcut(QKeySequence(Qt::Key_0));
    zoomInAction_->setShortcuts({QKeySequence(Qt::Key_Plus), QKeySequence(Qt::Key_Equal), QKeySequence::ZoomIn});
    zoomOutAction_->setShortcuts({QKeySequence(Qt::Key_Minus), QKeySequence::ZoomOut});
    toolbar_->addSeparator();
    expandAllAction_ = toolbar_->addAction(QString(), view_, &GraphView::expandAll);
    collapseAllAction_ = toolbar_->addAction(QString(), view_, &GraphView::collapseAll);
    toolbar_->addSeparator();
    findAction_ = toolbar_->addAction(QString(), this, &GraphPanel::showFindBar);
    findAction_->setShortcut(QKeySequence::Find);
    findAction_->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    exportAction_ = toolbar_->addAction(QString(), this, &GraphPanel::exportImage);
    layout->addWidget(toolbar_);

    findBar_ = new QWidget(this);
    auto* fl = new QHBoxLayout(findBar_);
    fl->setContentsMargins(4, 0, 4, 0);
    findEdit_ = new QLineEdit(findBar_);
    findEdit_->setClearButtonEnabled(true);
    findEdit_->installEventFilter(this);
    prevButton_ = new QToolButton(findBar_);
    nextButton_ = new QToolButton(findBar_);
    prevButton_->setArrowType(Qt::UpArrow);
    nextButton_->setArrowType(Qt::DownArrow);
    findStatus_ = new QLabel(findBar_);
    fl->addWidget(findEdit_, 1);
    fl->addWidget(prevButton_);
    fl->addWidget(nextButton_);
    fl->addWidget(findStatus_);
    findBar_->hide();
    layout->addWidget(findBar_);
    connect(findEdit_, &QLineEdit::returnPressed, this, &GraphPanel::findNext);
    connect(prevButton_, &QToolButton::clicked, this, &GraphPanel::findPrevious);
    connect(nextButton_, &QToolButton::clicked, this, &GraphPanel::findNext);
    connect(view_->search(), &GraphSearch::currentChanged, this, &GraphPanel::updateFindStatus);
    connect(view_->search(), &GraphSearch::hitsChanged, this, &GraphPanel::updateFindStatus);

    noticeBar_ = new QWidget(this);
    auto* nl = new QHBoxLayout(noticeBar_);
    nl->setContentsMargins(6, 2, 4, 2);
    notice_ = new QLabel(noticeBar_);
    notice_->setWordWrap(true);
    auto* closeNotice = new QToolButton(noticeBar_);
    closeNotice->setText(QStringLiteral("×"));
    closeNotice->setAutoRaise(true);
    nl->addWidget(notice_, 1);
    nl->addWidget(closeNotice);
    noticeBar_->setStyleSheet(QStringLiteral("background:#FFF4CE;"));
    noticeBar_->hide();
    layout->addWidget(noticeBar_);
    connect(closeNotice, &QToolButton::clicked, noticeBar_, &QWidget::hide);
    connect(view_, &GraphView::notice, this, &GraphPanel::showNotice);

    layout->addWidget(view_, 1);

    progressBar_ = new QWidget(this);
    auto* pl = new QHBoxLayout(progressBar_);
    pl->setContentsMargins(4, 0, 4, 2);
    progressLabel_ = new QLabel(progressBar_);
    progress_ = new QProgressBar(progressBar_);
    progress_->setRange(0, 1000);
    progress_->setTextVisible(false);
    cancelButton_ = new QToolButton(progressBar_);
    pl->addWidget(progressLabel_);
    pl->addWidget(progress_, 1);
    pl->addWidget(cancelButton_);
    progressBar_->hide();
    layout->addWidget(progressBar_);
    connect(cancelButton_, &QToolButton::clicked, view_, &GraphView::cancelLayout);
    connect(view_->layoutJob(), &BackgroundJob::started, this, [this](const QString& what) {
        progressLabel_->setText(what);
        progress_->setValue(0);
    });
    connect(view_->layoutJob(), &BackgroundJob::progressChanged, this, [this](int permille, const QString&) {
        progress_->setValue(permille);
    });
    // The bar (and its Cancel) appears only for a layout that takes a while: an expand that is
    // done in a few dozen milliseconds would flash it, and showing and hiding it resizes the
    // view, which repaints the whole graph twice more on the GUI thread.
    progressDelay_ = new QTimer(this);
    progressDelay_->setSingleShot(true);
    progressDelay_->setInterval(kProgressDelayMs);
    connect(progressDelay_, &QTimer::timeout, this, [this] { progressBar_->setVisible(view_->isBusy()); });
    connect(view_, &GraphView::busyChanged, this, [this](bool busy) {
        if (busy) {
            progressDelay_->start();
        } else {
            progressDelay_->stop();
            progressBar_->hide();
        }
    });
    connect(view_, &GraphView::selectionChanged, this, &GraphPanel::selectionChanged);
    retranslateUi();
}

void GraphPanel::retranslateUi()
{
    fitAction_->setText(tr("Fit"));
    fitAction_->setToolTip(tr("Fit the graph to the window (0)"));
    zoomInAction_->setText(tr("Zoom in"));
    zoomInAction_->setToolTip(tr("Zoom in (+)"));
    zoomOutAction_->setText(tr("Zoom out"));
    zoomOutAction_->setToolTip(tr("Zoom out (-)"));
    expandAllAction_->setText(tr("Expand all"));
    expandAllAction_->setToolTip(tr("Expand every folded block of the picture (as many as stay within the drawing limit)"));
    collapseAllAction_->setText(tr("Collapse all"));
    collapseAllAction_->setToolTip(tr("Fold every expanded block back into its box"));
    findAction_->setText(tr("Find"));
    findAction_->setToolTip(tr("Find a node by name, op type or tensor shape (%1)")
                                .arg(QKeySequence(QKeySequence::Find).toString(QKeySequence::NativeText)));
    exportAction_->setText(tr("Export…"));
    exportAction_->setToolTip(tr("Export the graph as PNG or SVG"));
    findEdit_->setPlaceholderText(tr("Node name, op type or shape, e.g. MatMul or [batch,seq,768]"));
    prevButton_->setToolTip(tr("Previous match (Shift+Enter)"));
    nextButton_->setToolTip(tr("Next match (Enter)"));
    cancelButton_->setText(tr("Cancel"));
    updateFindStatus();
}

void GraphPanel::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange) retranslateUi();
    QWidget::changeEvent(event);
}

bool GraphPanel::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == findEdit_ && event->type() == QEvent::KeyPress) {
        auto* key = static_cast<QKeyEvent*>(event);
        if (key->key() == Qt::Key_Escape) {
            hideFindBar();
            return true;
        }
        if ((key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) && (key->modifiers() & Qt::ShiftModifier)) {
            findPrevious();
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void GraphPanel::setModel(std::shared_ptr<const Graph> graph, std::shared_ptr<const FoldedGraph> folded)
{
    noticeBar_->hide();
    findText_.clear();
    view_->setModel(std::move(graph), std::move(folded));
    updateFindStatus();
    updateEmptyState();
}

void GraphPanel::clearModel()
{
    noticeBar_->hide();
    findText_.clear();
    view_->clearModel();
    updateFindStatus();
    updateEmptyState();
}

void GraphPanel::setPlaceholder(QWidget* placeholder)
{
    placeholder_ = placeholder;
    placeholder_->setParent(this);
    static_cast<QVBoxLayout*>(layout())->insertWidget(0, placeholder_, 1);
    updateEmptyState();
}

void GraphPanel::addStrip(QWidget* strip)
{
    auto* l = static_cast<QVBoxLayout*>(layout());
    strip->setParent(this);
    l->insertWidget(l->indexOf(view_), strip);
}

void GraphPanel::updateEmptyState()
{
    if (!placeholder_) return;
    const bool empty = !view_->hasModel();
    placeholder_->setVisible(empty);
    toolbar_->setVisible(!empty);
    view_->setVisible(!empty);
}

void GraphPanel::showFindBar()
{
    findBar_->show();
    findEdit_->setFocus();
    findEdit_->selectAll();
}

void GraphPanel::hideFindBar()
{
    findBar_->hide();
    view_->graphScene()->setHitItem(-1);
    view_->setFocus();
}

void GraphPanel::findNext()
{
    if (findEdit_->text() != findText_) {
        findText_ = findEdit_->text();
        view_->search()->find(findText_);
    }
    view_->search()->next();
    updateFindStatus();
}

void GraphPanel::findPrevious()
{
    if (findEdit_->text() != findText_) {
        findText_ = findEdit_->text();
        view_->search()->find(findText_);
    }
    view_->search()->previous();
    updateFindStatus();
}

QString GraphPanel::findStatus() const
{
    return findStatus_->text();
}

void GraphPanel::updateFindStatus()
{
    const GraphSearch* s = view_->search();
    if (s->text().isEmpty()) findStatus_->clear();
    else if (s->hits().empty()) findStatus_->setText(tr("no matches"));
    else if (s->currentIndex() < 0) findStatus_->setText(tr("%n match(es)", nullptr, int(s->hits().size())));
    else findStatus_->setText(tr("%1 of %2").arg(s->currentIndex() + 1).arg(s->hits().size()));
}

void GraphPanel::showNotice(const QString& text)
{
    notice_->setText(text);
    noticeBar_->show();
}

QString GraphPanel::noticeText() const
{
    return notice_->text();
}

bool GraphPanel::isNoticeVisible() const
{
    return !noticeBar_->isHidden();
}

void GraphPanel::exportImage()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export graph"), QString(),
                                                      tr("PNG image (*.png);;SVG drawing (*.svg)"));
    if (path.isEmpty()) return;
    QString error;
    const bool ok = path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive) ? view_->exportSvg(path, &error)
                                                                              : view_->exportPng(path, &error);
    if (!ok) QMessageBox::warning(this, tr("Export graph"), error);
}

} // namespace tapas
