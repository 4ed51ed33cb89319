"""PyTorch tensor-parallel plan (DTensor) for a Tapas sharding plan.

Call parallelize(model) on every rank after torch.distributed is initialised (e.g. by
torchrun) with the plan's 16 ranks: the model's modules are sharded over the
"tp" dimension of a 2 x 8 device mesh; wrap the result for the "dp" dimension (e.g. FSDP or DDP).
"""
# Exported by Tapas Studio (tapas export --format dtensor).
# Model 'gpt' (157 nodes, hash 0dc51d387505177c), cluster 'h100x16'.
# Plan by searcher 'megatron' (tapas test): mesh 2x8 (dp 2 x tp 8), 5 collectives, predicted step 0.746 ms, 0.01 GB per device.

DP_SIZE = 2
TP_SIZE = 8


def tensor_parallel_plan():
    """Module path -> parallel style, as the Tapas plan shards each module.

    parallelize_module's styles apply to nn.Linear and nn.Embedding only; what the plan
    splits that they cannot express is named in a comment and left replicated.
    """
    from torch.distributed.tensor import Replicate  # noqa: F401
    from torch.distributed.tensor.parallel import (  # noqa: F401
        ColwiseParallel,
        RowwiseParallel,
        SequenceParallel,
    )

    plan = {}
    plan["transformer.wte"] = RowwiseParallel(input_layouts=Replicate())
    # transformer.h.0.attn.c_attn: the plan splits it 'column', but it is a Conv1D-style module (weight stored [in, out]), and parallelize_module's styles apply to nn.Linear and nn.Embedding only: left replicated
    # transformer.h.0.attn.c_proj: the plan splits it 'row', but it is a Conv1D-style module (weight stored [in, out]), and parallelize_module's styles apply to nn.Linear and nn.Embedding only: left replicated
    # transformer.h.0.mlp.c_fc: the plan splits it 'column', but it is a Conv1D-style module (weight stored [in, out]), and parallelize_module's styles apply to nn.Linear and nn.Embedding only: left replicated
    # transformer.h.0.mlp.c_proj: the plan splits it 'row', but it is a Conv1D-style module (weight stored [in, out]), and parallelize_module's styles apply to nn.Linear and nn.Embedding only: left replicated
    # transformer.h.1.attn.c_attn: the plan splits it 'column', but it is a Conv1D-style module (weight stored [in, out]), and parallelize_module's styles apply to nn.Linear and nn.Embedding only: left replicated
    # transformer.h.1.attn.c_proj: the plan splits it 'row', but it is a Conv1D-style module (weight stored [in, out]), and parallelize_module's styles apply to nn.Linear and nn.Embedding only: left replicated
    # transformer.h.1.mlp.c_fc: the plan splits it 'column', but it is a Conv1D-style module (weight stored [in, out]), and parallelize_module's styles apply to nn.Linear and nn.Embedding only: left replicated
    # transformer.h.1.mlp.c_proj: the plan splits it 'row', but it is a Conv1D-style module (weight stored [in, out]), and parallelize_module's styles apply to nn.Linear and nn.Embedding only: left replicated
    plan["lm_head"] = ColwiseParallel()
    return plan


def parallelize(model, device_type="cuda"):
    """Shards `model` in place over the tp mesh dimension; returns (model, mesh)."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor.parallel import parallelize_module

    mesh = init_device_mesh(device_type, (DP_SIZE, TP_SIZE), mesh_dim_names=("dp", "tp"))
    parallelize_module(model, mesh["tp"], tensor_parallel_plan())
    return model, mesh
