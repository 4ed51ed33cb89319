#include "views/log_view.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QEvent>
#include <QHeaderView>
#include <QScrollBar>
#include <QTreeView>
#include <QVBoxLayout>

namespace tapas {

LogView::LogView(QWidget* parent)
    : QWidget(parent), model_(new LogModel(this)), view_(new QTreeView(this)),
      clearAction_(new QAction(this)), copyAction_(new QAction(this))
{
    view_->setModel(model_);
    view_->setRootIsDecorated(false);
    view_->setUniformRowHeights(true);
    view_->setAlternatingRowColors(true);
    view_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    view_->setTextElideMode(Qt::ElideRight);
    view_->header()->setStretchLastSection(true);
    view_->header()->setSectionResizeMode(LogModel::Time, QHeaderView::ResizeToContents);
    view_->header()->setSectionResizeMode(LogModel::SeverityColumn, QHeaderView::ResizeToContents);
    view_->setContextMenuPolicy(Qt::ActionsContextMenu);
    view_->addAction(copyAction_);
    view_->addAction(clearAction_);

    connect(clearAction_, &QAction::triggered, model_, &LogModel::clear);
    connect(copyAction_, &QAction::triggered, this, [this] {
        QStringList lines;
        const QModelIndexList rows = view_->selectionModel()->selectedRows();
        for (const QModelIndex& r : rows) {
            const LogModel::Entry& e = model_->entries()[size_t(r.row())];
            lines << QStringLiteral("%1 %2 %3").arg(e.time.toString(Qt::ISODateWithMs),
                                                   LogModel::severityName(e.severity), e.message);
        }
        QApplication::clipboard()->setText(lines.join(QLatin1Char('\n')));
    });

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(view_);
    retranslateUi();
}

void LogView::add(LogSeverity severity, const QString& message)
{
    // Follow the tail only when the user has not scrolled up to read something.
    QScrollBar* bar = view_->verticalScrollBar();
    const bool atEnd = bar->value() == bar->maximum();
    model_->append(severity, message);
    if (atEnd) view_->scrollToBottom();
}

void LogView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange) retranslateUi();
    QWidget::changeEvent(event);
}

void LogView::retranslateUi()
{
    clearAction_->setText(tr("Clear Log"));
    copyAction_->setText(tr("Copy"));
    model_->retranslate();
}

} // namespace tapas
