#pragma once
// Find in the graph (Ctrl+F): nodes whose name, op type or an output tensor's shape contains
// the text, case-insensitively ("matmul", "attn/", "768", "[batch,seq,3072]"), in graph order,
// with next/previous that wrap. The view centres and selects the current hit, expanding its
// block when it is folded away.
#include "core/ir/graph.h"

#include <QObject>
#include <QString>

#include <memory>
#include <vector>

namespace tapas {

class GraphSearch : public QObject {
    Q_OBJECT
public:
    explicit GraphSearch(QObject* parent = nullptr);

    void setGraph(std::shared_ptr<const Graph> graph);
    // Runs the search; returns the number of hits. The current hit is reset (next() goes to the first).
    int find(const QString& text);
    void clear();
    const std::vector<NodeId>& hits() const { return hits_; }
    int currentIndex() const { return current_; }
    NodeId currentNode() const { return current_ >= 0 ? hits_[size_t(current_)] : kNoNode; }
    QString text() const { return text_; }

    // Move to the next/previous hit (wrapping) and announce it; kNoNode when there are none.
    NodeId next();
    NodeId previous();

    static bool matches(const Graph& g, const Node& n, const QString& text);

Q_SIGNALS:
    void hitsChanged(int count);
    // index is 0-based; count the number of hits.
    void currentChanged(tapas::NodeId node, int index, int count);

private:
    NodeId moveTo(int index);

    std::shared_ptr<const Graph> graph_;
    std::vector<NodeId> hits_;
    int current_ = -1;
    QString text_;
};

} // namespace tapas
