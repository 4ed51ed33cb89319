#include "views/welcome_view.h"

#include "views/text_style.h"

#include <QDir>
#include <QEvent>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QStyle>
#include <QVBoxLayout>

namespace tapas {

WelcomeView::WelcomeView(QWidget* parent)
    : QWidget(parent), title_(new QLabel), tagline_(new QLabel), open_(new QPushButton), sample_(new QPushButton),
      recentTitle_(new QLabel), recent_(new QListWidget), noRecent_(new QLabel), dropHint_(new QLabel)
{
    setObjectName(QStringLiteral("welcomeView"));
    open_->setObjectName(QStringLiteral("welcomeOpen"));
    sample_->setObjectName(QStringLiteral("welcomeSample"));
    recent_->setObjectName(QStringLiteral("welcomeRecent"));
    open_->setIcon(style()->standardIcon(QStyle::SP_DialogOpenButton));
    open_->setDefault(true);
    QFont big = title_->font();
    big.setPointSizeF(big.pointSizeF() * 1.8);
    big.setBold(true);
    title_->setFont(big);
    tagline_->setWordWrap(true);
    makeQuiet(tagline_);
    QFont bold = recentTitle_->font();
    bold.setBold(true);
    recentTitle_->setFont(bold);
    recent_->setFrameShape(QFrame::NoFrame);
    recent_->setTextElideMode(Qt::ElideMiddle);
    recent_->setSelectionMode(QAbstractItemView::SingleSelection);
    recent_->setCursor(Qt::PointingHandCursor);
    noRecent_->setWordWrap(true);
    makeQuiet(noRecent_);
    dropHint_->setWordWrap(true);
    makeQuiet(dropHint_);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(open_);
    buttons->addWidget(sample_);
    buttons->addStretch(1);

    // A column of readable width in the middle of whatever room the graph's place has.
    auto* column = new QWidget;
    column->setMaximumWidth(560);
    auto* c = new QVBoxLayout(column);
    c->setSpacing(10);
    c->addWidget(title_);
    c->addWidget(tagline_);
    c->addSpacing(8);
    c->addLayout(buttons);
    c->addSpacing(12);
    c->addWidget(recentTitle_);
    c->addWidget(recent_, 1);
    c->addWidget(noRecent_);
    c->addWidget(dropHint_);

    auto* outer = new QHBoxLayout(this);
    outer->addStretch(1);
    outer->addWidget(column, 3);
    outer->addStretch(1);

    connect(open_, &QPushButton::clicked, this, &WelcomeView::openRequested);
    connect(sample_, &QPushButton::clicked, this, &WelcomeView::sampleRequested);
    connect(recent_, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
        if (item->flags() & Qt::ItemIsEnabled) Q_EMIT recentRequested(item->data(Qt::UserRole).toString());
    });
    connect(recent_, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
        if (item->flags() & Qt::ItemIsEnabled) Q_EMIT recentRequested(item->data(Qt::UserRole).toString());
    });
    retranslateUi();
    setRecentFiles({});
}

void WelcomeView::setRecentFiles(const QStringList& paths)
{
    recent_->clear();
    for (const QString& path : paths) {
        const QFileInfo info(path);
        auto* item = new QListWidgetItem(style()->standardIcon(QStyle::SP_FileIcon),
                                         QStringLiteral("%1    %2").arg(info.fileName(),
                                                                       QDir::toNativeSeparators(info.absolutePath())),
                                         recent_);
        item->setData(Qt::UserRole, path);
        item->setToolTip(QDir::toNativeSeparators(path));
        if (!info.exists()) item->setFlags(item->flags() & ~Qt::ItemIsEnabled);
    }
    recent_->setVisible(!paths.isEmpty());
    noRecent_->setVisible(paths.isEmpty());
}

void WelcomeView::setSampleAvailable(bool available)
{
    sample_->setEnabled(available);
}

void WelcomeView::retranslateUi()
{
    title_->setText(tr("Tapas Studio"));
    tagline_->setText(tr("Open an ONNX model to see its graph with the repeated blocks folded, search a "
                         "sharding plan for a cluster, export it and train it."));
    open_->setText(tr("Open Model…"));
    open_->setToolTip(tr("Choose an ONNX model (%1)").arg(QKeySequence(QKeySequence::Open).toString(QKeySequence::NativeText)));
    sample_->setText(tr("Open the Sample GPT"));
    sample_->setToolTip(tr("A small GPT that ships with Tapas Studio"));
    recentTitle_->setText(tr("Recent models"));
    noRecent_->setText(tr("No recent models yet."));
    dropHint_->setText(tr("You can also drop a .onnx file on this window."));
}

void WelcomeView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange) retranslateUi();
    QWidget::changeEvent(event);
}

} // namespace tapas
