"""DeepSpeed's BF16_Optimizer (layout.bf16_optimizer): every micro-batch's bf16 gradients added into an fp32
copy after its backward pass, 18 bytes of HBM traffic per local parameter (constants.BF16_OPTIMIZER_
ACCUMULATE_BYTES, from deepspeed/runtime/bf16_optimizer.py update_hp_grads)."""

from __future__ import annotations

import pytest

from sizing.engine import InputError, evaluate
from sizing.engine import constants as C
from sizing.engine.calibration import SELENE
from sizing.engine.hardware import GPUS

# BLOOM-176B's shape and its tr11 layout on A100 80GB (TP4 PP12 DP8, micro-batch 2, full recompute)
BLOOM = {
    "layers": 70,
    "hidden": 14336,
    "heads": 112,
    "ffn_hidden": 57344,
    "vocab": 250880,
    "seq_len": 2048,
    "global_batch": 2048,
    "train_tokens": 1e12,
    "tied_embeddings": True,
    "attention": "unfused",
}
BLOOM_PARAMS = 176e9
LAYOUT = {
    "tp": 4,
    "pp": 12,
    "dp": 8,
    "micro_batch": 2,
    "recompute": "full",
    "sequence_parallel": False,
    "pipeline_engine": "deepspeed",
}


def _pass_seconds(result: dict) -> float:
    """What the pass should cost per micro-batch on the busiest stage: its local parameters x 18 bytes."""
    tp, pp = result["layout"]["tp"], result["layout"]["pp"]
    # the binding stage holds its layers' weights and, on the first or last stage, the tied embedding; the
    # engine's weights line is that stage's bf16 weights (2 bytes each), before any ZeRO sharding (ZeRO-1)
    local = result["memory_gib_per_gpu"]["weights"] * 2**30 / 2.0
    assert local > BLOOM_PARAMS / (tp * pp) * 0.99  # at least an even share of the model
    hbm = GPUS[SELENE["gpu"]].hbm_tbytes_per_s * 1e12
    return local * C.BF16_OPTIMIZER_ACCUMULATE_BYTES / hbm


def test_the_pass_costs_eighteen_bytes_per_local_parameter_per_micro_batch() -> None:
    plain = evaluate(BLOOM, SELENE, LAYOUT, gpus=384)
    stated = evaluate(BLOOM, SELENE, {**LAYOUT, "bf16_optimizer": True}, gpus=384)
    micro = stated["micro_batches_per_iteration"]
    assert micro == 2048 // (8 * 2)
    added = stated["iteration_breakdown_s"]["other"] - plain["iteration_breakdown_s"]["other"]
    assert added == pytest.approx(micro * _pass_seconds(stated), rel=0.02)
    # a second or more on BLOOM's step (4 s by the count: 128 micro-batches of ~2.9e9 parameters)
    assert added > 3.0
    # it runs on the compute stream, so the bubble carries it too: the step grows by more than the pass
    assert stated["iteration_time_s"] - plain["iteration_time_s"] >= added
    # nothing else moves
    for part in ("compute", "recompute", "tp_comm", "pp_comm", "dp_comm"):
        assert stated["iteration_breakdown_s"][part] == plain["iteration_breakdown_s"][part]


def test_halving_the_micro_batch_doubles_what_the_pass_adds_per_step() -> None:
    def added(micro_batch: int) -> float:
        lay = {**LAYOUT, "micro_batch": micro_batch}
        plain = evaluate(BLOOM, SELENE, lay, gpus=384)["iteration_breakdown_s"]["other"]
        return (
            evaluate(BLOOM, SELENE, {**lay, "bf16_optimizer": True}, gpus=384)["iteration_breakdown_s"][
                "other"
            ]
            - plain
        )

    assert added(1) == pytest.approx(2.0 * added(2), rel=1e-4)
    assert added(2) == pytest.approx(2.0 * added(4), rel=1e-4)


def test_off_by_default_and_named_in_the_answer_only_when_stated() -> None:
    plain = evaluate(BLOOM, SELENE, LAYOUT, gpus=384)
    off = evaluate(BLOOM, SELENE, {**LAYOUT, "bf16_optimizer": False}, gpus=384)
    assert "bf16_optimizer" not in plain["layout"]
    assert off["layout"]["bf16_optimizer"] is False
    assert off["iteration_time_s"] == plain["iteration_time_s"]
    stated = evaluate(BLOOM, SELENE, {**LAYOUT, "bf16_optimizer": True}, gpus=384)
    assert stated["layout"]["bf16_optimizer"] is True


def test_a_value_that_is_not_true_or_false_is_refused_on_its_key() -> None:
    with pytest.raises(InputError) as err:
        evaluate(BLOOM, SELENE, {**LAYOUT, "bf16_optimizer": "yes"}, gpus=384)
    assert err.value.field == "layout.bf16_optimizer"
