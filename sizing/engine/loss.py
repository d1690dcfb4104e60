"""The cross-entropy loss over the logits (layout.cross_entropy; docs/MODEL.md, "Fortieth stop: the
cross-entropy loss's passes over the logits"): memory-bound passes over this rank's s x V / t logits per
micro-batch on the stage with the output layer, and the bytes per logit it holds from the forward pass to the
backward. How many passes depends on the implementation the stack runs (constants.CROSS_ENTROPY_PASS_BYTES,
CROSS_ENTROPY_HELD_BYTES):

- "unfused": Megatron-Core's vocab-parallel cross entropy in separate PyTorch ops (its default,
  cross_entropy_loss_fusion False; the 2021-22 Megatron-LM and Megatron-DeepSpeed code the same);
- "native": Megatron-Core's fused kernels (cross_entropy_loss_fusion with cross_entropy_fusion_impl
  "native", NeMo 2's GPTConfig default);
- "te": Transformer Engine's Triton kernels (cross_entropy_fusion_impl "te"), which Megatron-Bridge's
  performance scripts set on every recipe.

A layout that leaves it out takes the implementation of the GPU's framework generation (default_for), which
the answer states."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from hardware.messages import _

from . import constants as C
from . import timing as T
from .hardware import Hardware
from .overlap import MEGATRON_CORE_2024, framework_defaults

UNFUSED = "unfused"
NATIVE = "native"
TE = "te"
CROSS_ENTROPY_IMPLS = (UNFUSED, NATIVE, TE)
# the grid carries the implementation as its index (grid key "xent")
GRID_KEY = "xent"
_PASS_BYTES = np.array([C.CROSS_ENTROPY_PASS_BYTES[k] for k in CROSS_ENTROPY_IMPLS])
_HELD_BYTES = np.array([C.CROSS_ENTROPY_HELD_BYTES[k] for k in CROSS_ENTROPY_IMPLS])


def default_for(hw: Hardware) -> str:
    """The implementation a layout gets when it does not name one, by GPU generation: Transformer Engine's
    kernels with the Megatron-Core/NeMo 2024+ defaults of Hopper and later (NVIDIA's performance recipes),
    the unfused ops with the 2021-22 Megatron-LM/DeepSpeed settings of older GPUs and other vendors."""
    return TE if framework_defaults(hw) is MEGATRON_CORE_2024 else UNFUSED


def grid_code(impl: str) -> float:
    """The grid's value for an implementation."""
    return float(CROSS_ENTROPY_IMPLS.index(impl))


def _codes(hw: Hardware, x: dict[str, Any]) -> Any:
    default = grid_code(default_for(hw))
    return np.asarray(x.get(GRID_KEY, default), dtype=int)


def loss_time(hw: Hardware, vocab: int, mtp: int, x: dict[str, Any], tokens: Any) -> Any:
    """Seconds of the loss's passes per micro-batch, forward and backward, on the rank with the output layer:
    `tokens` this rank's tokens of the micro-batch, their V / t logits each (vocabulary-parallel), once per
    output head (1 + the multi-token-prediction depths), at the GPU's HBM bandwidth like the other
    memory-bound passes (model._membound). Not recomputed: the loss runs once under any recompute setting."""
    logits = (1.0 + mtp) * tokens * float(vocab) / x["tp"]
    return logits * _PASS_BYTES[_codes(hw, x)] / (hw.gpu.hbm_tbytes_per_s * 1e12)


def output_layer_time(hw: Hardware, wl: Any, x: dict[str, Any], tokens: Any) -> Any:
    """Seconds per micro-batch of the output layer's GEMMs (timing.output_layer_time) and the loss's passes
    (loss_time) on the rank that holds them; `wl` a workload.Workload."""
    gemms = T.output_layer_time(hw, wl.hidden, wl.vocab, wl.mtp_layers, x["tp"], tokens)
    return gemms + loss_time(hw, wl.vocab, wl.mtp_layers, x, tokens)


def held_bytes_per_logit(hw: Hardware, x: dict[str, Any]) -> Any:
    """Bytes per logit held from the loss's forward to its backward (memory.logits_bytes): the fp32 softmax
    of the Megatron-Core implementations (Korthikanti et al. 2022 sec. 4.3, 4 s b v / t), the bf16 logits
    Transformer Engine's kernel keeps and overwrites with their gradient."""
    return _HELD_BYTES[_codes(hw, x)]


def note(hw: Hardware) -> str:
    """The `assumptions` line for a layout that left the loss's implementation to the default."""
    if default_for(hw) == TE:
        return _(
            "cross-entropy loss implementation not given: Transformer Engine's fused kernel assumed on "
            "%(gpu)s, as NVIDIA's performance recipes run it (about %(bytes)s bytes of memory traffic per "
            "logit); set the layout's cross_entropy to native or unfused for a stack that runs "
            "Megatron-Core's own",
            gpu=hw.gpu.name,
            bytes=f"{C.CROSS_ENTROPY_PASS_BYTES[TE]:.0f}",
        )
    return _(
        "cross-entropy loss implementation not given: the unfused vocabulary-parallel loss of Megatron-LM "
        "assumed on %(gpu)s (about %(bytes)s bytes of memory traffic per logit), its default; set the "
        "layout's cross_entropy to native or te for a stack that fuses it",
        gpu=hw.gpu.name,
        bytes=f"{C.CROSS_ENTROPY_PASS_BYTES[UNFUSED]:.0f}",
    )


def resolve(layout: Any, hw: Hardware) -> tuple[Any, list[str]]:
    """A layout.Layout with its unset loss implementation filled from the GPU's default, and the note."""
    if layout.cross_entropy is not None:
        return layout, []
    return replace(layout, cross_entropy=default_for(hw)), [note(hw)]
