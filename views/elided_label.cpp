#include "views/elided_label.h"

#include <QEvent>
#include <QResizeEvent>

namespace tapas {

ElidedLabel::ElidedLabel(QWidget* parent) : QLabel(parent)
{
    setTextFormat(Qt::PlainText);
    setWordWrap(false);
}

void ElidedLabel::setFullText(const QString& text)
{
    full_ = text;
    updateGeometry();
    updateText();
}

void ElidedLabel::setExtraToolTip(const QString& tip)
{
    extraTip_ = tip;
    updateText();
}

QSize ElidedLabel::minimumSizeHint() const
{
    // Narrow enough for the layout to shrink it; the text elides instead of widening the window.
    const QSize full = QLabel::minimumSizeHint();
    return {fontMetrics().horizontalAdvance(QStringLiteral("M…")) + contentsMargins().left() + contentsMargins().right(),
            full.height()};
}

QSize ElidedLabel::sizeHint() const
{
    const QMargins m = contentsMargins();
    return {fontMetrics().horizontalAdvance(full_) + m.left() + m.right() + 2, QLabel::sizeHint().height()};
}

void ElidedLabel::resizeEvent(QResizeEvent* event)
{
    QLabel::resizeEvent(event);
    updateText();
}

void ElidedLabel::changeEvent(QEvent* event)
{
    QLabel::changeEvent(event);
    if (event->type() == QEvent::FontChange) updateText();
}

void ElidedLabel::updateText()
{
    const int room = contentsRect().width();
    const QString shown = fontMetrics().horizontalAdvance(full_) <= room
        ? full_ : fontMetrics().elidedText(full_, Qt::ElideRight, room);
    if (text() != shown) QLabel::setText(shown);
    QStringList tip;
    if (shown != full_) tip << full_;
    if (!extraTip_.isEmpty()) tip << extraTip_;
    setToolTip(tip.join(QLatin1Char('\n')));
}

} // namespace tapas
