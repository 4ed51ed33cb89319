// Resize and Upsample on torch's interpolation: nearest (asymmetric + floor, torch's `nearest`;
// half_pixel + round, torch's `nearest-exact`) and linear (half_pixel / pytorch_half_pixel, or
// align_corners) over 1 to 3 spatial dims. The output size is the IR's local shape (the plan
// may split the batch or the channels; rescaling only touches the spatial dims), else the
// sizes or scales input. Modes torch has no equal for (cubic, linear asymmetric, tf_crop_and_
// resize) refuse naming the mode, rather than computing something else. DepthToSpace and
// SpaceToDepth are pixel (un)shuffles.
#include "runtime/exec/kernels/kernel_table.h"

namespace tapas::runtime {

namespace {
using namespace kernels;

std::vector<int64_t> resizedShape(const KernelCall& c, const Tensor& x, size_t scalesInput, size_t sizesInput)
{
    return outShape(c, 0, [&] {
        std::vector<int64_t> out = x.sizes().vec();
        if (has(c, sizesInput) && c.in[sizesInput].numel() > 0) return ints(c.in[sizesInput]);
        if (!has(c, scalesInput)) fail(c, "neither scales nor sizes given");
        Tensor s = c.in[scalesInput].to(torch::kFloat64).contiguous();
        if (s.numel() != x.dim()) fail(c, "scales has " + std::to_string(s.numel()) + " values for rank " + std::to_string(x.dim()));
        for (int64_t d = 0; d < x.dim(); ++d) out[size_t(d)] = int64_t(std::floor(double(x.size(d)) * s[d].item<double>()));
        return out;
    });
}

Tensor rescale(const KernelCall& c, const Tensor& x, const std::vector<int64_t>& outShape)
{
    if (x.dim() < 3 || x.dim() > 5) fail(c, "rescaling supports 1 to 3 spatial dims, the input has rank " + std::to_string(x.dim()));
    for (int64_t d = 0; d < 2; ++d)
        if (outShape[size_t(d)] != x.size(d))
            fail(c, "rescaling the batch or channel dim (" + std::to_string(x.size(d)) + " -> " +
                        std::to_string(outShape[size_t(d)]) + ") is not supported");
    const std::vector<int64_t> spatial(outShape.begin() + 2, outShape.end());
    const size_t n = spatial.size();
    const std::string mode = c.node.attrString("mode", "nearest");
    const bool legacy = c.node.opType == "Upsample" || c.graph.opsetVersion() < 11;
    const std::string coords = c.node.attrString("coordinate_transformation_mode", legacy ? "asymmetric" : "half_pixel");
    if (mode == "nearest") {
        const std::string rounding = c.node.attrString("nearest_mode", legacy ? "floor" : "round_prefer_floor");
        if (coords == "asymmetric" && rounding == "floor") {
            if (n == 1) return torch::upsample_nearest1d(x, spatial);
            if (n == 2) return torch::upsample_nearest2d(x, spatial);
            return torch::upsample_nearest3d(x, spatial);
        }
        if ((coords == "half_pixel" || coords == "pytorch_half_pixel") && rounding.rfind("round_prefer", 0) == 0) {
            if (n == 1) return torch::_upsample_nearest_exact1d(x, spatial);
            if (n == 2) return torch::_upsample_nearest_exact2d(x, spatial);
            return torch::_upsample_nearest_exact3d(x, spatial);
        }
        fail(c, "nearest rescaling with coordinate_transformation_mode '" + coords + "' and nearest_mode '" + rounding +
                    "' has no torch equal");
    }
    if (mode == "linear" || mode == "bilinear") {
        const bool corners = coords == "align_corners";
        if (!corners && coords != "half_pixel" && coords != "pytorch_half_pixel")
            fail(c, "linear rescaling with coordinate_transformation_mode '" + coords + "' has no torch equal");
        if (n == 1) return torch::upsample_linear1d(x, spatial, corners);
        if (n == 2) return torch::upsample_bilinear2d(x, spatial, corners);
        return torch::upsample_trilinear3d(x, spatial, corners);
    }
    fail(c, "rescaling mode '" + mode + "' is not supported (nearest and linear are)");
}

std::vector<Tensor> resize(const KernelCall& c)
{
    const Tensor& x = in(c, 0);
    // Opset 10 takes (X, scales); opset 11+ (X, roi, scales, sizes).
    const bool opset10 = c.graph.opsetVersion() > 0 && c.graph.opsetVersion() < 11;
    const std::vector<int64_t> shape = opset10 ? resizedShape(c, x, 1, 99) : resizedShape(c, x, 2, 3);
    if (c.node.attrString("coordinate_transformation_mode", "") == "tf_crop_and_resize")
        fail(c, "tf_crop_and_resize is not supported");
    return one(rescale(c, x, shape));
}

std::vector<Tensor> upsample(const KernelCall& c)
{
    const Tensor& x = in(c, 0);
    return one(rescale(c, x, resizedShape(c, x, 1, 99)));
}

std::vector<Tensor> depthToSpace(const KernelCall& c)
{
    const Tensor& x = in(c, 0);
    const int64_t b = c.node.attrInt("blocksize", 1);
    if (x.dim() != 4) fail(c, "expects a rank-4 input");
    if (c.node.attrString("mode", "DCR") == "CRD") return one(torch::pixel_shuffle(x, b));
    const int64_t n = x.size(0), ch = x.size(1), h = x.size(2), w = x.size(3);
    Tensor y = x.reshape({n, b, b, ch / (b * b), h, w}).permute({0, 3, 4, 1, 5, 2});
    return one(y.reshape({n, ch / (b * b), h * b, w * b}));
}

std::vector<Tensor> spaceToDepth(const KernelCall& c)
{
    const Tensor& x = in(c, 0);
    const int64_t b = c.node.attrInt("blocksize", 1);
    if (x.dim() != 4) fail(c, "expects a rank-4 input");
    const int64_t n = x.size(0), ch = x.size(1), h = x.size(2), w = x.size(3);
    Tensor y = x.reshape({n, ch, h / b, b, w / b, b}).permute({0, 3, 5, 1, 2, 4});
    return one(y.reshape({n, ch * b * b, h / b, w / b}));
}

} // namespace

void registerResizeKernels(KernelTable& t)
{
    t.add("Resize", resize);
    t.add("Upsample", upsample);
    t.add("DepthToSpace", depthToSpace);
    t.add("SpaceToDepth", spaceToDepth);
}

} // namespace tapas::runtime
