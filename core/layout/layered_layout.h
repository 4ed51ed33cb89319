#pragma once
// A layered (Sugiyama-style) layout of our own, for levels too big for dot to finish in time.
// Every step is linear or near-linear in the graph plus the dummy points of long edges:
//  - cycles broken by reversing the back edges of one depth-first search;
//  - ranks by longest path from the sources (sources then pulled down next to their first
//    reader, so a graph input sits above what reads it rather than at the very top);
//  - long edges split into one dummy point per rank they cross (capped: past the cap an edge
//    is drawn straight rather than growing the graph without bound);
//  - a fixed number of barycentre sweeps against crossings;
//  - x by isotonic regression per rank (each box as near the mean of its neighbours as the
//    order and the spacing allow), a fixed number of rounds.
// It checks `progress` for cancel between every sweep and every few thousand nodes, so a
// cancel is honoured within milliseconds whatever the graph's size. Clusters are not kept
// together (the callers lay out an expanded part on its own instead); rank hints are honoured.
#include "core/layout/graph_layout.h"

namespace tapas {

Result<GraphLayout> layoutLayered(const LayoutGraph& graph, const LayoutOptions& options = {},
                                  const Progress& progress = {});

} // namespace tapas
