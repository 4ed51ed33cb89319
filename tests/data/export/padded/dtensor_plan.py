"""PyTorch tensor-parallel plan (DTensor) for a Tapas sharding plan.

Call parallelize(model) on every rank after torch.distributed is initialised (e.g. by
torchrun) with the plan's 8 ranks: the model's modules are sharded over the
"tp" dimension of a 1 x 8 device mesh; wrap the result for the "dp" dimension (e.g. FSDP or DDP).
"""
# Exported by Tapas Studio (tapas export --format dtensor).
# Model 'gpt' (87 nodes, hash 234ae8ff76ebc879), cluster 'a100x8'.
# Plan by searcher 'tapas' (tapas test): mesh 1x8 (dp 1 x tp 8), 3 collectives, predicted step 7.811 ms, 0.89 GB per device.
# The plan pads tables so that their rows split over tp: 'transformer.wte.weight' padded from 50257 to 50264 rows (zero rows appended; no id reads them and the loss must not see their logits).

DP_SIZE = 1
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
    plan["lm_head"] = ColwiseParallel()
    return plan


# The plan pads these tables (parameter -> (rows, padded rows)) so that they split over tp.
PADDED_TABLES = {
    "transformer.wte.weight": (50257, 50264),
}


def pad_tables(model):
    """Appends zero rows to each padded table, keeping ties (a head sharing the table gets the
    padded one too). No id reads the new rows; leave their logits out of the loss, e.g.
    logits[..., :rows], so that they stay zero."""
    import torch

    for name, (rows, padded) in PADDED_TABLES.items():
        old = model.get_parameter(name)
        if old.shape[0] != rows:
            raise ValueError(f"{name} has {old.shape[0]} rows; the plan pads {rows} to {padded}")
        with torch.no_grad():
            new = torch.nn.Parameter(torch.cat([old, old.new_zeros(padded - rows, *old.shape[1:])]))
        for module in model.modules():
            for key, value in list(module._parameters.items()):
                if value is old:
                    setattr(module, key, new)
                    if isinstance(module, torch.nn.Embedding):
                        module.num_embeddings = padded
    return model


def parallelize(model, device_type="cuda"):
    """Shards `model` in place over the tp mesh dimension; returns (model, mesh)."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor.parallel import parallelize_module

    pad_tables(model)  # the plan splits the padded tables only
    mesh = init_device_mesh(device_type, (DP_SIZE, TP_SIZE), mesh_dim_names=("dp", "tp"))
    parallelize_module(model, mesh["tp"], tensor_parallel_plan())
    return model, mesh
