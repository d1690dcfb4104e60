"""The cross-entropy loss's passes over the logits (sizing/engine/loss.py, layout.cross_entropy): the bytes
per logit of each implementation over the HBM rate on the rank with the output layer, the bytes per logit it
holds, the framework default by GPU generation and the note that says it, and a clear refusal of anything
else."""

from __future__ import annotations

from typing import Any

import pytest

from sizing.engine import InputError, evaluate, search
from sizing.engine import constants as C
from sizing.engine.hardware import hardware_from_facts
from sizing.engine.validation import by_id, predict
from tests.sizing.test_fuzz_regressions import WL

# Llama 3 8B's shape (test_fuzz_regressions.WL) on one node: one stage, one replica, so every micro-batch's
# loss is on the step
LLAMA3_8B: dict[str, Any] = {**WL, "name": "Llama 3 8B", "global_batch": 8, "precision": "bf16"}
ONE_REPLICA = {"tp": 8, "pp": 1, "dp": 1, "zero": 1, "micro_batch": 1, "recompute": "none"}


def _run(facts: dict[str, Any], impl: str | None, layout: dict[str, Any] = ONE_REPLICA) -> dict[str, Any]:
    lay = dict(layout) if impl is None else {**layout, "cross_entropy": impl}
    return evaluate(LLAMA3_8B, facts, lay)


def test_each_implementation_costs_its_bytes_per_logit_over_the_hbm_rate(h100_ib: dict[str, Any]) -> None:
    runs = {impl: _run(h100_ib, impl) for impl in ("unfused", "native", "te")}
    hbm = hardware_from_facts(h100_ib).gpu.hbm_tbytes_per_s * 1e12
    # 8 micro-batches of 8,192 tokens, each token's 128,256 / 8 logits on every TP rank
    logits = 8 * 8192 * 128256 / 8
    for slow, fast in (("unfused", "te"), ("native", "te"), ("unfused", "native")):
        extra = runs[slow]["iteration_time_s"] - runs[fast]["iteration_time_s"]
        bytes_per_logit = C.CROSS_ENTROPY_PASS_BYTES[slow] - C.CROSS_ENTROPY_PASS_BYTES[fast]
        assert extra == pytest.approx(logits * bytes_per_logit / hbm, rel=0.02), (slow, fast)
    # 52, 28 and 10 bytes: the unfused loss is about 13 ms of this 1.1 s step more than TE's
    assert runs["unfused"]["iteration_time_s"] - runs["te"]["iteration_time_s"] > 0.012
    assert {impl: r["layout"]["cross_entropy"] for impl, r in runs.items()} == {
        "unfused": "unfused",
        "native": "native",
        "te": "te",
    }


def test_the_loss_runs_once_under_full_recompute(h100_ib: dict[str, Any]) -> None:
    full = {**ONE_REPLICA, "recompute": "full"}
    none_gap = _run(h100_ib, "unfused")["iteration_time_s"] - _run(h100_ib, "te")["iteration_time_s"]
    full_gap = (
        _run(h100_ib, "unfused", full)["iteration_time_s"] - _run(h100_ib, "te", full)["iteration_time_s"]
    )
    assert full_gap == pytest.approx(none_gap, rel=0.02)


def test_transformer_engines_kernel_holds_the_bf16_logits_not_an_fp32_softmax(
    h100_ib: dict[str, Any],
) -> None:
    fp32 = _run(h100_ib, "native")["memory_gib_per_gpu"]["activations"]
    bf16 = _run(h100_ib, "te")["memory_gib_per_gpu"]["activations"]
    # one micro-batch's 8,192 x 128,256 / 8 logits, 4 bytes each against 2
    assert fp32 - bf16 == pytest.approx(2 * 8192 * 128256 / 8 / 2**30, abs=0.01)
    assert _run(h100_ib, "unfused")["memory_gib_per_gpu"]["activations"] == pytest.approx(fp32, abs=1e-3)


def test_an_unstated_loss_takes_the_gpus_framework_default_and_says_so(
    h100_ib: dict[str, Any], a100_ib: dict[str, Any]
) -> None:
    hopper = _run(h100_ib, None)
    assert hopper["layout"]["cross_entropy"] == "te"
    assert hopper["iteration_time_s"] == _run(h100_ib, "te")["iteration_time_s"]
    assert any("Transformer Engine's fused kernel assumed" in a for a in hopper["assumptions"])
    ampere = _run(a100_ib, None)
    assert ampere["layout"]["cross_entropy"] == "unfused"
    assert ampere["iteration_time_s"] == _run(a100_ib, "unfused")["iteration_time_s"]
    assert any("unfused vocabulary-parallel loss of Megatron-LM assumed" in a for a in ampere["assumptions"])
    # a stated implementation is not a default: no note
    stated = _run(h100_ib, "native")
    assert not any("cross-entropy loss implementation not given" in a for a in stated["assumptions"])


def test_a_search_states_the_default_it_took(h100_ib: dict[str, Any]) -> None:
    r = search(LLAMA3_8B, h100_ib, gpus=8)
    assert r["feasible"] and r["layout"]["cross_entropy"] == "te"
    assert any("cross-entropy loss implementation not given" in a for a in r["assumptions"])
    # the answer's layout, sent back as given, evaluates to the same step
    again = evaluate(LLAMA3_8B, h100_ib, r["layout"], gpus=8)
    assert again["iteration_time_s"] == pytest.approx(r["iteration_time_s"], rel=1e-9)


@pytest.mark.parametrize("value", ["fused", "TE-fused", 3, ["te"], True])
def test_any_other_implementation_is_refused_by_name(h100_ib: dict[str, Any], value: Any) -> None:
    with pytest.raises(InputError) as err:
        _run(h100_ib, value)
    assert err.value.field == "layout.cross_entropy"
    assert "must be one of unfused, native, te" in str(err.value)


def test_the_loss_is_what_brings_a_large_vocabulary_small_model_to_its_published_step() -> None:
    """Megatron-LM's README 1.7B (vocabulary 131,072, hidden 2,048, Megatron-LM's unfused loss): its loss is
    a large share of the step, which the model charged nothing for before (-9.5%)."""
    row = by_id("mcore-h100-weak-1.7b")
    assert row.published_s is not None and row.layout is not None
    assert row.layout["cross_entropy"] == "unfused"
    unfused = predict(row)["iteration_time_s"] / row.published_s - 1.0
    te = predict(row, cross_entropy="te")["iteration_time_s"] / row.published_s - 1.0
    assert abs(unfused) < 0.05 < abs(te)
