"""The eager passes of gpt-oss's model facts (eager.eager_bytes): a clamped gated activation and the experts'
output biases without Transformer Engine's op fuser, and YaRN rotary embeddings (constants.GLU_CLAMP_*,
EXPERT_BIAS_*, YARN_ROPE_*), each the bytes its code path moves over the HBM rate."""

from __future__ import annotations

from typing import Any

import pytest

from sizing.engine import InputError, evaluate
from sizing.engine.hardware import hardware_from_facts
from sizing.engine.workload import workload_from_dict
from tests.sizing.test_mtp_and_window import GPT_OSS_20B

# gpt-oss-120b's shape (validation.yaml's rows), from the 20B's of the sliding-window tests, without the facts
# under test
GPT_OSS: dict[str, Any] = {
    **GPT_OSS_20B,
    "name": "gpt-oss-120b",
    "layers": 36,
    "seq_len": 4096,
    "global_batch": 256,
    "train_tokens": 1e12,
    "moe": {"experts": 128, "top_k": 4, "expert_ffn_hidden": 2880, "load_imbalance": 1.0},
}
LAYOUT = {"tp": 1, "pp": 1, "dp": 64, "ep": 64, "zero": 1, "micro_batch": 4, "recompute": "none"}
# the all-to-all dispatcher carries bf16 routing probabilities; DeepEP and HybridEP fp32 ones
BF16_PROBS = {**LAYOUT, "moe_dispatcher": "alltoall"}


def _other(facts: dict[str, Any], workload: dict[str, Any], layout: dict[str, Any] | None = None) -> float:
    r = evaluate(workload, facts, layout or LAYOUT)
    return float(r["iteration_breakdown_s"]["other"])


def _per_layer_tokens(r: dict[str, Any]) -> float:
    """Token-layers this rank runs per step: micro-batches x layers x tokens of one micro-batch."""
    return r["micro_batches_per_iteration"] * 36 * 4 * 4096


def test_yarn_runs_its_rotation_eagerly(h100_ib: dict[str, Any]) -> None:
    plain = _other(h100_ib, GPT_OSS)
    r = evaluate({**GPT_OSS, "rope": "yarn"}, h100_ib, LAYOUT)
    rotated = 64 * 64 + 8 * 64  # query and key widths
    hbm = hardware_from_facts(h100_ib).gpu.hbm_tbytes_per_s * 1e12
    expected = _per_layer_tokens(r) * rotated * (20 + 24) / hbm
    assert r["iteration_breakdown_s"]["other"] - plain == pytest.approx(expected, abs=2e-4)


def test_the_clamp_and_the_expert_biases_run_eagerly_without_the_op_fuser(h100_ib: dict[str, Any]) -> None:
    plain = _other(h100_ib, GPT_OSS, BF16_PROBS)
    facts = {**GPT_OSS, "glu_clamp": 7.0, "linear_bias": True}
    r = evaluate(facts, h100_ib, BF16_PROBS)
    rows = 4 * 4096 * 4  # a micro-batch's tokens x top-4, balanced routing
    per_micro = rows * 2 * 2880 * (8 + 15) + rows * 2880 * (12 + 16)
    hbm = hardware_from_facts(h100_ib).gpu.hbm_tbytes_per_s * 1e12
    expected = r["micro_batches_per_iteration"] * 36 * per_micro / hbm
    assert r["iteration_breakdown_s"]["other"] - plain == pytest.approx(expected, abs=2e-4)
    # Transformer Engine's op fuser runs them in its fused grouped MLP
    assert _other(h100_ib, facts, {**BF16_PROBS, "te_op_fuser": True}) == pytest.approx(plain, abs=1e-6)


def test_fp32_routing_probabilities_promote_the_bias_sum(h100_ib: dict[str, Any]) -> None:
    biased = {**GPT_OSS, "linear_bias": True}
    bf16 = _other(h100_ib, biased, BF16_PROBS) - _other(h100_ib, GPT_OSS, BF16_PROBS)
    deepep = {**LAYOUT, "moe_dispatcher": "deepep"}
    fp32 = _other(h100_ib, biased, deepep) - _other(h100_ib, GPT_OSS, deepep)
    assert fp32 / bf16 == pytest.approx((28 + 40) / (12 + 16), rel=0.01)


def test_expert_tensor_parallelism_leaves_the_clamp_bytes_per_gpu(h100_ib: dict[str, Any]) -> None:
    """Each of an expert's etp ranks holds all its rows at 1/etp of the width: the bytes per GPU stay."""
    clamped = {**GPT_OSS, "glu_clamp": 7.0}
    one = {**BF16_PROBS, "ep": 64}
    two = {**BF16_PROBS, "ep": 32, "etp": 2}
    added_one = _other(h100_ib, clamped, one) - _other(h100_ib, GPT_OSS, one)
    added_two = _other(h100_ib, clamped, two) - _other(h100_ib, GPT_OSS, two)
    assert added_two == pytest.approx(added_one, rel=0.01)


def test_a_dense_model_has_no_expert_passes(h100_ib: dict[str, Any]) -> None:
    dense = {k: v for k, v in GPT_OSS.items() if k != "moe"}
    layout = {"tp": 1, "pp": 1, "dp": 64, "zero": 1, "micro_batch": 1, "recompute": "none"}
    plain = _other(h100_ib, dense, layout)
    assert _other(h100_ib, {**dense, "glu_clamp": 7.0, "linear_bias": True}, layout) == plain


def test_the_facts_are_echoed_only_when_given(h100_ib: dict[str, Any]) -> None:
    # a shape that is no published model's echoes none of them when none is given
    other = {k: v for k, v in GPT_OSS.items() if k not in ("glu_clamp", "linear_bias", "rope")}
    plain = evaluate({**other, "layers": 35}, h100_ib, LAYOUT)
    assert not {"glu_clamp", "linear_bias", "rope"} & set(plain["workload"])
    assert "te_op_fuser" not in plain["layout"]
    # gpt-oss's shape echoes the "none" it states, so that its echo, sent again, sizes the same
    stated = evaluate(GPT_OSS, h100_ib, LAYOUT)
    echoed = {k: stated["workload"][k] for k in ("glu_clamp", "linear_bias", "rope")}
    assert echoed == {"glu_clamp": None, "linear_bias": False, "rope": "rope"}
    again = evaluate(stated["workload"], h100_ib, LAYOUT)
    assert again["iteration_time_s"] == stated["iteration_time_s"]
    given = evaluate(
        {**GPT_OSS, "glu_clamp": 7.0, "linear_bias": True, "rope": "yarn"},
        h100_ib,
        {**LAYOUT, "te_op_fuser": True},
    )
    assert (given["workload"]["glu_clamp"], given["workload"]["linear_bias"]) == (7.0, True)
    assert given["workload"]["rope"] == "yarn" and given["layout"]["te_op_fuser"] is True


@pytest.mark.parametrize(
    ("key", "value", "reason"),
    [
        ("glu_clamp", 0, "must be positive, got 0"),
        ("glu_clamp", 1e6, "must be greater than 0 and at most 10,000, got 1,000,000"),
        ("linear_bias", "yes", "must be true or false, got 'yes'"),
        ("rope", "alibi", "must be rope or yarn, got 'alibi'"),
    ],
)
def test_each_fact_is_bounded(key: str, value: Any, reason: str) -> None:
    with pytest.raises(InputError) as err:
        workload_from_dict({**GPT_OSS, key: value})
    assert err.value.field == f"workload.{key}"
    assert str(err.value).endswith(reason)
