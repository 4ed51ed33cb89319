#include "runtime/exec/region_checkpoint.h"

#include <stdexcept>

namespace tapas::runtime {

namespace {

using torch::Tensor;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// The region's function, held by the autograd node until its backward (saved_data keeps
// IValues; a capsule carries any object).
struct RegionHolder : torch::CustomClassHolder {
    explicit RegionHolder(RegionFunction f) : fn(std::move(f)) {}
    RegionFunction fn;
};

struct CheckpointFn : torch::autograd::Function<CheckpointFn> {
    // Runs with grad mode off (Function::apply's rule): nothing inside is recorded.
    static variable_list forward(AutogradContext* ctx, at::TensorList inputs, c10::intrusive_ptr<RegionHolder> holder)
    {
        ctx->save_for_backward(inputs.vec());
        std::vector<Tensor> out = holder->fn(inputs.vec());
        ctx->saved_data["region"] = c10::IValue::make_capsule(std::move(holder));
        return out;
    }

    static variable_list backward(AutogradContext* ctx, variable_list grads)
    {
        const variable_list saved = ctx->get_saved_variables();
        auto holder = c10::static_intrusive_pointer_cast<RegionHolder>(ctx->saved_data["region"].toCapsule());
        // The inputs again, as leaves of a graph of their own: the rerun's gradients stop at them.
        std::vector<Tensor> in;
        std::vector<size_t> wantGrad;
        for (size_t i = 0; i < saved.size(); ++i) {
            if (!saved[i].defined()) {
                in.emplace_back();
                continue;
            }
            Tensor x = saved[i].detach();
            if (ctx->needs_input_grad(i) && x.is_floating_point()) {
                x.requires_grad_(true);
                wantGrad.push_back(i);
            }
            in.push_back(x);
        }
        variable_list result(saved.size() + 1); // one per input, then the holder's (none)
        if (wantGrad.empty()) return result;
        std::vector<Tensor> outs;
        {
            torch::AutoGradMode record(true);
            outs = holder->fn(in);
        }
        if (outs.size() != grads.size())
            throw std::runtime_error("checkpointed region: the rerun made " + std::to_string(outs.size()) +
                                     " outputs, the forward " + std::to_string(grads.size()));
        std::vector<Tensor> roots, seeds, leaves;
        for (size_t o = 0; o < outs.size(); ++o)
            if (outs[o].defined() && outs[o].requires_grad() && grads[o].defined()) {
                roots.push_back(outs[o]);
                seeds.push_back(grads[o]);
            }
        if (roots.empty()) return result;
        for (size_t i : wantGrad) leaves.push_back(in[i]);
        const variable_list g = torch::autograd::grad(roots, leaves, seeds, /*retain_graph=*/false,
                                                      /*create_graph=*/false, /*allow_unused=*/true);
        for (size_t k = 0; k < wantGrad.size(); ++k) result[wantGrad[k]] = g[k];
        return result;
    }
};

} // namespace

std::vector<torch::Tensor> runCheckpointed(RegionFunction fn, const std::vector<torch::Tensor>& inputs)
{
    return CheckpointFn::apply(at::TensorList(inputs), c10::make_intrusive<RegionHolder>(std::move(fn)));
}

} // namespace tapas::runtime
