"""Megatron-Core's selective recompute by module (layout.recompute_modules, checkpointing.py): what each
listed module runs again in the backward pass, what it no longer keeps, and the layout key's checks."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from sizing.engine import InputError, evaluate
from sizing.engine.fitting import unstated_keys
from sizing.engine.hardware import hardware_from_facts
from sizing.engine.workload import PRESETS
from tests.sizing.test_eager_passes import GPT_OSS as GPT_OSS_ONE_MICRO_BATCH

# 16 micro-batches a step, so the answer's rounded seconds (4 decimals) hold the differences to 0.1%
GPT_OSS = {**GPT_OSS_ONE_MICRO_BATCH, "global_batch": 4096}

LAYOUT = {"tp": 1, "pp": 1, "dp": 64, "ep": 64, "zero": 1, "micro_batch": 4, "moe_dispatcher": "alltoall"}
NONE = {**LAYOUT, "recompute": "none"}
TOKENS = 4 * 4096  # one micro-batch on one rank (TP 1, CP 1)
LAYERS = 36


def _modules(*modules: str, **more: Any) -> dict[str, Any]:
    return {**LAYOUT, "recompute": "selective", "recompute_modules": list(modules), **more}


def _hbm(facts: dict[str, Any]) -> float:
    return hardware_from_facts(facts).gpu.hbm_tbytes_per_s * 1e12


def _delta(facts: dict[str, Any], workload: dict[str, Any], layout: dict[str, Any], key: str) -> float:
    with_modules = evaluate(workload, facts, layout)["iteration_breakdown_s"][key]
    return float(with_modules - evaluate(workload, facts, NONE)["iteration_breakdown_s"][key])


def test_moe_act_reruns_the_fused_activation(h100_ib: dict[str, Any]) -> None:
    r = evaluate(GPT_OSS, h100_ib, _modules("moe_act"))
    rows = TOKENS * 4  # top-4, balanced routing
    # the fused SwiGLU reads fc1's 2 x 2,880 outputs and writes its 2,880 (2 bytes each)
    expected = r["micro_batches_per_iteration"] * LAYERS * rows * (2 * 2880 * 2 + 2880 * 2) / _hbm(h100_ib)
    assert _delta(h100_ib, GPT_OSS, _modules("moe_act"), "other") == pytest.approx(expected, rel=1e-3)
    assert _delta(h100_ib, GPT_OSS, _modules("moe_act"), "recompute") == pytest.approx(0.0, abs=1e-9)


def test_moe_act_reruns_a_clamp_eagerly_unless_the_op_fuser_fuses_it(h100_ib: dict[str, Any]) -> None:
    clamped = {**GPT_OSS, "glu_clamp": 7.0}
    plain = _delta(h100_ib, GPT_OSS, _modules("moe_act"), "other")
    eager = _delta(h100_ib, clamped, _modules("moe_act"), "other")
    # per element of fc1's output: the fused kernel's 3 bytes, and the clamp's 8 before it
    assert eager / plain == pytest.approx((3 + 8) / 3, rel=1e-3)
    fused_layout = _modules("moe_act", te_op_fuser=True)
    fused = evaluate(clamped, h100_ib, fused_layout)["iteration_breakdown_s"]["other"]
    fused_none = evaluate(clamped, h100_ib, {**NONE, "te_op_fuser": True})["iteration_breakdown_s"]["other"]
    assert fused - fused_none == pytest.approx(plain, rel=1e-3)


def test_moe_act_keeps_no_activation_output(h100_ib: dict[str, Any]) -> None:
    kept = evaluate(GPT_OSS, h100_ib, NONE)["memory_gib_per_gpu"]["activations"]
    dropped = evaluate(GPT_OSS, h100_ib, _modules("moe_act"))["memory_gib_per_gpu"]["activations"]
    # one micro-batch in flight without a pipeline: each layer's 4 x 2,880 activation outputs per token, bf16
    assert kept - dropped == pytest.approx(LAYERS * TOKENS * 4 * 2880 * 2 / 2**30, abs=0.01)


def test_layernorm_reruns_the_norms_that_are_modules_of_their_own(h100_ib: dict[str, Any]) -> None:
    """The pre-MLP norm of an MoE layer; with multi-head latent attention the input norm too."""
    r = evaluate(GPT_OSS, h100_ib, _modules("layernorm"))
    one_norm = r["micro_batches_per_iteration"] * LAYERS * TOKENS * 2880 * 4 / _hbm(h100_ib)
    assert _delta(h100_ib, GPT_OSS, _modules("layernorm"), "other") == pytest.approx(one_norm, abs=1e-4)
    latent = {**GPT_OSS, "qk_head_dim": 96, "v_head_dim": 64}
    assert _delta(h100_ib, latent, _modules("layernorm"), "other") == pytest.approx(2 * one_norm, abs=1e-4)
    dense = {k: v for k, v in GPT_OSS.items() if k != "moe"}
    dense_none = {**NONE, "ep": 1, "moe_dispatcher": None}
    dense_layout = {**dense_none, "recompute": "selective", "recompute_modules": ["layernorm"]}
    plain = evaluate(dense, h100_ib, dense_none)["iteration_breakdown_s"]["other"]
    assert evaluate(dense, h100_ib, dense_layout)["iteration_breakdown_s"]["other"] == plain


def test_core_attn_reruns_fused_attention_as_unfused_selective_does(h100_ib: dict[str, Any]) -> None:
    """A fused kernel keeps only its inputs either way, but Megatron-Core still runs it again: the same
    attention forward the engine's selective recompute charges when the scores are materialised."""
    dense = {k: v for k, v in GPT_OSS.items() if k != "moe"}
    dense_none = {**NONE, "ep": 1, "moe_dispatcher": None}
    fused = evaluate(
        dense, h100_ib, {**dense_none, "recompute": "selective", "recompute_modules": ["core_attn"]}
    )
    fused_none = evaluate(dense, h100_ib, dense_none)
    unfused = {**dense, "attention": "unfused"}
    selective = evaluate(unfused, h100_ib, {**dense_none, "recompute": "selective"})
    unfused_none = evaluate(unfused, h100_ib, dense_none)
    rerun = fused["iteration_breakdown_s"]["recompute"] - fused_none["iteration_breakdown_s"]["recompute"]
    scores = (
        selective["iteration_breakdown_s"]["recompute"] - unfused_none["iteration_breakdown_s"]["recompute"]
    )
    assert rerun > 0 and rerun == pytest.approx(scores, rel=1e-3)
    assert fused["memory_gib_per_gpu"]["activations"] == fused_none["memory_gib_per_gpu"]["activations"]
    # the engine's plain "selective" charges no rerun of a fused kernel
    plain = evaluate(dense, h100_ib, {**dense_none, "recompute": "selective"})
    assert plain["iteration_time_s"] == fused_none["iteration_time_s"]


def test_the_module_list_decides_whether_unfused_scores_are_kept(h100_ib: dict[str, Any]) -> None:
    unfused = {**{k: v for k, v in GPT_OSS.items() if k != "moe"}, "attention": "unfused"}
    base = {**NONE, "ep": 1, "moe_dispatcher": None}
    selective = evaluate(unfused, h100_ib, {**base, "recompute": "selective"})
    core = evaluate(unfused, h100_ib, {**base, "recompute": "selective", "recompute_modules": ["core_attn"]})
    empty = evaluate(unfused, h100_ib, {**base, "recompute": "selective", "recompute_modules": []})
    none = evaluate(unfused, h100_ib, base)
    assert core["iteration_time_s"] == selective["iteration_time_s"]
    assert core["memory_gib_per_gpu"] == selective["memory_gib_per_gpu"]
    assert empty["iteration_time_s"] == none["iteration_time_s"]
    assert empty["memory_gib_per_gpu"] == none["memory_gib_per_gpu"]


def test_mlp_reruns_the_dense_layers_only(h100_ib: dict[str, Any]) -> None:
    assert _delta(h100_ib, GPT_OSS, _modules("mlp"), "recompute") == pytest.approx(0.0, abs=1e-12)
    first_dense = {**GPT_OSS, "moe": {**GPT_OSS["moe"], "dense_layers": 3}}
    rerun = _delta(h100_ib, first_dense, _modules("mlp"), "recompute")
    compute = evaluate(first_dense, h100_ib, NONE)["iteration_breakdown_s"]["compute"]
    # 3 of 36 layers' MLP forward: a small share of the step's compute (forward and backward, 3 passes)
    assert 0.0 < rerun < compute * 3 / 36 / 3
    kept = evaluate(first_dense, h100_ib, NONE)["memory_gib_per_gpu"]["activations"]
    dropped = evaluate(first_dense, h100_ib, _modules("mlp"))["memory_gib_per_gpu"]["activations"]
    # fc1's 2 x 2,880 outputs and the activation's 2,880 per token of the 3 dense layers, bf16
    assert kept - dropped == pytest.approx(3 * TOKENS * (4 + 2) * 2880 / 2**30, abs=0.01)


def test_shared_experts_rerun_their_gemms(h100_ib: dict[str, Any]) -> None:
    shared = {**GPT_OSS, "moe": {**GPT_OSS["moe"], "shared_experts": 1}}
    assert _delta(h100_ib, GPT_OSS, _modules("shared_experts"), "recompute") == pytest.approx(0.0, abs=1e-12)
    assert _delta(h100_ib, shared, _modules("shared_experts"), "recompute") > 0.0


def test_the_answer_echoes_the_modules_in_megatron_order(h100_ib: dict[str, Any]) -> None:
    r = evaluate(GPT_OSS, h100_ib, _modules("layernorm", "moe_act", "layernorm"))
    assert r["layout"]["recompute_modules"] == ["moe_act", "layernorm"]
    assert "recompute_modules" not in evaluate(GPT_OSS, h100_ib, NONE)["layout"]


def test_unmodelled_modules_are_named_in_the_assumptions(h100_ib: dict[str, Any]) -> None:
    r = evaluate(GPT_OSS, h100_ib, _modules("moe", "moe_act"))
    notes = [str(n) for n in r["assumptions"] if "not modelled" in str(n)]
    assert len(notes) == 1 and "recompute of moe not modelled" in notes[0]
    assert r["iteration_time_s"] == evaluate(GPT_OSS, h100_ib, _modules("moe_act"))["iteration_time_s"]


@pytest.mark.parametrize(
    ("layout", "message"),
    [
        ({"recompute_modules": ["attention"]}, "must be a list of core_attn, moe_act"),
        ({"recompute_modules": "moe_act"}, "must be a list of"),
        ({"recompute_modules": [1]}, "must be a list of"),
        ({"recompute": "full", "recompute_modules": ["moe_act"]}, "applies to selective recompute only"),
        ({"recompute": "none", "recompute_modules": []}, "but recompute is none"),
    ],
)
def test_bad_module_lists_are_refused(h100_ib: dict[str, Any], layout: dict[str, Any], message: str) -> None:
    with pytest.raises(InputError, match=message) as caught:
        evaluate(GPT_OSS, h100_ib, {**LAYOUT, **layout})
    assert caught.value.field == "layout.recompute_modules"


def test_the_explanation_names_the_recomputed_modules(h100_ib: dict[str, Any]) -> None:
    r = evaluate(GPT_OSS, h100_ib, _modules("moe_act", "layernorm"))
    text = " ".join(str(line) for line in r["explanation"])
    assert "selective recomputation of moe_act, layernorm" in text
    assert "attention scores only" not in text


def test_a_module_list_states_the_recompute_a_fitted_layout_keeps() -> None:
    """A layout that lists modules has stated selective recompute: fitting does not swap it for full."""
    assert "recompute" not in unstated_keys({"recompute_modules": ["moe_act"]})
    assert "recompute" in unstated_keys({})


# DeepSeek-V3's attention on gpt-oss's test shape: multi-head latent attention with its ranks and widths
LATENT = {**GPT_OSS, "qk_head_dim": 192, "v_head_dim": 128, "q_lora_rank": 1536, "kv_lora_rank": 512}
LATENT_RANKS = {**LATENT, "qk_rope_head_dim": 64}


def test_mla_up_proj_reruns_the_up_projections_at_the_rate_of_the_other_gemms(
    h100_ib: dict[str, Any],
) -> None:
    first_dense = {**LATENT_RANKS, "moe": {**GPT_OSS["moe"], "dense_layers": 3}}
    up = _delta(h100_ib, first_dense, _modules("mla_up_proj"), "recompute")
    mlp = _delta(h100_ib, first_dense, _modules("mlp"), "recompute")
    # the same GEMM rate: the ratio of their weights, 64 heads x (1,536 x 192 + 512 x (128 + 128)) against
    # 3 of 36 layers' SwiGLU MLPs of 2,880 x 2,880
    up_params = 64 * (1536 * 192 + 512 * (192 - 64 + 128))
    assert up / mlp == pytest.approx(up_params / (3 / 36 * 3 * 2880 * 2880), rel=0.01)
    kept = evaluate(LATENT_RANKS, h100_ib, NONE)["memory_gib_per_gpu"]["activations"]
    dropped = evaluate(LATENT_RANKS, h100_ib, _modules("mla_up_proj"))["memory_gib_per_gpu"]["activations"]
    assert dropped < kept


def test_mla_up_proj_without_the_ranks_is_said_to_be_unmodelled(h100_ib: dict[str, Any]) -> None:
    widths_only = {k: v for k, v in LATENT.items() if not k.endswith("lora_rank")}
    r = evaluate(widths_only, h100_ib, _modules("mla_up_proj"))
    assert any("recompute of mla_up_proj not modelled" in str(n) for n in r["assumptions"])
    assert r["iteration_time_s"] == evaluate(widths_only, h100_ib, NONE)["iteration_time_s"]


def test_the_deepseek_v3_preset_carries_its_ranks() -> None:
    wl = PRESETS["deepseek-v3-671b"]
    assert (wl.q_lora_rank, wl.kv_lora_rank, wl.qk_rope_head_dim) == (1536, 512, 64)
    assert wl.latent_up_params == 128 * (1536 * 192 + 512 * (128 + 128))


@pytest.mark.parametrize(
    ("workload", "field", "message"),
    [
        ({**LATENT, "qk_rope_head_dim": 192}, "workload.qk_rope_head_dim", "less than qk_head_dim"),
        ({**LATENT, "q_lora_rank": 10**6}, "workload.q_lora_rank", "between 1 and 65,536"),
        ({**LATENT, "kv_lora_rank": 0}, "workload.kv_lora_rank", "positive"),
    ],
)
def test_bad_latent_ranks_are_refused(
    h100_ib: dict[str, Any], workload: dict[str, Any], field: str, message: str
) -> None:
    with pytest.raises(InputError, match=message) as caught:
        evaluate(workload, h100_ib, NONE)
    assert caught.value.field == field


def test_ranks_without_latent_attention_are_left_out_and_said_so(h100_ib: dict[str, Any]) -> None:
    """A preset's dict with its MLA widths cleared still sizes: the ranks describe nothing then."""
    r = evaluate({**GPT_OSS, "kv_lora_rank": 512, "qk_rope_head_dim": 64}, h100_ib, NONE)
    assert "kv_lora_rank" not in r["workload"]
    notes = [str(n) for n in r["assumptions"] if "left out" in str(n)]
    assert notes == [
        "kv_lora_rank, qk_rope_head_dim left out: they describe multi-head latent attention, and the "
        "workload states no qk_head_dim and v_head_dim"
    ]
    assert r["iteration_time_s"] == evaluate(GPT_OSS, h100_ib, NONE)["iteration_time_s"]


def test_modules_megatron_refuses_are_refused(h100_ib: dict[str, Any]) -> None:
    """Megatron-Core's own checks: moe_act only with experts, mla_up_proj only with latent attention."""
    dense = {k: v for k, v in GPT_OSS.items() if k != "moe"}
    dense_layout = {**NONE, "ep": 1, "moe_dispatcher": None, "recompute": "selective"}
    with pytest.raises(InputError, match="moe_act needs a workload with experts"):
        evaluate(dense, h100_ib, {**dense_layout, "recompute_modules": ["moe_act"]})
    with pytest.raises(InputError, match="mla_up_proj needs multi-head latent attention"):
        evaluate(GPT_OSS, h100_ib, _modules("mla_up_proj"))


def test_without_a_query_rank_the_queries_are_projected_from_the_hidden_state() -> None:
    """DeepSeek-V2-Lite: linear_q_proj from the hidden state runs inside the same checkpoint."""
    no_rank = replace(PRESETS["deepseek-v3-671b"], q_lora_rank=None)
    assert no_rank.latent_up_params == 128 * (7168 * 192 + 512 * (128 + 128))
