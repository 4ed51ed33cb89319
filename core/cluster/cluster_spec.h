#pragma once
// A cluster the search plans for (DESIGN.md, "ClusterSpec"): nodes x devices per node, what one
// device computes and holds, and the links between devices. Read from JSON; presets ship in
// resources/clusters/ and are compiled in so the core needs no resource files at run time.
#include "core/util/result.h"

#include <map>
#include <string>
#include <vector>

namespace tapas {

struct LinkSpec {
    double bandwidth = 0; // bytes/s per device, one direction
    double latency = 0;   // seconds per message (the alpha of the alpha-beta model)
};

// How fast one op family runs on a device, as `tapas cluster calibrate` measured it: a node of
// the family takes overhead + max(flops / flopRate, bytes / byteRate) seconds for its forward
// and backward together (flops and bytes as the op's forward cost counts them). A rate of 0
// means that bound was not measured. The family "optimizer" prices the weight update instead:
// overhead per weight tensor plus its bytes / byteRate.
struct OpFamilyRate {
    OpFamilyRate(double flops = 0, double bytes = 0, double perNode = 0) : flopRate(flops), byteRate(bytes), overhead(perNode) {}
    double flopRate = 0;
    double byteRate = 0;
    double overhead = 0; // seconds per node (dispatch, autograd, the interpreter)
    // The FLOP rate by the size of one matrix product (a GEMM, or one matrix of a batched
    // one), ascending in unitFlops ("flop_rate_by_size"): a CPU GEMM of 64 rows runs well
    // below the rate of a 512-row one, and a batched attention product pays per matrix.
    // Empty: flopRate at every size.
    struct SizeRate {
        double unitFlops = 0;
        double flopRate = 0;
    };
    std::vector<SizeRate> bySize;
    // The FLOP rate for products of `unitFlops` each: interpolated in log(unitFlops) between
    // the measured sizes, the nearest one's outside them; flopRate without a table.
    double flopRateAt(double unitFlops) const;
    // The byte rate by the bytes one node moves, ascending ("byte_rate_by_size"): an element-wise
    // op or a pool whose operands stay in the cores' caches runs several times faster than one
    // streaming from memory. Empty: byteRate at every size.
    struct ByteSizeRate {
        double bytes = 0;
        double byteRate = 0;
    };
    std::vector<ByteSizeRate> byteBySize;
    // The byte rate for a node moving `bytes`: interpolated in log(bytes) between the measured
    // sizes, the nearest one's outside them; byteRate without a table.
    double byteRateAt(double bytes) const;
};

// What a GPU's kernels are bound by beside its peak FLOP/s (core/cost/gpu_roofline.h): a cluster
// that states its devices' memory bandwidth has its compute priced by a roofline (GEMMs by their
// tiles and waves, element-wise ops by the bytes they move) instead of peak x efficiency.
struct DeviceRoofline {
    double memoryBandwidth = 0; // HBM bytes/s per device; 0: no roofline
    double l2Bandwidth = 0;     // bytes/s the L2 cache feeds the SMs' GEMM tiles; 0: not a limit
    int multiprocessors = 0;    // SMs that run a GEMM's tiles in waves; 0: no wave quantization
    int collectiveSms = 0;      // SMs NCCL's kernels hold while a collective runs beside compute
                                // (data-parallel buckets overlapping the backward); 0: none
    bool enabled() const { return memoryBandwidth > 0; }
};

struct ClusterSpec {
    std::string name;
    std::string device;     // "A100-80G", informative
    bool gpu = true;        // "accelerator": "gpu" (default) or "cpu": what a batch script asks the scheduler for
    int nodes = 1;
    int devicesPerNode = 1;
    double peakFp32 = 0;    // FLOP/s per device
    double peakFp16 = 0;
    double peakBf16 = 0;
    double memoryBytes = 0; // per device
    LinkSpec intraNode;
    LinkSpec interNode;
    double efficiency = 1;  // fraction of peak reached by real kernels, in (0,1] (with a roofline:
                            // by a large GEMM, the most any kernel reaches)
    DeviceRoofline roofline; // "roofline": {"memory_bandwidth", "l2_bandwidth", "multiprocessors"}
    // Measured per op family (the registry's family names, plus "optimizer"); empty for the
    // GPU presets, whose compute is peak x efficiency for every FLOP.
    std::map<std::string, OpFamilyRate> opFamilies;

    int deviceCount() const { return nodes * devicesPerNode; }
    // Peak for "fp32" | "fp16" | "bf16" (fp32 for anything else).
    double peakFlops(const std::string& dtype) const;
};

// `origin` names the file (or preset) in error messages: "cluster 'x.json': field ... ".
Result<ClusterSpec> parseClusterSpec(const std::string& jsonText, const std::string& origin);
Result<ClusterSpec> loadClusterSpecFile(const std::string& path);
// A preset name ("a100x8") or a path to a JSON file. Presets are looked up in `presetDir`
// first (when non-empty), then in the compiled-in copies.
Result<ClusterSpec> loadClusterSpec(const std::string& presetOrPath, const std::string& presetDir = {});
std::string clusterSpecToJson(const ClusterSpec& c); // pretty-printed, parseable again

// The compiled-in presets (name, JSON text), the same text as resources/clusters/<name>.json.
const std::vector<std::pair<std::string, std::string>>& builtinClusterPresets();

// A device mesh dp x pp x tp: tp devices share every tensor-parallel collective, pp groups of
// them hold consecutive pipeline stages and pass activations point to point, dp replicas of the
// whole pipeline average gradients. Devices are numbered node-major, tp fastest, then dp, then
// pp (Megatron-LM's order), so a stage's tp and dp groups stay as close as they can.
struct DeviceMesh {
    int dp = 1;
    int tp = 1;
    int pp = 1;
    int size() const { return dp * pp * tp; }
    std::string toString() const; // "2x4" (dp x tp) without stages, "8x16x8" (dp x pp x tp) with them
    bool operator==(const DeviceMesh& o) const { return dp == o.dp && tp == o.tp && pp == o.pp; }
};

Result<DeviceMesh> parseMesh(const std::string& text); // "2x4" -> dp 2, tp 4; "8x16x8" -> dp 8, pp 16, tp 8
// Checks the mesh covers the cluster and (unless allowed) keeps tp inside one node.
Status validateMesh(const ClusterSpec& c, const DeviceMesh& m, bool allowTpAcrossNodes = false);
// Every valid dp x tp factorisation, tp ascending.
std::vector<DeviceMesh> enumerateMeshes(const ClusterSpec& c, bool allowTpAcrossNodes = false);

enum class MeshAxis { Dp, Tp, Pp };
// The link a collective over that mesh axis runs on: intra-node while the group fits in a node;
// for Pp, the link between neighbouring stages (dp x tp devices apart).
LinkSpec axisLink(const ClusterSpec& c, const DeviceMesh& m, MeshAxis axis);

} // namespace tapas
