"""The shape of a workload given as a bare parameter count (the size contract's other workload form): the
published shape of the model it names (architectures.named), or a standard dense one derived."""

from __future__ import annotations

import math
from typing import Any

from hardware.messages import _

from .architectures import Architecture, shape_of

# the vocabulary of a workload that does not give one (GPT-3's 50,257 padded to a multiple of 1,024)
DEFAULT_VOCAB = 51200
# 128-wide heads in a multiple of 1024: heads divisible by TP = 8, a node's width
HIDDEN_STEP_TP = 1024


def derive_shape(
    params: float, layer_multiple: int = 1, vocab: int = DEFAULT_VOCAB, tied: bool = False
) -> dict[str, int]:
    """A standard dense shape for a bare parameter count, 12 L h^2 ~ params, with the hidden/layers aspect
    ratio of published GPT-3 models (128 from 6.7B to 175B, ~80 below; Brown et al. 2020), head dim 128,
    FFN 4h. From hidden 1024 up the hidden size is a multiple of 1024, so the heads are a multiple of 8
    and the tensor-parallel degrees of published layouts (2, 4, 8) divide them, as they divide every
    published model's (GPT-3 6.7B: 32 heads, 13B: 40, 175B: 96); a multiple of 128 alone gave 70B 71
    heads and no tensor parallelism at all.

    `layer_multiple`: the layers are a multiple of it, as a given layout's pipeline needs (pp x virtual
    stages: a published model splits evenly over its published pipeline, MT-NLG's 105 layers over 35
    stages); without it, an even count. Unconstrained, 530B comes out at 146 layers, whose 35-stage split
    puts 5 layers on some stages and 4 on others: the pace of the slowest, 20% over the mean.

    `params` is a published count, which includes the embeddings (GPT-3 175B: 0.6B of them; Llama 3.1 8B:
    1.05B, its input and output embeddings of a 128,256-word vocabulary untied): the shape is sized so that
    its transformer layers (12 h^2 + 2 h each: attention, FFN and norms) and its `vocab` x h embeddings
    (twice untied) count `params`, the count the engine then reports (Workload.total_params) for this shape
    (within 5%; a workload that also sets SwiGLU, grouped KV heads or experts counts otherwise). Sized on
    the layers alone, 8B came out 40 x 4096 (8.05B of layers, 8.5B in all) where Llama 3.1 8B has 32 layers
    of 6.98B."""
    target_ratio = 128.0 if params >= 5e9 else 80.0  # GPT-3 6.7B-175B: 128; 1.3B-2.7B: ~80
    step = layer_multiple if layer_multiple > 1 else 2
    best: tuple[float, int, int] | None = None
    embedding_copies = 1.0 if tied else 2.0
    for layers in range(step * max(1, -(-8 // step)), max(257, 8 * step), step):
        # 12 L h^2 + (2 L + copies V) h = params, for h
        linear = 2.0 * layers + embedding_copies * vocab
        width = (math.sqrt(linear**2 + 48.0 * layers * params) - linear) / (24.0 * layers)
        step_h = HIDDEN_STEP_TP if width >= HIDDEN_STEP_TP else 128
        hidden = max(128, int(round(width / step_h)) * step_h)
        count = 12.0 * layers * hidden**2 + (2.0 * layers + embedding_copies * vocab) * hidden
        score = abs(math.log(hidden / layers / target_ratio)) + 4 * abs(math.log(count / params))
        if best is None or score < best[0]:
            best = (score, layers, hidden)
    assert best is not None
    _, layers, hidden = best
    return {"layers": layers, "hidden": hidden, "heads": hidden // 128, "ffn_hidden": 4 * hidden}


def with_published_shape(
    d: dict[str, Any], arch: Architecture, params: float, notes: list[str]
) -> dict[str, Any]:
    """`d` with a bare parameter count replaced by the named model's published shape (its stated keys
    kept)."""
    shape = shape_of(arch)
    if isinstance(d.get("moe"), dict):
        shape["moe"] = {**shape["moe"], **d["moe"]}
    notes.append(
        _(
            "a workload named %(name)s with %(params)sB parameters is %(model)s: its published shape taken "
            "(%(layers)s layers x %(hidden)s hidden, %(heads)s heads, %(kv_heads)s KV heads, FFN "
            "%(ffn_hidden)s, vocabulary %(vocab)s; %(source)s); give the shape to size another model",
            name=str(d.get("name")),
            params=f"{params / 1e9:.1f}",
            model=arch.name,
            source=arch.source,
            **{k: str(shape[k]) for k in ("layers", "hidden", "heads", "kv_heads", "ffn_hidden", "vocab")},
        )
    )
    return {**shape, **{k: v for k, v in d.items() if k not in ("params", "moe")}}


def with_derived_shape(
    d: dict[str, Any], params: float, vocab: int, notes: list[str], layer_multiple: int = 1
) -> dict[str, Any]:
    """`d` with a bare parameter count replaced by the standard shape it derives (derive_shape)."""
    shape = derive_shape(params, layer_multiple, vocab, bool(d.get("tied_embeddings", False)))
    values = {"params": f"{params / 1e9:.1f}", **{k: str(v) for k, v in shape.items()}}
    if layer_multiple > 1:
        notes.append(
            _(
                "shape derived from %(params)sB parameters: %(layers)s layers x %(hidden)s hidden, %(heads)s "
                "heads, FFN %(ffn_hidden)s (GPT-style), the layers a multiple of the layout's %(stages)s "
                "pipeline chunks (pipeline stages x virtual stages)",
                stages=str(layer_multiple),
                **values,
            )
        )
    else:
        notes.append(
            _(
                "shape derived from %(params)sB parameters: %(layers)s layers x %(hidden)s hidden, %(heads)s "
                "heads, FFN %(ffn_hidden)s (GPT-style)",
                **values,
            )
        )
    return {**shape, **{k: v for k, v in d.items() if k != "params"}}
