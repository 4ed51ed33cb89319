#pragma once
// How a block class looks and is called everywhere in the GUI (graph, Blocks dock, Inspector):
// repeated classes get letters in order of first appearance ("Block A", "Block B", ...) and a
// colour from a fixed colour-blind-safe palette; classes with one instance are the model's
// unique parts, drawn in neutral grey.
#include "core/fold/folded_graph.h"

#include <QColor>
#include <QString>

#include <vector>

namespace tapas {

class BlockStyle {
public:
    BlockStyle() = default;
    explicit BlockStyle(const FoldedGraph& folded);

    // "Block A" for the first repeated class; "Unique part" for a singleton class.
    QString name(int classId) const;
    // Strong colour for borders and swatches; neutral grey for singletons and unknown ids.
    QColor color(int classId) const;
    // The light tint boxes are filled with (text on it stays readable).
    QColor fill(int classId) const;
    bool repeated(int classId) const;
    int classCount() const { return int(letterIndex_.size()); }
    int instanceCount(int classId) const;
    // Block `chainIndex` of folded.chain in one short word: "A3" (the third instance of Block A)
    // or "U5" (a unique part, by its chain position from 1). `folded` is the graph this style was
    // made from. Per-block charts and the pipeline stages name blocks this way.
    QString chainLabel(const FoldedGraph& folded, int chainIndex) const;

    static QColor neutralColor();
    static QColor neutralFill();
    // The i-th palette colour (cycles): Okabe–Ito first, then Paul Tol's muted set.
    static QColor paletteColor(int i);
    static int paletteSize();
    // 0 -> "A", 25 -> "Z", 26 -> "AA".
    static QString letters(int index);

private:
    std::vector<int> letterIndex_; // by classId: index among repeated classes, or -1
    std::vector<int> instances_;   // by classId
};

} // namespace tapas
