#include "views/graph/block_style.h"

#include <QCoreApplication>

#include <array>

namespace tapas {

namespace {

// Okabe & Ito (2008), the palette designed to stay distinct under the common colour-vision
// deficiencies, without its black; then Paul Tol's "muted" scheme for models with more than
// seven repeated classes.
constexpr std::array<QRgb, 16> kPalette = {
    0xE69F00, 0x56B4E9, 0x009E73, 0xF0E442, 0x0072B2, 0xD55E00, 0xCC79A7,
    0x332288, 0x88CCEE, 0x44AA99, 0x117733, 0x999933, 0xDDCC77, 0xCC6677, 0x882255, 0xAA4499};

QColor tint(QColor c, double amount)
{
    return QColor::fromRgbF(float(c.redF() + (1 - c.redF()) * amount), float(c.greenF() + (1 - c.greenF()) * amount),
                            float(c.blueF() + (1 - c.blueF()) * amount));
}

} // namespace

BlockStyle::BlockStyle(const FoldedGraph& folded)
{
    letterIndex_.assign(folded.classes.size(), -1);
    int next = 0;
    for (size_t i = 0; i < folded.classes.size(); ++i) {
        if (folded.classes[i].repeated()) letterIndex_[i] = next++;
        instances_.push_back(int(folded.classes[i].instances.size()));
    }
}

int BlockStyle::instanceCount(int classId) const
{
    return classId >= 0 && size_t(classId) < instances_.size() ? instances_[size_t(classId)] : 0;
}

QString BlockStyle::chainLabel(const FoldedGraph& folded, int chainIndex) const
{
    if (chainIndex < 0 || size_t(chainIndex) >= folded.chain.size()) return {};
    const BlockRef& ref = folded.chain[size_t(chainIndex)];
    if (!repeated(ref.classId)) return QCoreApplication::translate("tapas::BlockStyle", "U%1").arg(chainIndex + 1);
    return letters(letterIndex_[size_t(ref.classId)]) + QString::number(ref.instance + 1);
}

QString BlockStyle::letters(int index)
{
    QString s;
    for (int i = index; i >= 0; i = i / 26 - 1) s.prepend(QChar(u'A' + i % 26));
    return s;
}

QString BlockStyle::name(int classId) const
{
    if (!repeated(classId)) return QCoreApplication::translate("tapas::BlockStyle", "Unique part");
    return QCoreApplication::translate("tapas::BlockStyle", "Block %1").arg(letters(letterIndex_[size_t(classId)]));
}

bool BlockStyle::repeated(int classId) const
{
    return classId >= 0 && size_t(classId) < letterIndex_.size() && letterIndex_[size_t(classId)] >= 0;
}

QColor BlockStyle::color(int classId) const
{
    return repeated(classId) ? paletteColor(letterIndex_[size_t(classId)]) : neutralColor();
}

QColor BlockStyle::fill(int classId) const
{
    return repeated(classId) ? tint(color(classId), 0.72) : neutralFill();
}

QColor BlockStyle::neutralColor() { return QColor(0x8C, 0x8C, 0x8C); }
QColor BlockStyle::neutralFill() { return QColor(0xF0, 0xF0, 0xF0); }
int BlockStyle::paletteSize() { return int(kPalette.size()); }

QColor BlockStyle::paletteColor(int i)
{
    return QColor::fromRgb(kPalette[size_t(i) % kPalette.size()]);
}

} // namespace tapas
