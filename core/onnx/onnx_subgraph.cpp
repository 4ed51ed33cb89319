#include "core/onnx/onnx_subgraph.h"

#include "core/onnx/onnx_convert.h"

#include <mutex>
#include <string>
#include <unordered_map>

namespace tapas {

namespace {

// Bodies by their bytes: the cost model asks for a body at every evaluation of its node and the
// executor at every step, and converting is far dearer than a lookup. Bounded, so that opening
// model after model in the studio does not keep every body alive.
std::shared_ptr<const Graph> converted(const std::string& bytes)
{
    static std::mutex mutex;
    static std::unordered_map<std::string, std::shared_ptr<const Graph>> cache;
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = cache.find(bytes); it != cache.end()) return it->second;
    onnx::ModelProto m;
    if (!m.ParseFromString(bytes)) return nullptr;
    auto g = std::make_shared<const Graph>(onnximport::convertBody(m));
    if (cache.size() >= 512) cache.clear();
    cache.emplace(bytes, g);
    return g;
}

} // namespace

size_t formalInputs(const Node& n)
{
    for (const Attribute& a : n.attrs)
        if (a.kind == Attribute::Kind::Graph && a.i >= 0 && size_t(a.i) <= n.inputs.size()) return size_t(a.i);
    return n.inputs.size();
}

std::shared_ptr<const Graph> subgraphOf(const Node& n, std::string_view attr)
{
    const Attribute* a = n.attr(attr);
    if (!a || a->kind != Attribute::Kind::Graph || a->strings.empty()) return nullptr;
    return converted(a->strings.front());
}

std::vector<std::shared_ptr<const Graph>> subgraphsOf(const Node& n)
{
    std::vector<std::shared_ptr<const Graph>> out;
    for (const Attribute& a : n.attrs) {
        if (a.kind != Attribute::Kind::Graph) continue;
        for (const std::string& bytes : a.strings)
            if (auto g = converted(bytes)) out.push_back(std::move(g));
    }
    return out;
}

} // namespace tapas
