#include "views/graph/graph_search.h"

#include "views/graph/graph_presentation.h"

namespace tapas {

namespace {

// Shapes print as "[batch,seq,768]"; let "batch, seq, 768" find them too.
QString withoutSpaces(QString s)
{
    s.remove(QLatin1Char(' '));
    return s;
}

} // namespace

GraphSearch::GraphSearch(QObject* parent) : QObject(parent) {}

void GraphSearch::setGraph(std::shared_ptr<const Graph> graph)
{
    graph_ = std::move(graph);
    clear();
}

void GraphSearch::clear()
{
    const bool had = !hits_.empty();
    hits_.clear();
    current_ = -1;
    text_.clear();
    if (had) Q_EMIT hitsChanged(0);
}

bool GraphSearch::matches(const Graph& g, const Node& n, const QString& text)
{
    const QString needle = text.trimmed();
    if (needle.isEmpty()) return false;
    if (QString::fromStdString(n.name).contains(needle, Qt::CaseInsensitive)) return true;
    if (QString::fromStdString(n.opType).contains(needle, Qt::CaseInsensitive)) return true;
    const QString shapeNeedle = withoutSpaces(needle);
    for (TensorId t : n.outputs) {
        if (t == kNoTensor) continue;
        if (QString::fromStdString(g.tensor(t).shape.toString()).contains(shapeNeedle, Qt::CaseInsensitive))
            return true;
    }
    return false;
}

int GraphSearch::find(const QString& text)
{
    hits_.clear();
    current_ = -1;
    text_ = text;
    if (graph_) {
        for (NodeId id = 0; id < NodeId(graph_->nodes.size()); ++id) {
            const Node& n = graph_->node(id);
            // Hidden nodes (Constant) have no place on screen to take the user to.
            if (GraphPresentation::isDrawn(n) && matches(*graph_, n, text)) hits_.push_back(id);
        }
    }
    Q_EMIT hitsChanged(int(hits_.size()));
    return int(hits_.size());
}

NodeId GraphSearch::moveTo(int index)
{
    if (hits_.empty()) return kNoNode;
    const int n = int(hits_.size());
    current_ = ((index % n) + n) % n;
    Q_EMIT currentChanged(hits_[size_t(current_)], current_, n);
    return hits_[size_t(current_)];
}

NodeId GraphSearch::next()
{
    return moveTo(current_ + 1);
}

NodeId GraphSearch::previous()
{
    return moveTo(current_ < 0 ? -1 : current_ - 1);
}

} // namespace tapas
