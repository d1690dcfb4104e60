"""The band an answer states: measured on the validation set, carried by every feasible answer, in words."""

from __future__ import annotations

from typing import Any

import pytest

from sizing.engine import constants as C
from sizing.engine import evaluate, search
from sizing.engine.accuracy import (
    accuracy_figures,
    accuracy_sentence,
    measured,
    measured_architectures,
    measured_by_architecture,
    measured_by_model,
    measured_with_defaults,
)
from sizing.engine.workload import PRESETS


def unpublished(preset: str) -> dict[str, Any]:
    """A preset's workload with two layers fewer: a shape no published model has, so the answer states its
    kind's band (a published model's shape states that model's own: test_a_published_models_shape_...)."""
    workload = PRESETS[preset].to_dict()
    return {**workload, "name": f"{preset} variant", "layers": workload["layers"] - 2}


def test_the_stated_band_is_what_the_validation_set_measures() -> None:
    # a change to the model or to the set that moves the band must update the constant the answers state
    assert measured() == C.MODEL_ACCURACY
    assert measured_architectures() == C.MODEL_ACCURACY_ARCHITECTURES
    assert measured_by_architecture() == C.MODEL_ACCURACY_BY_ARCHITECTURE
    assert measured_with_defaults() == C.MODEL_ACCURACY_DEFAULTS
    assert measured_by_model() == C.MODEL_ACCURACY_BY_MODEL


def test_a_dense_answer_carries_its_kind_band_applied_to_its_own_figures(h100_ib: dict[str, Any]) -> None:
    r = search(unpublished("gpt3-175b"), h100_ib, gpus=1024)
    acc = r["accuracy"]
    runs, mean_abs, low, high = C.MODEL_ACCURACY["dense"]
    assert (acc["kind"], acc["published_runs"], acc["mean_abs_error"]) == ("dense", runs, mean_abs)
    assert acc["iteration_time_s_low"] == pytest.approx(r["iteration_time_s"] * low, abs=1e-3)
    assert acc["iteration_time_s_high"] == pytest.approx(r["iteration_time_s"] * high, abs=1e-3)
    assert acc["train_days_low"] < r["train_days"] < acc["train_days_high"]
    text = accuracy_sentence(acc)
    assert text is not None and f"on {runs} published dense training runs" in text
    assert f"{low:.2f} to {high:.2f} times the predicted time" in text
    assert f"about {acc['train_days_low']:.1f} to {acc['train_days_high']:.1f} days" in text


def test_a_moe_answer_states_the_wider_moe_band_and_why(h100_ib: dict[str, Any]) -> None:
    r = search(unpublished("deepseek-v3-671b"), h100_ib, gpus=1024)
    acc = r["accuracy"]
    assert acc["kind"] == "moe" and acc["time_ratio_high"] == C.MODEL_ACCURACY["moe"][3]
    assert acc["time_ratio_high"] > C.MODEL_ACCURACY["dense"][3]
    text = accuracy_sentence(acc)
    assert text is not None and "mixture-of-experts" in text and "many small experts" in text


def test_an_infeasible_answer_states_no_band(h100_ib: dict[str, Any]) -> None:
    wl = {"name": "too big", "layers": 96, "hidden": 12288, "heads": 96, "seq_len": 2048}
    wl.update({"global_batch": 64, "train_tokens": 1e11})
    r = evaluate(wl, h100_ib, {"tp": 1, "pp": 1, "dp": 8}, gpus=8)
    assert not r["feasible"] and "accuracy" not in r
    assert accuracy_sentence(None) is None


def test_short_runs_keep_their_figures() -> None:
    acc = accuracy_figures(False, 1.0, 0.004)
    assert acc["train_days_low"] > 0 and acc["train_days_high"] > acc["train_days_low"]
    text = accuracy_sentence(acc)
    # two significant figures of a run shorter than a day (not rounded to 0.0), from the band itself
    _, _, low, high = C.MODEL_ACCURACY["dense"]
    assert text is not None and f"about {0.004 * low:.2g} to {0.004 * high:.2g} days" in text


def test_an_answer_on_an_architecture_no_measured_run_used_says_the_band_is_not_measured_for_it(
    h100_ib: dict[str, Any],
) -> None:
    """The band comes from NVIDIA runs and AMD MI325X (CDNA3) and MI355X (CDNA4) runs: on a Huawei Ascend
    910C (Da Vinci) the answer carries it but says it was not measured on that GPU's architecture (its
    efficiency is an assumption) and asks for a benchmark; on an H100 or an MI300X (CDNA3) it does not."""
    nvidia = search(unpublished("llama3-70b"), h100_ib, gpus=256)["accuracy"]
    assert nvidia["gpu_architecture_measured"] is True and nvidia["gpu"] == "NVIDIA H100 SXM5 80GB"
    assert "None of those runs" not in str(accuracy_sentence(nvidia))
    amd_offering = {**h100_ib, "intra_node": "nvlink-mesh"}
    mi300x = {**amd_offering, "name": "MI300X", "slug": "mi300x", "gpu": "MI300X-192GB"}
    cdna3 = search(unpublished("llama3-70b"), mi300x, gpus=256)["accuracy"]
    assert cdna3["gpu_architecture_measured"] is True and cdna3["gpu"] == "AMD Instinct MI300X"
    assert "None of those runs" not in str(accuracy_sentence(cdna3))
    ascend = {**amd_offering, "name": "Ascend", "slug": "ascend", "gpu": "Ascend-910C-128GB"}
    davinci = search(unpublished("llama3-70b"), ascend, gpus=256)["accuracy"]
    assert davinci["gpu_architecture_measured"] is False and davinci["gpu"] == "Huawei Ascend 910C"
    assert (davinci["published_runs"], davinci["time_ratio_low"]) == (
        nvidia["published_runs"],
        nvidia["time_ratio_low"],
    )
    text = accuracy_sentence(davinci)
    assert text is not None and text.startswith("How close this estimate is: on ")
    assert "None of those runs used the Huawei Ascend 910C or another GPU of its architecture" in text
    assert "Ask the provider for a training benchmark on it." in text


def test_an_answer_states_how_the_model_did_on_its_own_gpu_architecture(h100_ib: dict[str, Any]) -> None:
    """A band measured mostly on other GPUs can hide a one-sided miss: the answer adds its architecture's
    runs and which way the model missed them (the MI325X fp8 runs were predicted slow)."""
    mi300x = {
        **h100_ib,
        "intra_node": "nvlink-mesh",
        "name": "MI300X",
        "slug": "mi300x",
        "gpu": "MI300X-192GB",
    }
    acc = search(unpublished("llama3-70b"), mi300x, gpus=256)["accuracy"]
    runs, mean = C.MODEL_ACCURACY_BY_ARCHITECTURE[("dense", "cdna3")]
    assert (acc["architecture_runs"], acc["architecture_mean_error"]) == (runs, mean)
    text = str(accuracy_sentence(acc))
    assert f"{runs} of those runs used the architecture of the AMD Instinct MI300X" in text
    assert ("longer than published on average: this run may be faster" in text) == (mean > 0)
    hopper = search(unpublished("llama3-70b"), h100_ib, gpus=256)["accuracy"]
    assert hopper["architecture_runs"] == C.MODEL_ACCURACY_BY_ARCHITECTURE[("dense", "hopper")][0]
    # the MI355X (CDNA4) since MLPerf v5.1's two runs on it
    mi355x = search(unpublished("llama3-70b"), {**mi300x, "gpu": "MI355X-288GB"}, gpus=256)["accuracy"]
    runs, mean = C.MODEL_ACCURACY_BY_ARCHITECTURE[("dense", "cdna4")]
    assert (mi355x["architecture_runs"], mi355x["architecture_mean_error"]) == (runs, mean) == (2, mean)
    text = str(accuracy_sentence(mi355x))
    assert "2 of those runs used the architecture of the AMD Instinct MI355X" in text
    assert ("this run may be faster than predicted" in text) == (mean > 0)
    # an architecture no run used states no figure of its own
    ascend = {**mi300x, "gpu": "Ascend-910C-128GB"}
    assert "architecture_runs" not in search(unpublished("llama3-70b"), ascend, gpus=256)["accuracy"]


def test_one_run_of_an_architecture_is_stated_as_one_run_not_an_average() -> None:
    """The MI325X Mixtral row is the one MoE run on CDNA3: the answer says what that run was."""
    figures = {
        "published_runs": 35,
        "mean_abs_error": 0.18,
        "time_ratio_low": 0.85,
        "time_ratio_high": 1.48,
        "train_days_low": 79.0,
        "train_days_high": 137.0,
        "gpu": "AMD Instinct MI300X",
        "gpu_architecture_measured": True,
        "kind": "moe",
        "architecture_runs": 1,
        "architecture_mean_error": -0.255,
    }
    text = str(accuracy_sentence(figures))
    assert "One of those runs used the architecture of the AMD Instinct MI300X; on it" in text
    assert (
        "26% shorter than published: this run may be slower" in text
        and "on average" not in text.split("MI300X;")[1]
    )
    assert "on them" not in text


def _hopper_dense(mean: float) -> dict[str, Any]:
    """A dense answer's accuracy figures on an H100, with the Hopper rows' mean signed error `mean`."""
    return {
        "published_runs": 103,
        "mean_abs_error": 0.065,
        "time_ratio_low": 0.94,
        "time_ratio_high": 1.12,
        "train_days_low": 45.0,
        "train_days_high": 54.0,
        "gpu": "NVIDIA H100 SXM5 80GB",
        "gpu_architecture_measured": True,
        "kind": "dense",
        "architecture_runs": 55,
        "architecture_mean_error": mean,
    }


@pytest.mark.parametrize("mean", [-0.005, 0.0049, -0.0049, 0.0])
def test_a_mean_that_rounds_to_zero_is_said_as_right_not_as_a_direction(mean: float) -> None:
    # Hopper dense was -0.5% over 55 runs: "0% shorter than published ... may be slower" points a way the
    # figure does not
    figures = _hopper_dense(mean)
    text = str(accuracy_sentence(figures))
    assert "on them the predicted step time was right on average" in text
    assert "0%" not in text.split("NVIDIA H100 SXM5 80GB;")[1]
    one = str(accuracy_sentence({**figures, "architecture_runs": 1}))
    assert "on it the predicted step time was right" in one


def test_a_mean_that_rounds_to_one_percent_keeps_its_direction() -> None:
    figures = _hopper_dense(-0.006)
    assert "1% shorter than published on average: this run may be slower" in str(accuracy_sentence(figures))


def test_an_answer_that_took_the_framework_defaults_says_how_far_the_runs_were_with_them(
    h100_ib: dict[str, Any],
) -> None:
    """The band is measured with each published run's own framework settings; an answer that assumed them (a
    search always does) also states how far the same runs were from the contract's keys alone, with the
    defaults it assumes (constants.MODEL_ACCURACY_DEFAULTS). An answer whose layout states them does not."""
    r = search(unpublished("gpt3-175b"), h100_ib, gpus=1024)
    acc = r["accuracy"]
    runs, defaults = C.MODEL_ACCURACY_DEFAULTS["dense"]
    assert acc["settings_assumed"] is True and acc["mean_abs_error_defaults"] == defaults
    assert defaults > acc["mean_abs_error"] and runs == acc["published_runs"]
    text = str(accuracy_sentence(acc))
    assert "with each run's own training-stack settings" in text
    assert f"the same runs were off by {100 * defaults:.0f}% on average" in text
    stated = evaluate(unpublished("gpt3-175b"), h100_ib, dict(r["layout"]), gpus=1024)["accuracy"]
    assert stated["settings_assumed"] is False and stated["mean_abs_error_defaults"] == defaults
    assert "the same runs were off by" not in str(accuracy_sentence(stated))
    # an answer stored before the field existed reads as before
    old = {k: v for k, v in acc.items() if k not in ("settings_assumed", "mean_abs_error_defaults")}
    old_text = str(accuracy_sentence(old))
    assert "the same runs were off by" not in old_text and f"on {runs} published dense" in old_text
    moe = search(unpublished("deepseek-v3-671b"), h100_ib, gpus=1024)["accuracy"]
    moe_text = str(accuracy_sentence(moe))
    assert f"off by {100 * C.MODEL_ACCURACY_DEFAULTS['moe'][1]:.0f}% on average" in moe_text
    assert "many small experts" in moe_text


def _of(name: str) -> dict[str, Any]:
    """A published model's shape (architectures.shape_of) as a workload of 4,096-token sequences."""
    from sizing.engine.architectures import architecture, shape_of

    shape = shape_of(architecture(name))
    return {**shape, "name": name, "seq_len": 4096, "global_batch": 1024, "train_tokens": 1e12}


def test_a_published_models_shape_states_that_models_own_band(h100_ib: dict[str, Any]) -> None:
    """gpt-oss-120b's published runs all ran slower than predicted (1.23-1.50 times at the 10th and 90th
    percentiles), outside most of the MoE band: an answer for that shape states its own model's runs and
    applies their band, so its days range starts above the prediction."""
    r = search(_of("gpt-oss-120b"), h100_ib, gpus=64)
    acc = r["accuracy"]
    runs, publications, mean_abs, mean, low, high, defaults = C.MODEL_ACCURACY_BY_MODEL["gpt-oss-120b"]
    assert (acc["band"], acc["model"], acc["model_runs"], acc["model_publications"]) == (
        "model",
        "gpt-oss-120b",
        runs,
        publications,
    )
    assert (acc["model_time_ratio_low"], acc["model_time_ratio_high"]) == (low, high) and low > 1.0
    assert acc["iteration_time_s_low"] == pytest.approx(r["iteration_time_s"] * low, abs=1e-3)
    assert r["train_days"] < acc["train_days_low"] < acc["train_days_high"]
    # the kind's figures stay what they were
    assert (acc["published_runs"], acc["time_ratio_high"]) == (
        C.MODEL_ACCURACY["moe"][0],
        C.MODEL_ACCURACY["moe"][3],
    )
    text = str(accuracy_sentence(acc))
    assert f"on {runs} published training runs of gpt-oss-120b" in text
    assert f"from {publications} publications or releases" in text
    assert f"off by {100 * mean_abs:.0f}% on average" in text and mean < 0
    assert f"{low:.2f} to {high:.2f} times the predicted time" in text
    assert f"about {acc['train_days_low']:,.0f} to {acc['train_days_high']:,.0f} days" in text
    # the architecture's figure is over the kind's runs, not this model's: not beside a model's band
    assert "used the architecture of" not in text
    # a search takes the framework defaults: how far the same runs of this model were with them
    assert acc["settings_assumed"] and acc["model_mean_abs_error_defaults"] == defaults
    assert f"the same runs were off by {100 * defaults:.0f}% on average" in text
    assert defaults != C.MODEL_ACCURACY_DEFAULTS["moe"][1]  # the model's own figure, not its kind's
    stated = evaluate(_of("gpt-oss-120b"), h100_ib, dict(r["layout"]), gpus=64)["accuracy"]
    assert stated["band"] == "model" and not stated["settings_assumed"]
    assert "the same runs were off by" not in str(accuracy_sentence(stated))


def test_models_that_share_a_shape_share_a_band_and_a_bare_count_names_its_model(
    h100_ib: dict[str, Any],
) -> None:
    llama70 = search("llama3-70b", h100_ib, gpus=256)["accuracy"]
    assert llama70["model"] == "Llama 2 70B / Llama 3 70B"
    assert llama70["model_runs"] == C.MODEL_ACCURACY_BY_MODEL["Llama 2 70B / Llama 3 70B"][0]
    bare = {"name": "Llama 3.1 405B", "params": 405e9, "seq_len": 8192, "global_batch": 2048}
    acc = search({**bare, "train_tokens": 1e12}, h100_ib, gpus=1024)["accuracy"]
    assert acc["band"] == "model" and acc["model"] == "Llama 3.1 405B"


def test_a_model_with_few_published_runs_states_its_kinds_band(h100_ib: dict[str, Any]) -> None:
    """Kimi K2 has five compared runs, under MODEL_BAND_MIN_RUNS: its answer keeps the MoE band. A model
    with enough runs from too few publications (Grok-1: twelve from two releases of one table) too."""
    assert C.MODEL_BAND_MIN_RUNS > 5 and "Kimi K2" not in C.MODEL_ACCURACY_BY_MODEL
    assert "Grok-1" not in C.MODEL_ACCURACY_BY_MODEL
    gb200 = {
        **h100_ib,
        "gpu": "GB200-186GB",
        "gpus_per_node": 4,
        "nvlink_domain_gpus": 72,
        "nics_per_node": 4,
    }
    acc = search(_of("Kimi K2"), {**gb200, "nodes": 128}, gpus=512)["accuracy"]
    assert acc["band"] == "kind" and "model" not in acc
    assert "mixture-of-experts" in str(accuracy_sentence(acc))


def test_a_models_band_on_an_unmeasured_architecture_still_says_so(h100_ib: dict[str, Any]) -> None:
    ascend = {
        **h100_ib,
        "intra_node": "nvlink-mesh",
        "name": "Ascend",
        "slug": "ascend",
        "gpu": "Ascend-910C-128GB",
    }
    acc = search("llama3-70b", ascend, gpus=256)["accuracy"]
    assert acc["band"] == "model" and acc["gpu_architecture_measured"] is False
    assert "None of those runs used the Huawei Ascend 910C" in str(accuracy_sentence(acc))


def test_the_architecture_sentence_beside_a_kinds_band_reads_in_chinese(h100_ib: dict[str, Any]) -> None:
    """The page shows an engine sentence in its language (portal.i18n.translated): a kind's band with its
    architecture's figure, in Chinese."""
    from django.utils import translation

    from portal.i18n import translated

    acc = search(unpublished("llama3-70b"), h100_ib, gpus=256)["accuracy"]
    message = accuracy_sentence(acc)
    assert acc["band"] == "kind" and message is not None
    with translation.override("zh-hans"):
        text = str(translated(message.as_json(), str(message)))
    assert "个已公开的稠密模型训练运行上" in text and "相同架构的 GPU" in text and text.endswith("。")
