// Resize/Upsample and DepthToSpace/SpaceToDepth: the executor runs none of them yet.
#include "runtime/exec/kernels/kernel_table.h"

namespace tapas::runtime {

void registerResizeKernels(KernelTable& t)
{
    t.notRun({"Resize", "Upsample", "DepthToSpace", "SpaceToDepth"}, "no torch kernel for spatial rescaling yet");
}

} // namespace tapas::runtime
