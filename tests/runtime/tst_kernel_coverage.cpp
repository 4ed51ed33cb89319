// The executor's torch kernels are keyed by the core's op families: every op of the core
// registry has a kernel in its family's kernel file or is listed there as not run, with why;
// and the check that compares the two reports each kind of gap when one is planted.
#include "core/ops/op_registry.h"
#include "runtime/exec/kernel_coverage.h"

#include <QtTest>

#include <algorithm>
#include <set>

using namespace tapas;
using namespace tapas::runtime;

namespace {

void anyShape(ShapeContext&) {}
OpCost anyCost(const Graph&, const Node&) { return {}; }

std::string joined(const std::vector<std::string>& gaps)
{
    std::string out;
    for (const std::string& g : gaps) out += "\n  " + g;
    return out;
}

// Core: Known and Other in family "planted".
OpRegistry plantedCore()
{
    OpRegistry r;
    r.beginFamily("planted");
    r.add({"Known", anyShape, anyCost, Sharding::replicated("test")});
    r.add({"Other", anyShape, anyCost, Sharding::replicated("test")});
    return r;
}

std::vector<KernelEntry> completeKernels()
{
    return {{"Known", "planted", true, {}}, {"Other", "planted", false, "not yet"}};
}

} // namespace

class TstKernelCoverage : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void every_core_op_has_a_kernel_or_a_stated_reason()
    {
        const auto gaps = checkKernelCoverage(OpRegistry::instance(), kernelEntries());
        QVERIFY2(gaps.empty(), ("gaps between the op registry and the kernel table:" + joined(gaps)).c_str());
    }

    void kernel_families_are_the_core_families()
    {
        std::set<std::string> kernelFamilies;
        for (const KernelEntry& k : kernelEntries()) kernelFamilies.insert(k.family);
        const std::vector<std::string> core = OpRegistry::instance().families();
        QCOMPARE(kernelFamilies, std::set<std::string>(core.begin(), core.end()));
    }

    void the_ops_the_zoo_and_real_models_train_with_have_kernels()
    {
        const auto entries = kernelEntries();
        for (const char* op : {"MatMul", "Gemm", "Conv", "BatchNormalization", "LayerNormalization", "Softmax",
                               "Gather", "Reshape", "Transpose", "Add", "Gelu", "Relu", "MaxPool", "Concat"}) {
            auto it = std::find_if(entries.begin(), entries.end(), [&](const KernelEntry& k) { return k.opType == op; });
            QVERIFY2(it != entries.end() && it->runs, op);
        }
    }

    void a_complete_planted_table_has_no_gaps()
    {
        QVERIFY(checkKernelCoverage(plantedCore(), completeKernels()).empty());
    }

    void check_reports_a_core_op_missing_from_the_table()
    {
        std::vector<KernelEntry> k = completeKernels();
        k.pop_back();
        const auto gaps = checkKernelCoverage(plantedCore(), k);
        QCOMPARE(gaps.size(), size_t(1));
        QVERIFY2(gaps[0].find("op Other (family planted): no torch kernel and not listed") != std::string::npos,
                 joined(gaps).c_str());
    }

    void check_reports_a_kernel_for_an_op_the_core_does_not_know()
    {
        std::vector<KernelEntry> k = completeKernels();
        k.push_back({"Ghost", "planted", true, {}});
        const auto gaps = checkKernelCoverage(plantedCore(), k);
        QCOMPARE(gaps.size(), size_t(1));
        QVERIFY2(gaps[0].find("op Ghost (kernel family planted): a kernel entry for an op the core registry does not know")
                     != std::string::npos,
                 joined(gaps).c_str());
    }

    void check_reports_a_kernel_filed_under_another_family()
    {
        std::vector<KernelEntry> k = completeKernels();
        k[0].family = "elsewhere";
        const auto gaps = checkKernelCoverage(plantedCore(), k);
        QCOMPARE(gaps.size(), size_t(1));
        QVERIFY2(gaps[0].find("op Known (kernel family elsewhere): filed under another family than the core's (planted)")
                     != std::string::npos,
                 joined(gaps).c_str());
    }

    void check_reports_an_entry_without_kernel_or_reason_and_a_duplicate()
    {
        std::vector<KernelEntry> k = completeKernels();
        k[1].notRunBecause.clear();
        k.push_back({"Known", "planted", true, {}});
        const auto gaps = checkKernelCoverage(plantedCore(), k);
        QCOMPARE(gaps.size(), size_t(2));
        QVERIFY2(joined(gaps).find("op Other (kernel family planted): neither a kernel nor a reason") != std::string::npos,
                 joined(gaps).c_str());
        QVERIFY2(joined(gaps).find("op Known (kernel family planted): listed twice") != std::string::npos,
                 joined(gaps).c_str());
    }
};

QTEST_GUILESS_MAIN(TstKernelCoverage)
#include "tst_kernel_coverage.moc"
