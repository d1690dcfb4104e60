"""Framework settings in the layout: communication overlap flags, their defaults by GPU generation."""

from __future__ import annotations

from typing import Any

import pytest

from sizing.engine import InputError, evaluate, search, zero
from sizing.engine.calibration import SELENE

H100_LAYOUT = {"tp": 8, "pp": 4, "dp": 16, "virtual_stages": 5}
FLAGS = ("tp_comm_overlap", "overlap_grad_reduce", "overlap_param_gather", "overlap_p2p_comm")


def test_hopper_defaults_to_megatron_core_overlap_and_says_so(h100_ib: dict[str, Any]) -> None:
    r = evaluate("llama3-70b", h100_ib, H100_LAYOUT, gpus=512)
    assert all(r["layout"][k] is True for k in FLAGS)
    stated = "Megatron-Core/NeMo 2024+ defaults assumed on NVIDIA H100 SXM5 80GB"
    assert any(stated in a for a in r["assumptions"])


def test_a100_defaults_to_the_2021_settings_and_says_so(a100_ib: dict[str, Any]) -> None:
    r = evaluate("gpt3-175b", a100_ib, {"tp": 8, "pp": 8}, gpus=1024)
    assert all(r["layout"][k] is False for k in FLAGS)
    assert any("2021-22 Megatron-LM/DeepSpeed settings assumed" in a for a in r["assumptions"])


def test_a_layout_that_states_every_flag_takes_no_default(h100_ib: dict[str, Any]) -> None:
    lay = {**H100_LAYOUT, **dict.fromkeys(FLAGS, False)}
    r = evaluate("llama3-70b", h100_ib, lay, gpus=512)
    assert not any("overlap settings not given" in a for a in r["assumptions"])
    assert all(r["layout"][k] is False for k in FLAGS)


def test_tp_overlap_hides_tensor_parallel_traffic_behind_the_gemms(h100_ib: dict[str, Any]) -> None:
    on = evaluate("llama3-70b", h100_ib, {**H100_LAYOUT, "tp_comm_overlap": True}, gpus=512)
    off = evaluate("llama3-70b", h100_ib, {**H100_LAYOUT, "tp_comm_overlap": False}, gpus=512)
    t_on, t_off = on["iteration_breakdown_s"]["tp_comm"], off["iteration_breakdown_s"]["tp_comm"]
    # Transformer Engine userbuffers: the first/last chunk stays exposed, (1/8 + 1/4) / 2 of it at TP=8
    assert t_on == pytest.approx(t_off * (1 / 8 + 1 / 4) / 2, rel=0.01)
    # it needs sequence parallelism: without SP nothing is hidden
    no_sp = {**H100_LAYOUT, "sequence_parallel": False}
    assert (
        evaluate("llama3-70b", h100_ib, {**no_sp, "tp_comm_overlap": True}, gpus=512)["iteration_breakdown_s"]
        == evaluate("llama3-70b", h100_ib, {**no_sp, "tp_comm_overlap": False}, gpus=512)[
            "iteration_breakdown_s"
        ]
    )


def test_overlapped_pipeline_sends_cost_a_chain_not_every_micro_batch(h100_ib: dict[str, Any]) -> None:
    on = evaluate("llama3-70b", h100_ib, {**H100_LAYOUT, "overlap_p2p_comm": True}, gpus=512)
    off = evaluate("llama3-70b", h100_ib, {**H100_LAYOUT, "overlap_p2p_comm": False}, gpus=512)
    m, p, v = on["micro_batches_per_iteration"], 4, 5
    # blocking: 2 v sends per micro-batch; overlapped: the dependency chain of the interleaved schedule,
    # 2 (p v - 1) sends per step (discrete-event simulation of Megatron's order, docs/MODEL.md)
    ratio = on["iteration_breakdown_s"]["pp_comm"] / off["iteration_breakdown_s"]["pp_comm"]
    assert ratio == pytest.approx(2 * (p * v - 1) / (2 * v * m), rel=0.01)


def test_grad_reduce_overlap_hides_behind_the_last_backward(h100_ib: dict[str, Any]) -> None:
    lay = {"tp": 8, "pp": 1, "dp": 64, "zero": 1}
    on = evaluate(
        "llama3-70b", h100_ib, {**lay, "overlap_grad_reduce": True, "overlap_param_gather": True}, gpus=512
    )
    off = evaluate(
        "llama3-70b", h100_ib, {**lay, "overlap_grad_reduce": False, "overlap_param_gather": False}, gpus=512
    )
    assert on["iteration_breakdown_s"]["dp_comm"] < 0.5 * off["iteration_breakdown_s"]["dp_comm"]


def test_flags_must_be_booleans(h100_ib: dict[str, Any]) -> None:
    with pytest.raises(InputError) as err:
        evaluate("llama3-70b", h100_ib, {**H100_LAYOUT, "tp_comm_overlap": "yes"}, gpus=512)
    assert err.value.field == "layout.tp_comm_overlap"


def test_search_evaluates_the_framework_default_and_does_not_toggle_it(h100_ib: dict[str, Any]) -> None:
    r = search("llama3-70b", h100_ib, gpus=512)
    assert all(r["layout"][k] is True for k in FLAGS)
    assert all(a["layout"][k] is True for a in r["alternatives"] for k in FLAGS)
    a100 = search("gpt3-175b", {**SELENE, "nodes": 128}, gpus=1024)
    assert all(a100["layout"][k] is False for k in FLAGS)


def test_fp32_gradient_reduction_doubles_the_gradient_traffic(a100_ib: dict[str, Any]) -> None:
    # Megatron-LM 2021-23 reduced bf16 gradients in fp32 (arguments.py); ZeRO-0 moves only gradients
    lay = {"tp": 8, "pp": 8, "zero": 0}
    bf16 = evaluate("gpt3-175b", a100_ib, {**lay, "grad_reduce_in_fp32": False}, gpus=1024)
    fp32 = evaluate("gpt3-175b", a100_ib, {**lay, "grad_reduce_in_fp32": True}, gpus=1024)
    assert bf16["layout"]["grad_reduce_in_fp32"] is False and fp32["layout"]["grad_reduce_in_fp32"] is True
    ratio = fp32["iteration_breakdown_s"]["dp_comm"] / bf16["iteration_breakdown_s"]["dp_comm"]
    assert ratio == pytest.approx(2.0, rel=0.05)
    assert fp32["iteration_breakdown_s"]["compute"] == bf16["iteration_breakdown_s"]["compute"]
    with pytest.raises(InputError) as err:
        evaluate("gpt3-175b", a100_ib, {**lay, "grad_reduce_in_fp32": "yes"}, gpus=1024)
    assert err.value.field == "layout.grad_reduce_in_fp32"


ZERO3_NOTE = "ZeRO-3 data-parallel overlap not given"


def test_zero3_overlap_default_is_said_only_when_it_was_taken(a100_ib: dict[str, Any]) -> None:
    lay = {"tp": 1, "pp": 1, "dp": 128, "zero": 3, "micro_batch": 1, "recompute": "full"}
    unset = evaluate("13b", a100_ib, lay)
    assert unset["layout"]["overlap_grad_reduce"] and unset["layout"]["overlap_param_gather"]
    assert any(ZERO3_NOTE in a for a in unset["assumptions"])
    # both data-parallel flags stated (the TP flag left to the default): nothing of ZeRO-3's was assumed
    stated = evaluate("13b", a100_ib, {**lay, "overlap_grad_reduce": False, "overlap_param_gather": False})
    assert not any(ZERO3_NOTE in a for a in stated["assumptions"])
    assert stated["iteration_time_s"] > unset["iteration_time_s"]
    # ZeRO-1 keeps the GPU generation's default (no overlap on A100)
    zero1 = evaluate("13b", a100_ib, {**lay, "zero": 1})
    assert not zero1["layout"]["overlap_grad_reduce"] and not any(
        ZERO3_NOTE in a for a in zero1["assumptions"]
    )


def test_a_zero3_search_answer_says_which_overlap_it_assumed(a100_ib: dict[str, Any]) -> None:
    r = search("13b", {**a100_ib, "nodes": 1}, objective="cheapest")
    assert r["layout"]["zero"] == 3 and any(ZERO3_NOTE in a for a in r["assumptions"])
    assert r["iteration_time_s"] == evaluate("13b", {**a100_ib, "nodes": 1}, r["layout"])["iteration_time_s"]


def test_the_gradient_overlap_is_explained_in_words_with_the_flag_named_as_megatrons() -> None:
    """A reader who does not know Megatron's flags learns what the overlap does; the flag is named as
    Megatron's option, never on its own."""
    from sizing.engine.explain import _dp_traffic
    from sizing.engine.layout import Layout

    result = {"iteration_breakdown_s": {"dp_comm": 0.5}}
    off = str(_dp_traffic(Layout(tp=1, pp=1, dp=8, overlap_grad_reduce=False), result))
    on = str(_dp_traffic(Layout(tp=1, pp=1, dp=8, overlap_grad_reduce=True), result))
    assert "waits for the end of the backward pass" in off and "Megatron's overlap_grad_reduce off" in off
    assert "bucket by bucket" in on and "Megatron's overlap_grad_reduce)" in on
    assert "without overlap_grad_reduce" not in off and "(overlap_grad_reduce:" not in on


def test_flat_zero3_gathers_pipeline_with_the_compute_and_per_tensor_ones_hide_at_most_their_cap(
    h100_ib: dict[str, Any],
) -> None:
    # 70B with ZeRO-3 alone over 16 nodes and 2 micro-batches of 1: each pass's gathers (140 GB in bf16 per
    # GPU) take longer than a third of its compute, so the 30% cap of DeepSpeed 2021's per-tensor gathers
    # binds, while FSDP-style flat buffers hide behind the whole pass but the first layer's share
    lay = {"tp": 1, "pp": 1, "dp": 128, "zero": 3, "micro_batch": 1, "recompute": "full"}
    flat = evaluate("llama3-70b", h100_ib, {**lay, "zero3_gather": "flat"}, gpus=128)
    per_tensor = evaluate("llama3-70b", h100_ib, {**lay, "zero3_gather": "per_tensor"}, gpus=128)
    assert flat["feasible"] and per_tensor["feasible"]
    exposed_flat = flat["iteration_breakdown_s"]["dp_comm"]
    exposed_per_tensor = per_tensor["iteration_breakdown_s"]["dp_comm"]
    assert 0 < exposed_flat < 0.5 * exposed_per_tensor
    # each answer says which way it gathers, and how much of that hides
    assert any(a.startswith("ZeRO-3 gathers: one flat buffer per layer") for a in flat["assumptions"])
    assert any(
        a.startswith("ZeRO-3 gathers: one collective per parameter tensor") and "at most 30%" in a
        for a in per_tensor["assumptions"]
    )
    flat_text = " ".join(flat["explanation"])
    assert "all but one layer's share" in flat_text and "at most 30%" not in flat_text
    assert "at most 30% of each pass's compute" in " ".join(per_tensor["explanation"])


def test_zero3_gathers_default_to_per_tensor_on_the_2021_stacks_and_to_flat_buffers_later(
    a100_ib: dict[str, Any], h100_ib: dict[str, Any]
) -> None:
    lay = {"tp": 1, "pp": 1, "dp": 64, "zero": 3, "micro_batch": 1, "recompute": "full"}
    a100 = evaluate("13b", a100_ib, lay, gpus=64)
    h100 = evaluate("13b", h100_ib, lay, gpus=64)
    assert any(
        a.startswith("ZeRO-3 gathers: one collective per parameter tensor") for a in a100["assumptions"]
    )
    assert any(a.startswith("ZeRO-3 gathers: one flat buffer per layer") for a in h100["assumptions"])
    # stating it overrides the GPU's default
    stated = evaluate("13b", a100_ib, {**lay, "zero3_gather": "flat"}, gpus=64)
    assert any(a.startswith("ZeRO-3 gathers: one flat buffer per layer") for a in stated["assumptions"])
    assert stated["iteration_breakdown_s"]["dp_comm"] < a100["iteration_breakdown_s"]["dp_comm"]


def test_zero3_exposure_per_gather_mode_in_numbers() -> None:
    # one micro-batch's ZeRO-3 traffic: 1 s of gathers per pass and 1 s of reduce-scatters, 10 layers
    g = zero.GroupTraffic(
        all_reduce=0.0, reduce_scatter=0.0, all_gather=0.0, buckets=1.0, layer_gathers=1.0, layer_scatters=1.0
    )
    o = zero._Overlap(grad=True, param=True, forward_mb=1.0, backward_mb=2.0, buckets=1.0)
    total, per_tensor = zero._zero3(g, 2.0, o, True, True, 10.0)
    _, flat = zero._zero3(g, 2.0, o, True, False, 10.0)
    assert float(total) == pytest.approx(6.0)  # 2 micro-batches x (forward gather, backward gather, scatter)
    # per tensor: 30% of each pass hides: (1 - 0.3) + (2 - 0.6) per micro-batch
    assert float(per_tensor) == pytest.approx(2 * (0.7 + 1.4))
    # flat: the whole pass hides them but one layer's share: 1/10 + 2/10 per micro-batch
    assert float(flat) == pytest.approx(2 * (0.1 + 0.2))
    # a pass shorter than its traffic leaves the difference exposed
    short = zero._Overlap(grad=True, param=True, forward_mb=0.5, backward_mb=1.0, buckets=1.0)
    _, flat_short = zero._zero3(g, 1.0, short, True, False, 10.0)
    assert float(flat_short) == pytest.approx(0.5 + 1.0)
    # without prefetch (overlap_param_gather off) nothing hides, whatever the gather mode
    off = zero._Overlap(grad=True, param=False, forward_mb=1.0, backward_mb=2.0, buckets=1.0)
    assert float(zero._zero3(g, 1.0, off, True, False, 10.0)[1]) == pytest.approx(3.0)
    assert float(zero._zero3(g, 1.0, off, True, True, 10.0)[1]) == pytest.approx(3.0)


def test_unset_gradient_reduction_follows_the_optimizer_convention(
    a100_ib: dict[str, Any], h100_ib: dict[str, Any]
) -> None:
    # Megatron-LM reduces its fp32 main gradients as kept (arguments.py, forced for bf16); a convention with
    # 2-byte gradients, ZeRO-2/3, and the A100's fp16-era stack reduce 2 bytes (overlap.reduces_grads_in_fp32)
    mi300x = {**a100_ib, "gpu": "MI300X-192GB", "intra_node": "nvlink-mesh"}
    lay = {"tp": 8, "pp": 8, "zero": 1}
    unset = evaluate("gpt3-175b", mi300x, lay, gpus=1024)
    fp32 = evaluate("gpt3-175b", mi300x, {**lay, "grad_reduce_in_fp32": True}, gpus=1024)
    bf16 = evaluate("gpt3-175b", mi300x, {**lay, "grad_reduce_in_fp32": False}, gpus=1024)
    assert unset["layout"]["grad_reduce_in_fp32"] is True
    assert unset["iteration_breakdown_s"] == fp32["iteration_breakdown_s"]
    assert unset["iteration_breakdown_s"]["dp_comm"] > bf16["iteration_breakdown_s"]["dp_comm"]
    note = "gradient reduction precision not given: fp32 assumed"
    assert sum(note in a for a in unset["assumptions"]) == 1
    assert not any(note in a for a in fp32["assumptions"] + bf16["assumptions"])
    others = (
        evaluate("gpt3-175b", mi300x, {**lay, "optimizer": "zero-paper"}, gpus=1024),
        evaluate("gpt3-175b", mi300x, {"tp": 1, "pp": 1, "zero": 3, "micro_batch": 1}, gpus=1024),
        evaluate("gpt3-175b", a100_ib, lay, gpus=1024),  # the calibration runs' fp16 stack
        evaluate("llama3-70b", h100_ib, H100_LAYOUT, gpus=512),
    )
    for r in others:
        assert r["layout"]["grad_reduce_in_fp32"] is False
        assert not any(note in a for a in r["assumptions"])
    # the search reports the value it evaluated and says so; on Hopper its convention keeps bf16 gradients
    found = search("gpt3-175b", mi300x, gpus=1024)
    assert found["layout"]["zero"] <= 1 and found["layout"]["grad_reduce_in_fp32"] is True
    assert any(note in a for a in found["assumptions"])
    again = evaluate("gpt3-175b", mi300x, dict(found["layout"]), gpus=1024)
    assert again["iteration_time_s"] == pytest.approx(found["iteration_time_s"], rel=1e-9)
    assert search("llama3-70b", h100_ib, gpus=512)["layout"]["grad_reduce_in_fp32"] is False
    # a layout whose unstated ZeRO stage is fitted past ZeRO-1 reduces in bf16 and says nothing of fp32
    fitted = evaluate("llama3-70b", {**mi300x, "nodes": 16}, {"tp": 1, "pp": 1, "micro_batch": 1}, gpus=128)
    assert fitted["feasible"] and fitted["layout"]["zero"] >= 2
    assert fitted["layout"]["grad_reduce_in_fp32"] is False
    assert not any(note in a for a in fitted["assumptions"])
