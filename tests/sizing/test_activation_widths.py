"""The activation model at the tensors' own widths (thirtieth stop): the attention core's queries, keys,
values and output at heads x their head widths (multi-head latent attention, and heads x head_dim where it
is not h), multi-head latent attention's low-rank latents, and an MoE layer's routed copies, which its experts
keep as their first GEMM's saved input."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from sizing.engine import evaluate
from sizing.engine import memory as M
from sizing.engine.checkpointing import GRID_KEYS, LAYERNORM, MLA_UP_PROJ, unkept_bytes
from sizing.engine.hardware import hardware_from_facts
from sizing.engine.model import WorkloadShape, _coeffs
from sizing.engine.workload import PRESETS, MoE

DSV3 = PRESETS["deepseek-v3-671b"]
H = 7168.0


def _mlp_per_h(wl: Any) -> float:
    """SwiGLU intermediates (6 f / h) per layer, MoE layers with every routed and shared copy, plus the
    routed copies' inputs (2 x top_k), averaged over the layers."""
    moe = wl.moe
    dense = 6.0 * wl.ffn_hidden / wl.hidden
    sparse = 6.0 * (moe.top_k + moe.shared_experts) * moe.expert_ffn_hidden / wl.hidden + 2.0 * moe.top_k
    return (wl.n_dense_layers * dense + wl.n_moe_layers * sparse) / wl.layers


def test_default_widths_keep_korthikantis_attention_terms() -> None:
    # Q 2 + K, V 2 kv_dim / h each + the projection's input 2: the formula before the widths
    _, split, _ = M.activation_coefficients(4096, 32, 1024, 0.0)
    assert split == pytest.approx(4.0 + 4.0 * 1024 / 4096)


def test_latent_attention_counts_its_queries_keys_values_and_output_at_their_widths() -> None:
    nonsplit, split, _ = WorkloadShape(DSV3).activation_coeffs
    q = k = 128 * 192  # 24,576
    v = o = 128 * 128  # 16,384
    assert split == pytest.approx(2.0 * (q + k + v + o) / H + _mlp_per_h(DSV3))
    # each latent (1,536 + 512) twice, as its fused norm's input and output, 2 bytes each
    assert nonsplit == pytest.approx(10.0 + 4.0 * (1536 + 512) / H)


def test_without_the_ranks_the_latents_are_not_counted() -> None:
    unranked = replace(DSV3, q_lora_rank=None, kv_lora_rank=None, qk_rope_head_dim=None)
    assert WorkloadShape(unranked).activation_coeffs[0] == 10.0


def test_heads_times_head_dim_wider_than_h_is_counted_at_its_width() -> None:
    # Qwen3-30B-A3B: 32 heads x 128 = 4,096 against h = 2,048; 4 K/V heads x 128 = 512
    qwen = replace(
        DSV3,
        layers=48,
        hidden=2048,
        heads=32,
        kv_heads=4,
        head_dim_override=128,
        qk_head_dim=None,
        v_head_dim=None,
        q_lora_rank=None,
        kv_lora_rank=None,
        qk_rope_head_dim=None,
        mtp_layers=0,
        moe=MoE(experts=128, top_k=8, expert_ffn_hidden=768, shared_experts=0, dense_layers=0),
    )
    _, split, _ = WorkloadShape(qwen).activation_coeffs
    assert split == pytest.approx(2.0 * (4096 + 512 + 512 + 4096) / 2048 + _mlp_per_h(qwen))


def test_an_moe_layer_keeps_one_input_copy_per_routed_token() -> None:
    top8 = WorkloadShape(DSV3).activation_coeffs[1]
    top4 = WorkloadShape(replace(DSV3, moe=replace(DSV3.moe, top_k=4))).activation_coeffs[1]
    moe_share = DSV3.n_moe_layers / DSV3.layers
    # four routed copies fewer: their FC1 outputs and activations (6 f / h) and their inputs (2 bytes of h)
    assert top8 - top4 == pytest.approx(moe_share * 4 * (6.0 * 2048 / H + 2.0))


def test_fp8_keeps_the_linear_inputs_at_one_byte_and_the_time_leaves_the_routed_copies_out(
    h100_ib: dict[str, Any],
) -> None:
    hw = hardware_from_facts(h100_ib)
    fp8, bf16 = DSV3, replace(DSV3, precision="bf16")
    shape = WorkloadShape(fp8)
    a8, b8, _ = _coeffs(fp8, hw, shape, True)
    a16, b16, _ = _coeffs(bf16, hw, WorkloadShape(bf16), True)
    moe = DSV3.moe
    moe_share = DSV3.n_moe_layers / DSV3.layers
    fc2 = DSV3.n_dense_layers * DSV3.ffn_hidden + DSV3.n_moe_layers * 9 * moe.expert_ffn_hidden
    fc2 /= DSV3.layers
    routed = moe_share * moe.top_k * H
    # the QKV input's 1 byte saved; an MoE layer's norm output stays in bf16 for the router, and its shared
    # expert keeps its own fp8 cast (+1 byte): nothing saved there
    assert a16 - a8 == pytest.approx(2.0 - 2.0 * moe_share)
    assert shape.router_input_fp8 == pytest.approx(2.0 * moe_share)
    assert b16 - b8 == pytest.approx((128 * 128 + fc2 + routed) / H)
    # the memory-bound time charges the routed copies as the permutation's traffic, not as activations
    for wl, per_copy in ((fp8, 1.0), (bf16, 2.0)):
        kept = _coeffs(wl, hw, WorkloadShape(wl), True)[1]
        timed = _coeffs(wl, hw, WorkloadShape(wl), True, routed=False)[1]
        assert kept - timed == pytest.approx(per_copy * routed / H)


def test_mla_up_proj_frees_the_queries_keys_and_values_at_their_widths() -> None:
    shape = WorkloadShape(DSV3)
    x = {"tp": np.array([2.0]), "sp": np.array([True]), GRID_KEYS[MLA_UP_PROJ]: np.array([True])}
    freed = unkept_bytes(DSV3, shape, x, 4096.0, fp8=False)
    assert float(freed[0]) == pytest.approx(4096 * 2.0 * (24576 + 24576 + 16384) / 2)


def test_latent_attention_needs_more_memory_than_its_heads_x_head_dim_block(h100_ib: dict[str, Any]) -> None:
    # the same DeepSeek-V3 shape with MLA's widths stated and without (then a 7,168-wide block, heads x 56):
    # the attention core's bytes per token and hidden unit are 22.9 against the block's 8, beside ~31 of MLP
    layout = {"tp": 8, "pp": 16, "dp": 8, "ep": 8, "zero": 1, "micro_batch": 1, "recompute": "none"}
    workload = {"preset": "deepseek-v3-671b", "precision": "bf16", "global_batch": 256}
    wide = evaluate(workload, {**h100_ib, "nodes": 128}, layout)
    block = evaluate({**workload, "qk_head_dim": None, "v_head_dim": None}, {**h100_ib, "nodes": 128}, layout)
    assert wide["memory_gib_per_gpu"]["activations"] > 1.3 * block["memory_gib_per_gpu"]["activations"]


def test_an_moe_layers_norm_recomputed_under_fp8_frees_its_bf16_output() -> None:
    # Megatron-Core's layernorm module recompute (CheckpointWithoutOutput) discards the pre-MLP norm's output,
    # which the router keeps in bf16 also under fp8 (moe_utils.RouterGatingLinearFunction saves its input):
    # 2 bytes a token and hidden unit, not the 1 of an fp8 cast; MLA's input norm frees its fp8 count
    shape = WorkloadShape(DSV3)
    x = {"tp": np.array([1.0]), "sp": np.array([False]), GRID_KEYS[LAYERNORM]: np.array([True])}
    freed = float(unkept_bytes(DSV3, shape, x, 4096.0, fp8=True)[0])
    moe_share = DSV3.n_moe_layers / DSV3.layers
    assert freed == pytest.approx(4096 * H * (2.0 * moe_share + 1.0))
