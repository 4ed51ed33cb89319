// The executor's kernel table: one torch kernel family per core op family, registered here in
// one place, and the helpers the family files share. Semantics follow the ONNX operator docs
// for opset 13+.
#include "runtime/exec/kernels/kernel_table.h"

#include "core/ops/op_registry.h"
#include "core/ops/worker_support.h"

#include <algorithm>
#include <stdexcept>

namespace tapas::runtime {

using torch::Tensor;

torch::ScalarType torchType(DType t)
{
    switch (t) {
    case DType::Bool: return torch::kBool;
    case DType::Int8: return torch::kInt8;
    case DType::UInt8: return torch::kUInt8;
    case DType::Int16: return torch::kInt16;
    case DType::Int32: return torch::kInt32;
    case DType::Int64:
    case DType::UInt16:
    case DType::UInt32:
    case DType::UInt64: return torch::kLong;
    default: return torch::kFloat32;
    }
}

Tensor constTensor(const ConstValue& v)
{
    const std::vector<int64_t> shape = v.shape.isFullyKnown() ? v.shape.knownDims() : std::vector<int64_t>{};
    Tensor t;
    if (v.isInteger()) t = torch::tensor(v.ints.empty() ? std::vector<int64_t>{} : v.ints, torch::kLong);
    else {
        std::vector<float> f(v.floats.begin(), v.floats.end());
        t = torch::tensor(f, torch::kFloat32);
    }
    return t.reshape(shape).to(torchType(v.dtype));
}

namespace kernels {

void fail(const KernelCall& c, const std::string& why)
{
    throw std::runtime_error("node '" + c.node.name + "' (" + c.node.opType + "): " + why);
}

const Tensor& in(const KernelCall& c, size_t i)
{
    if (i >= c.in.size() || !c.in[i].defined()) fail(c, "input " + std::to_string(i) + " is missing");
    return c.in[i];
}

bool has(const KernelCall& c, size_t i) { return i < c.in.size() && c.in[i].defined(); }

std::vector<int64_t> ints(const Tensor& t)
{
    Tensor l = t.to(torch::kLong).contiguous().reshape({-1});
    return std::vector<int64_t>(l.data_ptr<int64_t>(), l.data_ptr<int64_t>() + l.numel());
}

std::vector<int64_t> outShape(const KernelCall& c, size_t o, const std::function<std::vector<int64_t>()>& fallback)
{
    if (o < c.outShapes.size() && c.outShapes[o]) return *c.outShapes[o];
    return fallback();
}

std::vector<int64_t> axesOf(const KernelCall& c, size_t inputIndex)
{
    if (has(c, inputIndex)) return ints(c.in[inputIndex]);
    return c.node.attrInts("axes");
}

Kernel unary(Tensor (*f)(const Tensor&))
{
    return [f](const KernelCall& c) { return one(f(in(c, 0))); };
}

} // namespace kernels

void KernelTable::add(const std::string& opType, Kernel kernel)
{
    KernelEntry info{opType, family_, true, {}};
    if (entries_.count(opType)) {
        duplicates_.push_back(std::move(info));
        return;
    }
    entries_.emplace(opType, Entry{std::move(info), std::move(kernel)});
}

void KernelTable::notRun(std::initializer_list<const char*> opTypes, const std::string& why)
{
    for (const char* op : opTypes) {
        KernelEntry info{op, family_, false, why};
        if (entries_.count(op)) duplicates_.push_back(std::move(info));
        else entries_.emplace(op, Entry{std::move(info), {}});
    }
}

const Kernel* KernelTable::find(std::string_view opType) const
{
    auto it = entries_.find(std::string(opType));
    return it == entries_.end() || !it->second.kernel ? nullptr : &it->second.kernel;
}

std::vector<KernelEntry> KernelTable::entries() const
{
    std::vector<KernelEntry> out;
    for (const auto& [op, e] : entries_) out.push_back(e.info);
    std::sort(out.begin(), out.end(), [](const KernelEntry& a, const KernelEntry& b) { return a.opType < b.opType; });
    out.insert(out.end(), duplicates_.begin(), duplicates_.end());
    return out;
}

const KernelTable& kernelTable()
{
    static const KernelTable table = [] {
        KernelTable t;
        // The same names as the core's families (OpRegistry::families()).
        const std::pair<const char*, void (*)(KernelTable&)> families[] = {
            {"matmul", registerMatMulKernels},         {"conv", registerConvKernels},
            {"resize", registerResizeKernels},         {"elementwise", registerElementwiseKernels},
            {"normalization", registerNormalizationKernels}, {"reduce", registerReduceKernels},
            {"shape", registerShapeKernels},           {"indexing", registerIndexingKernels},
            {"generator", registerGeneratorKernels},   {"control", registerControlKernels},
            {"recurrent", registerRecurrentKernels},
        };
        for (const auto& [name, registerFamily] : families) {
            t.beginFamily(name);
            registerFamily(t);
        }
        // What has no kernel says why from the core's list, which the preflight reads too.
        for (const auto& [op, why] : opsTheWorkerCannotRun()) {
            const OpDef* def = OpRegistry::instance().find(op);
            t.beginFamily(def ? def->family : "unknown");
            t.notRun({op.c_str()}, why);
        }
        return t;
    }();
    return table;
}

std::vector<KernelEntry> kernelEntries() { return kernelTable().entries(); }

std::vector<std::string> checkKernelCoverage(const OpRegistry& ops, const std::vector<KernelEntry>& kernels)
{
    std::vector<std::string> gaps;
    std::unordered_map<std::string, const KernelEntry*> byOp;
    for (const KernelEntry& k : kernels) {
        const std::string who = "op " + k.opType + " (kernel family " + k.family + ")";
        if (!byOp.emplace(k.opType, &k).second) gaps.push_back(who + ": listed twice in the kernel table");
        const OpDef* def = ops.find(k.opType);
        if (!def) gaps.push_back(who + ": a kernel entry for an op the core registry does not know");
        else if (def->family != k.family)
            gaps.push_back(who + ": filed under another family than the core's (" + def->family + ")");
        if (!k.runs && k.notRunBecause.empty()) gaps.push_back(who + ": neither a kernel nor a reason for having none");
    }
    for (const std::string& op : ops.opTypes())
        if (!byOp.count(op))
            gaps.push_back("op " + op + " (family " + ops.find(op)->family +
                           "): no torch kernel and not listed as not run by the executor");
    return gaps;
}

std::vector<Tensor> runKernel(const KernelCall& c)
{
    if (!c.node.domain.empty() && c.node.domain != "ai.onnx")
        kernels::fail(c, "ops of domain '" + c.node.domain + "' are not supported by the executor");
    const Kernel* kernel = kernelTable().find(c.node.opType);
    if (!kernel) kernels::fail(c, "op type not supported by the executor");
    return (*kernel)(c);
}

} // namespace tapas::runtime
