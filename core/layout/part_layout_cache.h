#pragma once
// The inside of an expanded block is laid out once per class and reused by every instance:
// instances of one class have the same ops, shapes and wiring, so only their ids differ. The
// caller names each node of the part by a canonical id (a block member: its position in the
// instance; a port: its rank among the ports) and the class by a key; a later part of the same
// key whose canonical nodes, sizes and edges are the same gets the stored layout back with its
// own ids, without running a layout engine. Safe to share between threads.
#include "core/layout/graph_layout.h"

#include <map>
#include <mutex>
#include <utility>
#include <vector>

namespace tapas {

class PartLayoutCache {
public:
    // `canonical[i]` names `part.nodes[i]`; ids must be distinct (else the part is laid out
    // without the cache). The result carries `part`'s own ids, edges in `part.edges` order.
    Result<GraphLayout> layout(int key, const LayoutGraph& part, const std::vector<int>& canonical,
                               const LayoutOptions& options, const Progress& progress);
    void clear();
    int hits() const;
    int misses() const;

private:
    struct Entry {
        std::vector<std::pair<int, int>> edges;            // canonical, sorted
        std::vector<std::pair<int, std::pair<double, double>>> sizes; // canonical id -> size, sorted
        GraphLayout layout;                                // canonical ids
    };
    mutable std::mutex mutex_;
    std::map<int, Entry> entries_;
    int hits_ = 0;
    int misses_ = 0;
};

} // namespace tapas
