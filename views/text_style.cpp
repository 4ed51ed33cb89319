#include "views/text_style.h"

#include <QLabel>
#include <QPalette>

namespace tapas {

void makeQuiet(QLabel* label)
{
    QPalette p = label->palette();
    QColor c = p.color(QPalette::WindowText);
    c.setAlphaF(0.62f);
    p.setColor(QPalette::WindowText, c);
    label->setPalette(p);
}

} // namespace tapas
