"""Failures the randomised driver (test_fuzz_size.py) found, one test each: every one raised a traceback,
answered NaN or infinity, accepted an absurd number silently, or refused a published layout for a reason
the user never gave."""

from __future__ import annotations

import math
from typing import Any

import pytest

from sizing.engine import InputError, evaluate, search
from sizing.engine.shapes import derive_shape
from sizing.engine.workload import workload_from_dict

WL = {
    "name": "w",
    "layers": 32,
    "hidden": 4096,
    "heads": 32,
    "kv_heads": 8,
    "ffn_hidden": 14336,
    "vocab": 128256,
    "seq_len": 8192,
    "global_batch": 512,
    "train_tokens": 1e12,
    "activation": "swiglu",
}
LAYOUT = {"tp": 8, "pp": 1, "dp": 8}


@pytest.mark.parametrize(
    ("key", "value", "says"),
    [
        # was ZeroDivisionError (goodput 0) / NaN days and cost / NaN with an infinite MTBF
        ("failure_rate_per_gpu_hour", math.inf, "finite"),
        ("failure_rate_per_gpu_hour", math.nan, "finite"),
        ("failure_rate_per_gpu_hour", 0, "greater than 0 and at most 0.01 per GPU-hour"),
        ("failure_rate_per_gpu_hour", 1.0, "greater than 0 and at most 0.01 per GPU-hour"),
        # were NaN days, goodput and cost
        ("storage_write_gbytes_per_s", math.inf, "finite"),
        ("replacement_time_min", math.inf, "finite"),
        # was an infinite inter-node bandwidth in the answer
        ("gbps_per_nic", 1e300, "between 1 and 1,600 Gb/s"),
        # were accepted silently (the price dropped, the cluster searched up to a billion nodes)
        ("price_usd_per_gpu_hour", math.nan, "finite"),
        ("nodes", 10**9, "between 1 and 100,000"),
        ("gpus_per_node", 1024, "between 1 and 72"),
        ("usable_gpu_guarantee_pct", 10, "between 50 and 100 %"),
    ],
)
def test_offering_numbers_outside_their_range_are_refused_naming_field_and_range(
    h100_ib: dict[str, Any], key: str, value: float, says: str
) -> None:
    for call in (
        lambda: evaluate(WL, {**h100_ib, key: value}, LAYOUT),
        lambda: search(WL, {**h100_ib, key: value}),
    ):
        with pytest.raises(InputError) as err:
            call()
        assert err.value.field == f"offering.{key}"
        assert says in err.value.reason


def test_offering_numbers_inside_their_range_still_answer(h100_ib: dict[str, Any]) -> None:
    facts = {**h100_ib, "failure_rate_per_gpu_hour": 0.01, "replacement_time_min": 0, "gbps_per_nic": 1600}
    res = evaluate(WL, facts, LAYOUT)
    assert res["feasible"] and math.isfinite(res["train_days"]) and 0 < res["goodput"]["fraction"] <= 1


@pytest.mark.parametrize(
    ("layout", "field"),
    [
        ({"tp": math.nan}, "layout.tp"),  # was ValueError: cannot convert float NaN to integer
        ({"dp": math.inf}, "layout.dp"),  # was OverflowError
        ({"pp": 2, "first_stage_layers": math.nan}, "layout.first_stage_layers"),
        ({"recompute": []}, "layout.recompute"),  # was TypeError: unhashable type
        ({"optimizer": []}, "layout.optimizer"),  # was taken silently as "not given"
    ],
)
def test_malformed_layout_values_are_input_errors(
    h100_ib: dict[str, Any], layout: dict[str, Any], field: str
) -> None:
    with pytest.raises(InputError) as err:
        evaluate(WL, h100_ib, layout)
    assert err.value.field == field


@pytest.mark.parametrize("experts", [math.nan, math.inf])
def test_non_finite_moe_counts_are_input_errors(h100_ib: dict[str, Any], experts: float) -> None:
    with pytest.raises(InputError) as err:  # was ValueError / OverflowError
        evaluate({**WL, "moe": {"experts": experts, "top_k": 2}}, h100_ib, LAYOUT)
    assert err.value.field == "workload.moe.experts"


@pytest.mark.parametrize(
    ("kwargs", "field", "says"),
    [
        # NaN answered every layout as missing the deadline; infinity came back as `Infinity` in the JSON
        ({"objective": "cheapest-within-deadline", "deadline_days": math.nan}, "deadline_days", "finite"),
        ({"objective": "cheapest-within-deadline", "deadline_days": math.inf}, "deadline_days", "finite"),
        ({"deadline_days": 1e6}, "deadline_days", "at most 3,650 days"),
        # a negative count answered an infeasible layout; a huge one evaluated 100,000 alternatives
        ({"top": -1}, "top", "between 0 and 100"),
        ({"top": 100_000}, "top", "between 0 and 100"),
    ],
)
def test_search_arguments_outside_their_range_are_refused(
    h100_ib: dict[str, Any], kwargs: dict[str, Any], field: str, says: str
) -> None:
    with pytest.raises(InputError) as err:
        search(WL, h100_ib, **kwargs)
    assert err.value.field == field
    assert says in err.value.reason


@pytest.mark.parametrize("params", [7e9, 13e9, 30e9, 70e9, 405e9, 1e12, 2e12])
def test_a_shape_derived_from_params_takes_published_tensor_parallel_layouts(
    h100_ib: dict[str, Any], params: float
) -> None:
    """A bare parameter count derived 33, 41, 53, 71, 127, 172 or 217 heads (hidden a multiple of 128), so
    TP=8 was refused ("TP=8 does not divide the 71 attention heads", a number the user never gave) and the
    search could use no tensor parallelism at all."""
    shape = derive_shape(params)
    assert shape["heads"] % 8 == 0 and shape["hidden"] == 128 * shape["heads"]
    # the count a published model states includes its embeddings: the derived shape counts the same
    assert workload_from_dict({"params": params}).total_params() == pytest.approx(params, rel=0.05)
    wl = {"name": "p", "params": params, "seq_len": 4096, "global_batch": 1024, "train_tokens": 1e12}
    res = evaluate(wl, {**h100_ib, "nodes": 4096}, {"tp": 8, "pp": 8, "dp": 8})
    assert res["layout"]["tp"] == 8


def test_a_missed_deadline_is_recorded_like_a_met_one(h100_ib: dict[str, Any]) -> None:
    """With nothing within the deadline the fastest layout is shown; its answer had neither `deadline_days`
    nor `meets_deadline` (a deadline met has both), so a tool reading `meets_deadline` found nothing."""
    res = search(WL, h100_ib, objective="cheapest-within-deadline", deadline_days=0.01)
    assert not res["feasible"]
    assert res["deadline_days"] == 0.01 and res["meets_deadline"] is False and res["train_days"] > 0.01


def test_a_shape_derived_from_params_splits_evenly_over_a_given_pipeline(a100_ib: dict[str, Any]) -> None:
    """530B alone derives 146 layers, which 35 pipeline stages split 5/4: the slowest stage paced the
    answer 20% over the mean (Narayanan 2021's 529.6B on TP8 PP35 DP8 came out +17% from its parameter
    count, -2% from its real 105 layers). With a layout the layers are a multiple of its pp x v."""
    assert derive_shape(530e9)["layers"] == 146
    shape = derive_shape(530e9, layer_multiple=35)
    assert shape["layers"] % 35 == 0 and 12 * shape["layers"] * shape["hidden"] ** 2 == pytest.approx(
        530e9, rel=0.1
    )
    assert derive_shape(175e9, layer_multiple=8) == derive_shape(175e9)  # 96 layers: already a multiple
    wl = {"name": "p", "params": 529.6e9, "seq_len": 2048, "global_batch": 2240, "train_tokens": 1e12}
    lay = {"tp": 8, "pp": 35, "dp": 8, "zero": 1, "micro_batch": 1, "recompute": "full"}
    res = evaluate(wl, {**a100_ib, "nodes": 280}, lay)
    assert res["workload"]["layers"] % 35 == 0
    assert sum("a multiple of the layout's 35 pipeline chunks" in a for a in res["assumptions"]) == 1
    # the real shape (105 x 20480, the paper's) and the derived one pace the pipeline alike
    real = {**wl, "layers": 105, "hidden": 20480, "heads": 128, "ffn_hidden": 81920, "vocab": 51200}
    del real["params"]
    twin = evaluate(real, {**a100_ib, "nodes": 280}, lay)
    assert res["iteration_time_s"] == pytest.approx(twin["iteration_time_s"], rel=0.06)
    # interleaved: pp x v slots
    inter = evaluate(wl, {**a100_ib, "nodes": 280}, {**lay, "pp": 8, "virtual_stages": 3, "dp": 35})
    assert inter["workload"]["layers"] % 24 == 0


def test_the_pessimistic_case_of_a_parameter_count_sizes_the_searched_shape(a100_ib: dict[str, Any]) -> None:
    """The search derives a bare parameter count's shape with no layout (530B: 146 layers); the pessimistic
    case evaluated its layout on the workload again, where the layout's pipeline now fixes the layers (a
    multiple of pp x v): a different model from the central answer. It takes the searched shape."""
    from sizing.models import Workload as WorkloadRow
    from sizing.services import _as_sized

    row = WorkloadRow(name="p", params=530e9, seq_len=2048, global_batch=1920, train_tokens=1e12)
    sized = search(row.to_engine_dict(), {**a100_ib, "nodes": 280}, gpus=2240)
    engine = _as_sized(row, sized)
    assert "params" not in engine and engine["layers"] == sized["workload"]["layers"] == 146
    again = evaluate(engine, {**a100_ib, "nodes": 280}, dict(sized["layout"]), gpus=2240)
    assert again["iteration_time_s"] == pytest.approx(sized["iteration_time_s"], rel=1e-6)
    # a workload with its own shape is passed as it is
    shaped = WorkloadRow(name="s", layers=96, hidden=12288, heads=96, seq_len=2048, global_batch=1536)
    assert _as_sized(shaped, sized) == shaped.to_engine_dict()


def test_a_bare_count_with_a_published_models_name_is_sized_and_evaluated_as_that_model(
    a100_ib: dict[str, Any],
) -> None:
    """A stored workload given as a name and a count sent its fields' defaults (GELU, no experts, untied)
    as stated values, so the engine never took the named model's published shape, which the `size` command
    takes for the same name and count; and the pessimistic case re-evaluated a searched shape without its
    activation or experts. Both now follow the answer's published model."""
    from sizing.models import Workload as WorkloadRow
    from sizing.services import _as_sized

    llama = WorkloadRow(name="Llama 3 8B", params=8.03e9, seq_len=8192, global_batch=512, train_tokens=1e12)
    engine = llama.to_engine_dict()
    assert not {"activation", "moe", "tied_embeddings"} & set(engine)
    wl = workload_from_dict(dict(engine))
    assert (wl.layers, wl.hidden, wl.kv_heads, wl.activation, wl.vocab) == (32, 4096, 8, "swiglu", 128256)
    deepseek = WorkloadRow(name="DeepSeek-V3", params=671e9, seq_len=4096, global_batch=1920)
    moe = workload_from_dict(deepseek.to_engine_dict()).moe
    assert moe is not None and (moe.experts, moe.top_k, moe.shared_experts) == (256, 8, 1)
    # an unnamed count keeps the derived GELU shape; a stated SwiGLU is still sent
    assert workload_from_dict(WorkloadRow(name="mine", params=8.03e9).to_engine_dict()).activation == "gelu"
    stated = WorkloadRow(name="mine", params=8.03e9, activation="swiglu").to_engine_dict()
    assert stated["activation"] == "swiglu" and "moe" not in stated

    sized = search(engine, {**a100_ib, "nodes": 4}, gpus=32)
    again_dict = _as_sized(llama, sized)
    assert again_dict["activation"] == "swiglu" and again_dict["kv_heads"] == 8
    again = evaluate(again_dict, {**a100_ib, "nodes": 4}, dict(sized["layout"]), gpus=32)
    assert again["iteration_time_s"] == pytest.approx(sized["iteration_time_s"], rel=1e-6)
