#pragma once
// What the graph view draws for a model, a fold and the set of instances the user expanded:
// boxes (ops, collapsed block instances, graph inputs/outputs) and the edges between them,
// sized for the layout engine.
//
// A repeated block is drawn as ONE BOX PER INSTANCE, not as one stacked box with a ×N badge.
// Why: the instances of a class are rarely contiguous in the picture that matters (an
// encoder–decoder interleaves cross-attention reads of the encoder output into every decoder
// layer; a ResNet stage's first block differs from the rest), and a stack would hide exactly
// those edges. One box per instance keeps the data flow and the model's depth readable, lets
// the user expand "layer 7" and nothing else, and gives every search hit a concrete place.
// Each box carries its position ("3/12"); the ×N count lives in the Blocks dock and the
// box's tooltip. 96 layers are 96 boxes: far below what dot and the scene handle in seconds.
//
// A level never holds more than a few hundred boxes: when the ops of the parts that do not
// repeat would push the folded picture past levelBoxLimit, each such part (a block of the fold's
// chain, at most ~200 nodes: the fold cuts long unique stretches) becomes one grey box too,
// "Section 7" (not "part": the Blocks dock's parts are the pieces of one block), expanded like
// any block. Swin-T opens with its chain of 29 blocks rather than 1,481 boxes (dot: 20 s).
//
// A class of more than kSectionSize instances (a GPT of 800 layers) is drawn as sections of
// kSectionSize consecutive instances, "Block A · 101–200/800", each expanded like a block into
// its instances' boxes (Model Explorer splits a group of more than 1,000 children the same
// way): the opening picture stays a few dozen boxes whatever the depth.
//
// Constant nodes are not drawn: exporters emit one per Reshape target or scalar, and drawing
// them doubles the picture without adding structure. The Inspector lists them as inputs.
#include "core/fold/folded_graph.h"
#include "core/ir/graph.h"
#include "core/layout/graph_layout.h"
#include "core/util/progress.h"
#include "views/graph/block_style.h"

#include <QColor>
#include <QFont>
#include <QString>

#include <compare>
#include <set>
#include <unordered_map>
#include <vector>

namespace tapas {

// A block instance, or a section of a long run of one class's instances (keyed like an
// instance, with instance -2 - its index, so that one expand/collapse path serves both).
struct InstanceKey {
    int classId = -1;
    int instance = -1;
    auto operator<=>(const InstanceKey&) const = default;
    static InstanceKey section(int classId, int index) { return {classId, -2 - index}; }
    bool isSection() const { return instance <= -2; }
    int sectionIndex() const { return -2 - instance; }
};
using ExpandedSet = std::set<InstanceKey>;

struct VisualItem {
    enum class Kind { Op, Block, Input, Output };
    Kind kind = Kind::Op;
    int id = 0;                  // layout id; stable for one graph + fold whatever is expanded
    NodeId node = kNoNode;       // Op
    TensorId tensor = kNoTensor; // Input / Output
    int classId = -1;            // Block, and Op (its class; -1 without a fold)
    int instance = -1;
    int position = -1;           // Op with a fold: its position in its block instance
    bool inExpandedInstance = false; // an Op drawn because its repeated instance is expanded
    int section = -1;            // drawn because this section of its class is expanded (its
                                 // instance boxes, and the ops of those expanded), else -1
    QString title;               // "MatMul", "Block A · 3/12", "input_ids"
    QString detail;              // "[batch,seq,768]", "14 ops · 7.1M params"
    QString tooltip;
    QColor border;
    QColor fill;
    double width = 0;
    double height = 0;
};

struct VisualEdge {
    int src = 0;
    int dst = 0;
    std::vector<TensorId> tensors; // every tensor flowing from src to dst
    QString tooltip;               // "name: float32 [batch,seq,768]" per tensor
};

// A part to lay out on its own and the edges that tie it to the rest (core/layout's input
// for an incremental expand or collapse).
struct LayoutDelta {
    int boxId = -1;                    // the collapsed box's item id
    std::vector<int> memberIds;        // the expanded instance's item ids
    std::vector<int> positions;        // per part node: its position in the block instance
    LayoutGraph part;                  // the members and the edges among them
    std::vector<LayoutEdge> boundary;  // edges between the part and the rest
    std::vector<LayoutEdge> boxBoundary; // edges between the box and the rest
    int cluster = -1;
};

class GraphPresentation {
public:
    static constexpr int kDefaultItemLimit = 3000;
    static constexpr int kDefaultLevelBoxLimit = 250;
    static constexpr int kSectionSize = 100;

    GraphPresentation() = default;
    // `folded` may be null (everything unique). `font` is the base font the scene draws with.
    GraphPresentation(const Graph& graph, const FoldedGraph* folded, const ExpandedSet& expanded,
                      const QFont& font = QFont(), int levelBoxLimit = kDefaultLevelBoxLimit,
                      const Progress& progress = {});

    const std::vector<VisualItem>& items() const { return items_; }
    const std::vector<VisualEdge>& edges() const { return edges_; }
    const VisualItem* item(int id) const;
    // The item that shows node `n` right now (an op or the box of its collapsed instance), or
    // -1 when the node is not drawn (Constant).
    int itemOfNode(NodeId n) const;
    // The id a collapsed instance's or section's box has (whether or not it is drawn now), or
    // -1 for a key the fold does not have.
    int blockItemId(InstanceKey k) const;
    // Whether a class is drawn in sections, and the section holding instance `i` (-1: none).
    bool sectioned(int classId) const;
    int sectionOf(int classId, int instance) const;
    int sectionCount(int classId) const;
    // The instances [first, end) of a section key.
    std::pair<int, int> sectionRange(InstanceKey section) const;
    bool isExpanded(InstanceKey k) const { return expanded_.count(k) > 0; }
    const ExpandedSet& expanded() const { return expanded_; }
    const BlockStyle& style() const { return style_; }
    // Whether a class's instances are drawn as boxes while collapsed: every repeated class, and
    // the unique parts when they are boxed (see above).
    bool boxed(int classId) const;
    bool boxesUniqueParts() const { return boxUnique_; }
    // "Block A · 3/12", or "Section 7" for a boxed unique part: the box's title and the frame's caption.
    QString instanceTitle(InstanceKey k) const;
    // Whether a node is drawn at all (Constant nodes are not).
    static bool isDrawn(const Node& n);
    // Items the picture would have with every instance expanded.
    static int expandedItemCount(const Graph& graph);

    LayoutGraph layoutGraph() const;
    // `expanded` is this presentation with `k` expanded, `this` with it collapsed. The delta
    // names the box that goes and the part that replaces it (or the reverse).
    static LayoutDelta delta(const GraphPresentation& collapsed, const GraphPresentation& expanded, InstanceKey k);

    static QFont titleFont(const QFont& base);
    static QFont detailFont(const QFont& base);

private:
    void addItem(VisualItem item);
    bool buildOps(const Graph& g, const FoldedGraph* folded, const QFont& font, const Progress& progress);
    void buildBlocks(const Graph& g, const FoldedGraph& folded, const QFont& font);
    void buildTerminals(const Graph& g, const QFont& font);
    void buildEdges(const Graph& g, const Progress& progress);
    int instanceIndex(InstanceKey k) const;
    // A layout cluster id for an instance or a section, distinct across both.
    int clusterOf(InstanceKey k) const;
    // Drawn at all right now: its class is not sectioned or its section is expanded.
    bool instanceShown(int classId, int instance) const;
    void decideUniqueBoxes(const Graph& g, const FoldedGraph& folded, int levelBoxLimit);

    std::vector<VisualItem> items_;
    std::vector<VisualEdge> edges_;
    std::unordered_map<int, size_t> byId_;
    std::vector<int> nodeItem_;          // NodeId -> item id or -1
    std::vector<int> instanceBase_;      // classId -> flat index of its first instance
    std::vector<int> sectionBase_;       // classId -> flat index of its first section
    int nodeCount_ = 0;
    int instanceCount_ = 0;
    int terminalCount_ = 0;              // graph inputs and outputs
    int sectionTotal_ = 0;
    ExpandedSet expanded_;
    BlockStyle style_;
    bool boxUnique_ = false;
    std::vector<int> partNumber_;        // classId -> 1-based number of a boxed unique part, or 0
};

} // namespace tapas
