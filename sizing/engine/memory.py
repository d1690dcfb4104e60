"""Memory per GPU: model states by ZeRO stage and optimizer convention, activations (Korthikanti et al.
2022 Table 2), pipeline in-flight micro-batches and interleaving, framework overhead.

All functions take numpy arrays or scalars (they broadcast), so the search evaluates a whole grid at once.
Bytes everywhere; the report converts to GiB.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import constants as C

Array = Any  # numpy array or scalar; broadcasting does the rest

# Activation recomputation modes as integer codes: the search holds them in int64 arrays (one per option
# column) and compares them elementwise, which strings would not allow at numpy speed.
RECOMPUTE_NONE = 0
RECOMPUTE_SELECTIVE = 1  # drop the attention scores and recompute them (Korthikanti et al. 2022)
RECOMPUTE_FULL = 2  # keep only each layer's input and rerun its forward pass
RECOMPUTE_CODES = {"none": RECOMPUTE_NONE, "selective": RECOMPUTE_SELECTIVE, "full": RECOMPUTE_FULL}
RECOMPUTE_NAMES = {code: name for name, code in RECOMPUTE_CODES.items()}


def zero_paper_bytes(psi: Array, nd: Array, stage: Array, k: float = 12.0) -> Array:
    """Model-state bytes per GPU of the ZeRO paper (Rajbhandari et al. 2019, cal §3): fp16 weights and
    grads (2 + 2 bytes/param) and K bytes of optimizer state, sharded over Nd by stage."""
    w, g, o = model_state_bytes(psi, nd, stage, "zero-paper", k=k)
    return w + g + o


def model_state_bytes(
    params: Array, shards: Array, zero: Array, convention: str = "megatron", k: float | None = None
) -> tuple[Array, Array, Array]:
    """(weights, grads, optimizer) bytes per GPU for `params` parameters held by this GPU before ZeRO,
    sharded over `shards` data-parallel ranks: stage 1 shards the optimizer, 2 also the gradients, 3 also
    the weights (cal §3). Megatron's distributed optimizer is stage 1 with the megatron convention:
    6 + 12/DP bytes/param. Stage 3 keeps its gradient shard in the training precision
    (constants.ZERO3_GRAD_BYTES): 16 bytes/param over the shards under the megatron convention too."""
    wb, gb, ob = C.OPTIMIZER_BYTES[convention]
    if k is not None:
        ob = k
    zero = np.asarray(zero)
    shards = np.asarray(shards, dtype=float)
    weights = params * wb / np.where(zero >= 3, shards, 1.0)
    grads = params * np.where(zero >= 3, min(gb, C.ZERO3_GRAD_BYTES), gb) / np.where(zero >= 2, shards, 1.0)
    optimizer = params * ob / np.where(zero >= 1, shards, 1.0)
    return weights, grads, optimizer


def deepspeed_zero2_bytes(psi: float, gpus: int) -> float:
    """DeepSpeed's estimator (docs memory.rst, cal §3): 4 Psi + 16 Psi / N."""
    return 4.0 * psi + 16.0 * psi / gpus


def deepspeed_zero3_bytes(psi: float, largest_layer: float, gpus: int) -> float:
    """DeepSpeed's estimator (docs memory.rst, cal §3): 4 x largest layer + 18 Psi / N."""
    return 4.0 * largest_layer + 18.0 * psi / gpus


def activation_coefficients(
    hidden: int,
    heads: int,
    kv_dim: int,
    mlp_split_per_h: float,
    *,
    query_dim: int | None = None,
    key_dim: int | None = None,
    value_dim: int | None = None,
    output_dim: int | None = None,
    latent_dim: int = 0,
) -> tuple[float, float, float]:
    """Per-layer activation bytes = s b h (nonsplit + split / t) + score * s^2 b / t, Korthikanti Table 2
    generalised (cal §3). Returns (nonsplit, split, score coefficient = 5 a / h).

    nonsplit 10: two layernorm inputs (4), QKV input (2), MLP input (2), two dropout masks (2); plus, for
    multi-head latent attention with its ranks stated, each low-rank latent twice (`latent_dim`: the
    input of the norm fused into its up-projection and that norm's output, 2 bytes each).
    split: the attention core's queries, keys and values and its output (the projection's input), 2 bytes
    each at their own widths (`query_dim`, `key_dim`, `value_dim`, `output_dim`: h, kv_dim, kv_dim, h by
    default, i.e. 2 + 4 kv_dim / h + 2), + MLP intermediates (GeLU 4h MLP: 2 x 8 = 16; SwiGLU: 6 f / h).
    For MHA + 4h GeLU this is 24, as in Korthikanti. The widths differ from h where heads x head_dim does
    (Qwen3, gpt-oss) and under multi-head latent attention (DeepSeek-V3: 24,576-wide queries and keys,
    16,384-wide values and output, against h = 7,168).
    """
    q = float(hidden if query_dim is None else query_dim)
    k = float(kv_dim if key_dim is None else key_dim)
    v = float(kv_dim if value_dim is None else value_dim)
    o = float(hidden if output_dim is None else output_dim)
    split = 2.0 * (q + k + v + o) / hidden + mlp_split_per_h
    return 10.0 + 4.0 * latent_dim / hidden, split, 5.0 * heads / hidden


def activation_bytes_per_layer(
    seq: Array,
    micro_batch: Array,
    hidden: int,
    coeffs: tuple[float, float, float],
    tp: Array,
    sp: Array,
    recompute: Array,
    seq_full: Array | None = None,
) -> Array:
    """Bytes of activations kept per layer per micro-batch (Korthikanti Table 2).

    recompute: RECOMPUTE_NONE, RECOMPUTE_SELECTIVE (drop the attention score term) or RECOMPUTE_FULL (keep
    the layer input only).
    `seq` is the local sequence (seq / cp); `seq_full` the keys each query attends to (defaults to seq).
    """
    nonsplit, split, score = coeffs
    seq_full = seq if seq_full is None else seq_full
    inv_tp = 1.0 / np.asarray(tp, dtype=float)
    inv_sp = np.where(np.asarray(sp, dtype=bool), inv_tp, 1.0)  # the non-split part is split only with SP
    mode = np.asarray(recompute)
    not_full = mode != RECOMPUTE_FULL
    # coefficients on the (usually small) recompute axis, so only a few full-grid operations remain:
    # none/selective: nonsplit/sp + (split + [none] score s) / t; full: 2/sp
    a = np.where(not_full, nonsplit, 2.0)
    b = not_full * (split + (mode == RECOMPUTE_NONE) * (score * seq_full))
    return (seq * micro_batch * hidden) * (a * inv_sp + b * inv_tp)


def in_flight_factor(pp: Array, v: Array, micro_batches: Array, rank: Array = 0) -> Array:
    """Micro-batches' worth of one stage's layers held by pipeline rank `rank` at its peak (cal §3).

    Megatron's schedules (schedules.py) run `warm-up` forward passes before the first backward and then
    alternate one forward with one backward, so the peak is warm-up + 1 model chunks of a micro-batch:
    1F1B `p - rank - 1` warm-up micro-batches, the interleaved order `2 (p - rank - 1) + (v - 1) p` chunks,
    each capped at all the micro-batches of the step (`min(warm-up, m v)`: with m = p and v > 1 every
    forward runs before the first backward). In stage units (v chunks = one stage): 1F1B `min(p - rank, m)`;
    interleaved `min(p + (p - 1 - 2 rank) / v, m)`, i.e. `p (1 + (p - 1) / (p v))` on the first stage.
    """
    pp = np.asarray(pp, dtype=float)
    v = np.asarray(v, dtype=float)
    return _in_flight(pp, v, v > 1, rank, micro_batches)


def in_flight_factors(pp: Array, v: Array, micro_batches: Array) -> tuple[Array, Array, Array]:
    """in_flight_factor of pipeline ranks 0, 1 and p - 1, with the inputs read once (the search takes all
    three on every grid, and the arrays are small enough that each numpy call's overhead counts)."""
    pp = np.asarray(pp, dtype=float)
    v = np.asarray(v, dtype=float)
    interleaved = v > 1
    return tuple(_in_flight(pp, v, interleaved, r, micro_batches) for r in (0, 1, pp - 1.0))  # type: ignore[return-value]


def _in_flight(pp: Array, v: Array, interleaved: Array, rank: Array, micro_batches: Array) -> Array:
    """in_flight_factor's arithmetic on float arrays (`interleaved`: v > 1)."""
    warm = np.where(interleaved, pp + (pp - 1.0 - 2.0 * rank) / v, pp - rank)
    return np.minimum(np.maximum(warm, 1.0), micro_batches)


def expert_data_parallel_ranks(x: dict[str, Any]) -> Array:
    """Ranks that hold the same routed-expert shard (Megatron-Core's expert-data-parallel group): the experts
    fold over the dense ranks, EP x ETP of them hold one copy, so TP x DP x CP / (EP x ETP) copies, at least
    one. The experts' optimizer state is sharded over these ranks, their gradients reduced over them and
    what one GPU updates divided by them (model._memory, zero.data_parallel_times, gradients.py)."""
    return np.maximum(x["tp"] * x["dp"] * x["cp"] / (x["ep"] * x["etp"]), 1.0)


def logits_bytes(
    seq: Array, micro_batch: Array, vocab: int, tp: Array, per_logit: Array = C.LOGITS_BYTES
) -> Array:
    """Bytes of one micro-batch's logits held by the rank with the output layer from the loss to its
    backward: Korthikanti et al. 2022 sec. 4.3, "the cross entropy loss requires storing the logits which are
    calculated in 32-bit floating point and as a result will require 4sbv/t bytes" (vocabulary-parallel over
    the TP ranks; the sequence share of this rank under CP); `per_logit` the loss implementation's
    (loss.held_bytes_per_logit: 2 for Transformer Engine's kernel, which keeps the bf16 logits)."""
    return per_logit * np.asarray(seq, dtype=float) * micro_batch * float(vocab) / tp


def overhead_bytes(states_and_activations: Array) -> Array:
    """CUDA context, NCCL buffers, allocator fragmentation (assumed, constants.py)."""
    return C.OVERHEAD_FIXED_GIB * C.GIB + C.OVERHEAD_FRACTION * states_and_activations


def in_flight_chunks(pp: Array, v: Array, micro_batches: Array, rank: Array = 0) -> Array:
    """Model chunks (one micro-batch through one of the rank's v chunks) held by pipeline rank `rank` at
    its peak: Megatron's warm-up + 1, capped at the step's m v (in_flight_factor in chunk units)."""
    return np.asarray(v, dtype=float) * in_flight_factor(pp, v, micro_batches, rank)


def first_chunks_in_flight(pp: Array, v: Array, micro_batches: Array) -> Array:
    """How many of rank 0's chunks in flight at its peak are its first model chunk (the one the embedding
    slot makes lighter, stages.py). Megatron runs the forwards of each chunk in groups of N micro-batches
    (schedules.py `get_schedule_table`; `microbatch_group_size_per_vp_stage`, default N = p, the depth-first
    order and the fewest in flight: N may range from p to m); the peak is at the first backward, after F
    forwards: N = p of every p v are the first chunk's, `p floor(F / (p v)) + min(F mod p v, p)`."""
    pp = np.asarray(pp, dtype=float)
    forwards = in_flight_chunks(pp, v, micro_batches)
    group = pp * np.asarray(v, dtype=float)
    return pp * np.floor(forwards / group) + np.minimum(np.mod(forwards, group), pp)


def last_chunks_in_flight(pp: Array, v: Array, micro_batches: Array) -> Array:
    """How many of the last rank's chunks in flight at its peak are its last model chunk (the one the loss
    slot makes lighter). The last rank's warm-up is (v - 1) p chunks; its backwards start with the last
    chunk, so once the first group's p backwards have run (m > p: the second group's forwards continue)
    none is left in flight while as many chunks are held: 0. With m = p one remains at every step; 1F1B
    (v = 1) holds one chunk, the last; when every forward runs before the first backward, all m."""
    pp = np.asarray(pp, dtype=float)
    v = np.asarray(v, dtype=float)
    micro_batches = np.asarray(micro_batches, dtype=float)
    everything = in_flight_chunks(pp, v, micro_batches, rank=pp - 1.0) >= micro_batches * v
    one = (v == 1) | (micro_batches <= pp)
    return np.where(everything, micro_batches, np.where(one, 1.0, 0.0))
