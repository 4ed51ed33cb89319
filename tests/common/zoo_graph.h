#pragma once
// A zoo model imported for a test, its options in one expression:
// testing::zooGraphOf("gpt", {.layers = 2, .hidden = 64, .heads = 2}). A zoo that cannot build or
// import the model stops the suite with the zoo's message: every case after it would need it.
#include "core/zoo/zoo.h"

#include <QtGlobal>

#include <string>
#include <utility>

namespace tapas::testing {

inline Graph zooGraphOf(const std::string& name, const ZooOptions& options)
{
    Result<Graph> g = zooGraph(name, options);
    if (!g) qFatal("zoo %s: %s", name.c_str(), g.error().c_str());
    return std::move(g).value();
}

} // namespace tapas::testing
