"""Multi-token prediction (workload.mtp_layers) and sliding-window attention (workload.sliding_window).

DeepSeek-V3's MTP module (tech report sec. 2.2; Megatron-Core `mtp_num_layers`) is one more transformer layer
of the model's last kind, a 2h x h projection and a second pass of the shared output head, all on the last
pipeline stage. A sliding window bounds the keys each query attends to on the layers that have it."""

from __future__ import annotations

from typing import Any

import pytest

from sizing.engine import evaluate
from sizing.engine import stages as S
from sizing.engine import timing as T
from sizing.engine import validation as V
from sizing.engine.errors import InputError
from sizing.engine.hardware import hardware_from_facts
from sizing.engine.workload import workload_from_dict
from tests.sizing.conftest import GB200

DSV3 = {
    "name": "DeepSeek-V3",
    "layers": 61,
    "hidden": 7168,
    "heads": 128,
    "kv_heads": 128,
    "ffn_hidden": 18432,
    "vocab": 129280,
    "seq_len": 4096,
    "global_batch": 1024,
    "precision": "fp8",
    "activation": "swiglu",
    "moe": {"experts": 256, "top_k": 8, "expert_ffn_hidden": 2048, "shared_experts": 1, "dense_layers": 3},
    "qk_head_dim": 192,
    "v_head_dim": 128,
}


def test_the_module_counts_one_moe_layer_its_projection_and_norms() -> None:
    base, mtp = workload_from_dict(dict(DSV3)), workload_from_dict({**DSV3, "mtp_layers": 1})
    h = 7168.0
    # an MoE layer: attention, its two norms, 256 routed and 1 shared expert, the router; then M_k (h x 2h)
    # and the two RMSNorms of the embedding and of the previous depth's hidden state
    layer = base.attention_params() + 2 * h + 257 * base.mlp_params(2048) + 256 * h
    assert mtp.total_params() - base.total_params() == pytest.approx(layer + 2 * h * h + 2 * h)
    # DeepSeek-V3's MTP module is about 11.7B of the 14B the report counts beside its 671B (the rest: the
    # shared embedding and output head, counted again there)
    assert 11e9 < mtp.total_params() - base.total_params() < 13e9
    # per token: one more active layer (8 routed + 1 shared expert), the projection and the output head again
    extra = mtp.model_flops_per_token() - base.model_flops_per_token()
    head = 6.0 * 129280 * h
    assert extra > head and extra == pytest.approx(
        6.0 * (mtp.mtp_params(active=True) + 129280 * h) + 12.0 * mtp.attention_core_dim * 4096
    )
    assert mtp.to_dict()["mtp_layers"] == 1 and base.to_dict()["mtp_layers"] == 0


def _gb200() -> dict[str, Any]:
    return dict(GB200)


def test_the_last_stage_pays_for_it_and_a_lighter_last_stage_makes_room() -> None:
    layout = {"tp": 1, "pp": 4, "dp": 64, "ep": 64, "virtual_stages": 4, "micro_batch": 1, "zero": 1}
    plain = evaluate(dict(DSV3), _gb200(), dict(layout))
    with_mtp = evaluate({**DSV3, "mtp_layers": 1}, _gb200(), dict(layout))
    # the default split puts 14 layers on the last stage: with the module and a second pass of the output
    # head (1.6 layers' work each at TP 1) it binds
    assert with_mtp["iteration_time_s"] > 1.05 * plain["iteration_time_s"]
    # the recipes' pipeline layout gives the last rank 13 layers (Et*4|(t*4|)*14tmL): less than the default
    room = evaluate({**DSV3, "mtp_layers": 1}, _gb200(), {**layout, "last_stage_layers": 13})
    assert plain["iteration_time_s"] < room["iteration_time_s"] < with_mtp["iteration_time_s"]
    # one stage runs it too
    one = {"tp": 1, "pp": 1, "dp": 256, "ep": 64, "micro_batch": 1, "zero": 1}
    a, b = evaluate(dict(DSV3), _gb200(), one), evaluate({**DSV3, "mtp_layers": 1}, _gb200(), one)
    assert b["iteration_time_s"] > a["iteration_time_s"]
    assert b["memory_gib_per_gpu"]["weights"] > a["memory_gib_per_gpu"]["weights"]


@pytest.mark.parametrize("value", [-1, 9, 1.5, "one", True, float("nan"), float("inf")])
def test_a_bad_depth_is_refused_naming_the_field(value: Any) -> None:
    with pytest.raises(InputError) as err:
        workload_from_dict({**DSV3, "mtp_layers": value})
    assert err.value.field == "workload.mtp_layers"
    assert "whole number from 0 to 8" in err.value.reason


def test_the_last_stage_holds_the_second_head_pass_its_projection_logits_and_embedding() -> None:
    hw = hardware_from_facts(dict(GB200))
    one = T.output_layer_time(hw, 7168, 129280, 0, 1.0, 4096.0)
    two = T.output_layer_time(hw, 7168, 129280, 1, 1.0, 4096.0)
    projection = T.output_layer_time(hw, 7168, 2 * 7168, 0, 1.0, 4096.0)  # a GEMM of the projection's size
    assert two == pytest.approx(2 * one + projection)
    # memory: an untied model's last stage builds the input embedding too, beside the projection; its logits
    # are kept twice. 16 layers on the other stages and 13 on the last, so the last stage is the lightest in
    # layers and the extra shows only there: compare its dense parameters directly
    layers = {"most": 16.0, "first": 16.0, "last": 14.0}
    per_layer, embedding = 1.0e8, 9.27e8
    plain = S.most_loaded_dense(4, **layers, per_layer=per_layer, embedding=embedding, tied=False)
    extra = 2 * 7168 * 7168 + embedding
    mtp = S.most_loaded_dense(
        4, **layers, per_layer=per_layer, embedding=embedding, tied=False, mtp_extra=extra
    )
    assert plain == pytest.approx(16 * per_layer + embedding)
    assert mtp == pytest.approx(14 * per_layer + embedding + extra)
    lay = {"tp": 1, "pp": 4, "dp": 64, "ep": 64, "virtual_stages": 4, "micro_batch": 1, "zero": 1}
    lay["last_stage_layers"] = 13
    a = evaluate(dict(DSV3), dict(GB200), dict(lay))["memory_gib_per_gpu"]["weights"]
    b = evaluate({**DSV3, "mtp_layers": 1}, dict(GB200), dict(lay))["memory_gib_per_gpu"]["weights"]
    assert b > a


def test_the_published_deepseek_v3_runs_with_mtp_state_it() -> None:
    rows = [r for r in V.rows() if r.workload.get("mtp_layers")]
    assert len(rows) == 35 and all(r.workload["name"].startswith("DeepSeek-V3") for r in rows)
    # and say so where they record the run's multi-token prediction
    assert all(any("mtp_layers 1" in a for a in r.assumed) for r in rows)


GPT_OSS_20B = {
    "name": "gpt-oss-20b",
    "layers": 24,
    "hidden": 2880,
    "heads": 64,
    "kv_heads": 8,
    "head_dim": 64,
    "ffn_hidden": 2880,
    "vocab": 201088,
    "seq_len": 8192,
    "global_batch": 64,
    "precision": "bf16",
    "activation": "swiglu",
    "dropout": False,
    "moe": {"experts": 32, "top_k": 4, "expert_ffn_hidden": 2880},
    # gpt-oss's shape without its other facts, each stated as none (null, false, plain RoPE), so that the
    # tests add them one at a time: left out, they would be taken from its published configuration
    "sliding_window": None,
    "glu_clamp": None,
    "linear_bias": False,
    "rope": "rope",
}


def test_a_sliding_window_charges_the_band_on_the_layers_that_have_it() -> None:
    # gpt-oss: a 128-token band on every other layer (window_size (127, 0), window_attn_skip_freq 2). A causal
    # layer is counted at all s keys (twice the s / 2 it computes, as Megatron counts it), a banded one at 2 w
    full = workload_from_dict(dict(GPT_OSS_20B))
    banded = workload_from_dict({**GPT_OSS_20B, "sliding_window": 128, "sliding_window_layers": 0.5})
    # query i attends to min(i + 1, w) keys: s w - w (w - 1) / 2 in all, 2 w - w (w - 1) / s per query counted
    band = 2 * 128 - 128 * 127 / 8192
    assert full.attention_span == 8192 and banded.attention_span == pytest.approx(0.5 * 8192 + 0.5 * band)
    attention = 12.0 * 24 * full.attention_core_dim
    assert full.model_flops_per_token() - banded.model_flops_per_token() == pytest.approx(
        attention * (8192 - banded.attention_span)
    )
    # a window as long as the sequence changes nothing; on every layer by default
    assert workload_from_dict({**GPT_OSS_20B, "sliding_window": 8192}).attention_span == 8192
    assert workload_from_dict({**GPT_OSS_20B, "sliding_window": 1024}).attention_span == pytest.approx(
        2048 - 1024 * 1023 / 8192
    )
    # half the sequence: a quarter of the causal work saved (Mistral 7B's 4,096 at 8,192), not none
    assert workload_from_dict({**GPT_OSS_20B, "sliding_window": 4096}).attention_span == pytest.approx(
        0.75 * 8192, rel=1e-3
    )
    offering = {**_gb200(), "nodes": 4}
    layout = {"tp": 1, "pp": 1, "dp": 16, "ep": 8, "micro_batch": 1, "zero": 1}
    slow = evaluate(dict(GPT_OSS_20B), offering, layout)
    fast = evaluate({**GPT_OSS_20B, "sliding_window": 128, "sliding_window_layers": 0.5}, offering, layout)
    assert fast["iteration_breakdown_s"]["compute"] < 0.9 * slow["iteration_breakdown_s"]["compute"]
    assert fast["workload"]["sliding_window"] == 128 and slow["workload"]["sliding_window"] is None


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ({"sliding_window": 0}, "workload.sliding_window"),
        ({"sliding_window": 9000}, "workload.sliding_window"),
        ({"sliding_window": 128.5}, "workload.sliding_window"),
        ({"sliding_window": 128, "sliding_window_layers": 0}, "workload.sliding_window_layers"),
        ({"sliding_window": 128, "sliding_window_layers": 1.5}, "workload.sliding_window_layers"),
        ({"sliding_window": 128, "sliding_window_layers": "half"}, "workload.sliding_window_layers"),
        ({"sliding_window_layers": 0.5}, "workload.sliding_window_layers"),
    ],
)
def test_a_bad_window_is_refused_naming_the_field(extra: dict[str, Any], field: str) -> None:
    with pytest.raises(InputError) as err:
        workload_from_dict({**GPT_OSS_20B, **extra})
    assert err.value.field == field


def test_the_published_gpt_oss_runs_state_their_window() -> None:
    rows = [r for r in V.rows() if "gpt-oss" in r.workload["name"].lower()]
    assert len(rows) == 33
    assert all(
        r.workload.get("sliding_window") == 128 and r.workload["sliding_window_layers"] == 0.5 for r in rows
    )


@pytest.mark.parametrize("key", ["head_dim", "qk_head_dim", "v_head_dim"])
def test_a_head_wider_than_the_widest_accepted_is_refused_naming_it(key: str) -> None:
    # the portal's stored field holds the same bound (sizing.models.WORKLOAD_BOUNDS), so the CLI and the
    # planner refuse alike
    with pytest.raises(InputError) as err:
        workload_from_dict({**GPT_OSS_20B, key: 2048})
    assert err.value.field == f"workload.{key}"
    assert "between 1 and 1,024, got 2,048" in str(err.value)
    assert workload_from_dict({**GPT_OSS_20B, key: 1024}) is not None
