#pragma once
// INTERNAL to runtime/exec (includes torch): the kernel table and what the kernel family files
// (runtime/exec/kernels/<family>_kernels.cpp, one per core op family) share.
#include "runtime/exec/kernel_coverage.h"
#include "runtime/exec/op_kernels.h"

#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tapas::runtime {

using Kernel = std::function<std::vector<torch::Tensor>(const KernelCall&)>;

class KernelTable {
public:
    // Every later add()/notRun() belongs to `family` (a core op family name).
    void beginFamily(std::string family) { family_ = std::move(family); }
    void add(const std::string& opType, Kernel kernel);
    // Ops of this family the executor does not run, and why (the refusal names the op).
    void notRun(std::initializer_list<const char*> opTypes, const std::string& why);
    const Kernel* find(std::string_view opType) const;
    std::vector<KernelEntry> entries() const;

private:
    struct Entry {
        KernelEntry info;
        Kernel kernel;
    };
    std::unordered_map<std::string, Entry> entries_;
    std::vector<KernelEntry> duplicates_;
    std::string family_;
};

const KernelTable& kernelTable();

// One per kernel family file, named after the core family (core/ops/op_families.h).
void registerMatMulKernels(KernelTable& t);
void registerConvKernels(KernelTable& t);
void registerResizeKernels(KernelTable& t);
void registerElementwiseKernels(KernelTable& t);
void registerNormalizationKernels(KernelTable& t);
void registerReduceKernels(KernelTable& t);
void registerShapeKernels(KernelTable& t);
void registerIndexingKernels(KernelTable& t);
void registerGeneratorKernels(KernelTable& t);
void registerControlKernels(KernelTable& t);
void registerRecurrentKernels(KernelTable& t);

namespace kernels {

using torch::Tensor;

[[noreturn]] void fail(const KernelCall& c, const std::string& why);
// Input i, or a failure naming the node when it is missing.
const Tensor& in(const KernelCall& c, size_t i);
bool has(const KernelCall& c, size_t i);
std::vector<int64_t> ints(const Tensor& t);
inline int64_t normAxis(int64_t a, int64_t rank) { return a < 0 ? a + rank : a; }
// The local output shape the IR gives, or the fallback computed from the data.
std::vector<int64_t> outShape(const KernelCall& c, size_t o, const std::function<std::vector<int64_t>()>& fallback);
// Axes from an attribute (older opsets) or an input (newer ones).
std::vector<int64_t> axesOf(const KernelCall& c, size_t inputIndex);
inline std::vector<Tensor> one(Tensor t) { return {std::move(t)}; }
Kernel unary(Tensor (*f)(const Tensor&));
inline bool isIntegral(const Tensor& t) { return !t.is_floating_point(); }

} // namespace kernels
} // namespace tapas::runtime
