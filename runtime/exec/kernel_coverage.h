#pragma once
// Which ops the executor runs, keyed by the core's op family names (torch-free, so tests and
// tools can read it without compiling torch). Every op of the core registry either has a torch
// kernel in runtime/exec/kernels/<family>_kernels.cpp or is listed there as not run, so that an
// op added to core without a kernel is a gap checkKernelCoverage reports, not a surprise at
// run time.
#include <string>
#include <vector>

namespace tapas {
class OpRegistry;
}

namespace tapas::runtime {

struct KernelEntry {
    std::string opType;
    std::string family;        // the kernel family file that registered it
    bool runs = false;         // a torch kernel exists
    std::string notRunBecause; // when !runs: why the executor refuses it
};

// The executor's table, one entry per op type it knows (sorted by op type).
std::vector<KernelEntry> kernelEntries();

// Gaps between the core registry and a kernel table: a core op with no entry, an entry for an
// op the core does not know or filed under another family, an entry that neither runs nor says
// why, or one listed twice. One sentence per gap naming the op and family; empty when complete.
std::vector<std::string> checkKernelCoverage(const OpRegistry& ops, const std::vector<KernelEntry>& kernels);

} // namespace tapas::runtime
