#pragma once
// A QLabel that never clips: text wider than the label is elided with "…" and the whole text
// goes into the tooltip. For one-line values in narrow places (summary cards, chart captions).
#include <QLabel>

namespace tapas {

class ElidedLabel : public QLabel {
    Q_OBJECT
public:
    explicit ElidedLabel(QWidget* parent = nullptr);

    void setFullText(const QString& text);
    QString fullText() const { return full_; }
    // A tooltip shown beside the full text when the text is elided (or alone when it is not).
    void setExtraToolTip(const QString& tip);
    bool isElided() const { return text() != full_; }

    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

protected:
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void updateText();

    QString full_;
    QString extraTip_;
};

} // namespace tapas
