#include "core/cost/torch_conv_kernel.h"

#include <algorithm>

namespace tapas {

bool torchConvRunsOneDnn(const ConvShape& s)
{
    if (s.input.size() < 3) return false;
    auto anyAbove1 = [](const std::vector<int64_t>& v) { return std::any_of(v.begin(), v.end(), [](int64_t d) { return d > 1; }); };
    // A 1-D convolution runs as 2-D with a kernel of height 1.
    std::vector<int64_t> k = s.kernel;
    if (k.size() == 1) k.insert(k.begin(), 1);
    if (k.size() < 2) return false;
    const int64_t kh = k[k.size() - 2], kw = k.back();
    if (s.transposed && s.groups > 1 && s.input[1] == s.groups) return false; // depthwise transposed: torch's own
    const int64_t n = s.input[0];
    double elements = 1;
    for (int64_t d : s.input) elements *= double(d);
    const bool first = anyAbove1(s.strides) || anyAbove1(s.dilations) || n >= 16 || kw != 1 || kh != 1;
    const bool second = s.groups > 1 || (kw > 3 && kh > 3) || n > 1 || elements > 20480;
    return first && second;
}

} // namespace tapas
