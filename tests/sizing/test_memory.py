"""Exact memory test vectors of calibration.md §3."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pytest

from sizing.engine import constants as C
from sizing.engine import memory as M
from sizing.engine.calibration import SELENE

PSI = 7.5e9
GRID = {  # stage -> GB for Nd = 1, 4, 16, 64, 256, 1024 (ZeRO paper, cal §3)
    1: [120, 52.5, 35.6, 31.4, 30.4, 30.1],
    2: [120, 41.3, 21.6, 16.6, 15.4, 15.1],
    3: [120, 30, 7.5, 1.88, 0.47, 0.12],
}


@pytest.mark.parametrize("stage", [1, 2, 3])
def test_it_reproduces_the_zero_paper_grid(stage: int) -> None:
    for nd, want in zip([1, 4, 16, 64, 256, 1024], GRID[stage], strict=True):
        got = Decimal(float(M.zero_paper_bytes(PSI, nd, stage))) / Decimal(10**9)
        quantum = Decimal(str(want)) if "." in str(want) else Decimal(1)
        # the paper rounds half up (41.25 -> 41.3)
        assert got.quantize(quantum.normalize() if "." in str(want) else quantum, ROUND_HALF_UP) == Decimal(
            str(want)
        ), (stage, nd, got)


def test_it_reproduces_the_zero_paper_baseline_and_1t_row() -> None:
    assert float(M.zero_paper_bytes(PSI, 64, 0)) / 1e9 == 120
    got = [round(float(M.zero_paper_bytes(1e12, 64, s)) / 1e9, 1) for s in (1, 2, 3)]
    assert got == [4187.5, 2218.8, 250.0]


def test_megatron_convention_is_18_bytes_and_6_plus_12_over_dp_with_distributed_optimizer() -> None:
    w, g, o = M.model_state_bytes(1.0, 8, 0, "megatron")
    assert float(w + g + o) == 18.0
    w, g, o = M.model_state_bytes(1.0, 8, 1, "megatron")
    assert float(w + g + o) == 6.0 + 12.0 / 8


# Korthikanti Figure 1 per-GPU GiB (cal §3): (layers, hidden, heads, t, p, v, micro-batch)
KORTHIKANTI = [
    ((48, 6144, 64, 8, 1, 1, 4), 45.5625, 59.25, 9.5625),
    ((96, 12288, 96, 8, 8, 3, 1), 45.5625, 66.84375, 12.3515625),
    ((105, 20480, 128, 8, 35, 3, 1), 31.640625, 114.0234375, 23.076171875),
    ((128, 25600, 160, 8, 64, 1, 1), 32.958984375, 131.25, 26.5625),
]


@pytest.mark.parametrize(("shape", "states", "tp_only", "sp_sel"), KORTHIKANTI)
def test_it_reproduces_korthikanti_figure_1_exactly(
    shape: tuple[int, ...], states: float, tp_only: float, sp_sel: float
) -> None:
    layers, h, a, t, p, v, b = shape
    s = 2048
    coeffs = M.activation_coefficients(h, a, h, 16.0)  # MHA, 4h GeLU MLP
    # the first stage holds L/p layers x p micro-batches in flight (x interleaving factor)
    held = layers / p * float(M.in_flight_factor(p, v, 10**6))
    act_tp = float(M.activation_bytes_per_layer(s, b, h, coeffs, t, False, 0)) * held
    act_sel = float(M.activation_bytes_per_layer(s, b, h, coeffs, t, True, 1)) * held
    w, g, o = M.model_state_bytes(12 * layers * h * h / (t * p), 1, 0, "megatron")
    assert float(w + g + o) / C.GIB == states
    assert act_tp / C.GIB == tp_only
    assert act_sel / C.GIB == sp_sel


def test_full_recompute_keeps_2sbh_per_layer() -> None:
    coeffs = M.activation_coefficients(4096, 32, 4096, 16.0)
    assert float(M.activation_bytes_per_layer(2048, 1, 4096, coeffs, 8, False, 2)) == 2 * 2048 * 4096


def test_it_reproduces_the_deepspeed_t5_3b_estimates() -> None:
    # t5-3b: 2851M params; largest layer is the 32128 x 1024 embedding (32.9M, printed as "32M")
    assert round(M.deepspeed_zero2_bytes(2851e6, 8) / C.GIB, 2) == 15.93
    assert round(M.deepspeed_zero3_bytes(2851e6, 32128 * 1024, 8) / C.GIB, 2) == 6.10


def test_in_flight_is_capped_by_the_number_of_micro_batches() -> None:
    assert float(M.in_flight_factor(16, 1, 4)) == 4
    assert float(M.in_flight_factor(16, 1, 64)) == 16


A100_64 = {**SELENE, "name": "A100 x 64", "nodes": 8}


def test_zero3_partitioned_states_match_the_zero_paper_and_gathered_parameters_are_their_own_line() -> None:
    from sizing.engine import evaluate

    # 7.5B (no embedding) with ZeRO-3 over 64 GPUs, zero-paper bytes: 16 x 7.5e9 / 64 = 1.88 GB (cal §3)
    wl = {"name": "7.5b", "layers": 36, "hidden": 4096, "heads": 32, "vocab": 128, "seq_len": 2048}
    wl.update({"global_batch": 64, "train_tokens": 1e11})
    r = evaluate(wl, A100_64, {"tp": 1, "pp": 1, "dp": 64, "zero": 3, "optimizer": "zero-paper"}, gpus=64)
    m = r["memory_gib_per_gpu"]
    states_gb = (m["weights"] + m["grads"] + m["optimizer"]) * C.GIB / 1e9
    psi = r["params"]["total"]
    assert psi == pytest.approx(7.25e9, rel=0.01)
    assert states_gb == pytest.approx(16 * psi / 64 / 1e9, rel=0.005)
    # the parameters gathered for the layer in flight are reported apart: DeepSpeed's estimate, 4 bytes per
    # parameter of the largest layer (its 16-bit weights and gradients, cal §3 t5-3b vector)
    largest = 12 * 4096**2 + 2 * 4096
    assert m["gathered_params"] * C.GIB == pytest.approx(4 * largest, rel=0.01)
    assert m["total"] > m["weights"] + m["grads"] + m["optimizer"] + m["gathered_params"]


def test_zero3_states_follow_the_zero_paper_under_the_default_convention() -> None:
    from sizing.engine import evaluate

    # no optimizer given: the A100's default is Megatron's fp32 main gradients (18 bytes/param), which a
    # ZeRO-3 shard does not keep; its states are the ZeRO paper's 16 bytes/param over DP (cal §3)
    wl = {"name": "7.5b", "layers": 36, "hidden": 4096, "heads": 32, "vocab": 128, "seq_len": 2048}
    wl.update({"global_batch": 64, "train_tokens": 1e11})
    r = evaluate(wl, A100_64, {"tp": 1, "pp": 1, "dp": 64, "zero": 3}, gpus=64)
    m = r["memory_gib_per_gpu"]
    psi = r["params"]["total"]
    states_gb = (m["weights"] + m["grads"] + m["optimizer"]) * C.GIB / 1e9
    assert states_gb == pytest.approx(16 * psi / 64 / 1e9, rel=0.005)
    # ZeRO-1 and ZeRO-2 keep the convention's fp32 main gradient (Megatron: 18 bytes/param in all)
    w, g, o = M.model_state_bytes(1.0, 8, 2, "megatron")
    assert (w, g * 8, o * 8) == (2.0, 4.0, 12.0)
    w, g, o = M.model_state_bytes(1.0, 8, 3, "megatron")
    assert (w * 8, g * 8, o * 8) == (2.0, 2.0, 12.0)


def test_one_stage_holds_an_untied_output_layer_beside_the_embedding() -> None:
    from sizing.engine import evaluate

    # Megatron-LM theoretical_memory_usage.py: the most loaded shard is 1/pp of the layers plus one embedding,
    # plus the output layer when pp = 1 and the two are untied (cal §3)
    base = {"name": "8b", "layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8, "ffn_hidden": 14336}
    base.update(
        {"vocab": 128256, "seq_len": 8192, "global_batch": 64, "train_tokens": 1e11, "activation": "swiglu"}
    )
    lay = {"tp": 1, "pp": 1, "dp": 8, "zero": 0, "optimizer": "zero-paper"}
    states = {}
    for tied in (False, True):
        r = evaluate({**base, "tied_embeddings": tied}, {**A100_64, "nodes": 1}, lay, gpus=8)
        m = r["memory_gib_per_gpu"]
        states[tied] = (m["weights"] + m["grads"] + m["optimizer"]) * C.GIB
        assert states[tied] == pytest.approx(16 * r["params"]["total"], rel=0.002)
    assert states[False] - states[True] == pytest.approx(16 * 128256 * 4096, rel=0.002)


def test_hbm_is_the_capacity_the_device_reports() -> None:
    from sizing.engine.hardware import hardware_from_facts

    h100 = hardware_from_facts({**A100_64, "gpu": "H100-SXM-80GB"})
    assert h100.hbm_bytes == 81559 * 2**20  # nvidia-smi memory.total, not 80e9 bytes
    h200 = hardware_from_facts({**A100_64, "gpu": "H200-SXM-141GB"})
    assert h200.hbm_bytes == 143771 * 2**20
    # no reported figure: the datasheet's GB, and the answer says so
    gb300 = hardware_from_facts({**A100_64, "gpu": "GB300-288GB"})
    assert gb300.hbm_bytes == 288e9
    assert any("capacity the device reports is not known" in a for a in gb300.assumptions)


def test_reserve_is_cuda_context_nccl_buffers_and_fragmentation() -> None:
    assert C.OVERHEAD_FIXED_GIB == C.CUDA_CONTEXT_GIB + C.NCCL_BUFFERS_GIB
    assert float(M.overhead_bytes(10 * C.GIB)) == pytest.approx((2.0 + 0.5) * C.GIB)


def test_llama31_405b_published_h100_layout_fits() -> None:
    from sizing.engine import evaluate

    # NeMo Megatron-Bridge 25.11, 1,024 H100: TP8 PP8 CP2 VP8, micro-batch 1, fp8 (validation set)
    h100 = {**A100_64, "gpu": "H100-SXM-80GB", "gbps_per_nic": 400, "nodes": 128}
    wl = {"preset": "llama3-405b", "global_batch": 512, "precision": "fp8"}
    r = evaluate(wl, h100, {"tp": 8, "pp": 8, "dp": 8, "cp": 2, "virtual_stages": 8}, gpus=1024)
    assert r["feasible"], r["reasons"]
    assert r["memory_gib_per_gpu"]["total"] < 81559 / 1024


def test_parameters_kept_gathered_until_the_backward_grow_their_line_and_halve_the_gathers() -> None:
    from sizing.engine import evaluate

    # FSDP2 reshard_after_forward=False: every layer stays gathered from its forward to its backward pass
    wl = {"name": "7.5b", "layers": 36, "hidden": 4096, "heads": 32, "vocab": 128, "seq_len": 2048}
    wl.update({"global_batch": 128, "train_tokens": 1e11})
    lay = {"tp": 1, "pp": 1, "dp": 64, "zero": 3, "optimizer": "zero-paper", "micro_batch": 1}
    resharded = evaluate(wl, A100_64, lay, gpus=64)
    kept = evaluate(wl, A100_64, {**lay, "reshard_after_forward": False}, gpus=64)
    assert resharded["layout"]["reshard_after_forward"] is True
    assert kept["layout"]["reshard_after_forward"] is False
    psi = kept["params"]["total"]
    # the whole model in bf16 less this GPU's own 1/64 shard
    assert kept["memory_gib_per_gpu"]["gathered_params"] * C.GIB == pytest.approx(2 * psi * 63 / 64, rel=0.01)
    assert kept["memory_gib_per_gpu"]["weights"] == resharded["memory_gib_per_gpu"]["weights"]
    # per micro-batch: one all-gather (forward) and one reduce-scatter instead of two gathers and one
    # reduce-scatter, the gathers moving as many bytes as the reduce-scatters (both 2 bytes per parameter)
    from sizing.engine.api import as_workload, hardware_from_facts
    from sizing.engine.layout import layout_from_dict
    from sizing.engine.model import evaluate_grid

    workload, hw = as_workload(wl), hardware_from_facts(A100_64)

    def dp_total(layout: dict[str, Any]) -> float:
        grid = layout_from_dict(layout, workload, gpus=64)[0].grid()
        return float(evaluate_grid(workload, hw, grid, "zero-paper")["t_dp_total"])

    assert dp_total({**lay, "reshard_after_forward": False}) == pytest.approx(2 / 3 * dp_total(lay))
    assert kept["iteration_breakdown_s"]["dp_comm"] <= resharded["iteration_breakdown_s"]["dp_comm"]


def test_the_explanation_says_what_zero_moves_for_the_micro_batches_there_are() -> None:
    from sizing.engine import evaluate

    wl = {"name": "7.5b", "layers": 36, "hidden": 4096, "heads": 32, "vocab": 128, "seq_len": 2048}
    wl.update({"global_batch": 64, "train_tokens": 1e11})
    lay = {"tp": 1, "pp": 1, "dp": 64, "zero": 3, "optimizer": "zero-paper", "micro_batch": 1}

    def zero_line(layout: dict[str, Any], batch: int = 64) -> str:
        answer = evaluate({**wl, "global_batch": batch}, A100_64, layout, gpus=64)
        return next(line for line in answer["explanation"] if line.startswith("ZeRO-"))

    # one micro-batch per replica: said as one, not "each of the 1 micro-batches"
    one = zero_line(lay)
    assert one.startswith("ZeRO-3 also shards the weights: the one micro-batch all-gathers them in")
    assert "each of the 4 micro-batches" in zero_line(lay, batch=256)
    # parameters kept gathered from the forward to the backward: gathered once, as the model charges
    kept = zero_line({**lay, "reshard_after_forward": False}, batch=256)
    assert "each of the 4 micro-batches all-gathers them once in the forward pass" in kept
    assert "again in the backward" not in kept
    assert "with one micro-batch per step they are reduce-scattered once" in zero_line({**lay, "zero": 2})
    assert "every one of the 4 micro-batches" in zero_line({**lay, "zero": 2}, batch=256)


def test_the_rank_with_the_output_layer_holds_one_micro_batchs_fp32_logits() -> None:
    """Korthikanti et al. 2022 sec. 4.3: the cross entropy keeps the logits in fp32, 4 s b v / t bytes, on the
    rank with the output layer; one stage holds them beside all its layers' activations."""
    from sizing.engine import evaluate

    base = {"name": "8b", "layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8, "ffn_hidden": 14336}
    base.update({"seq_len": 8192, "global_batch": 64, "train_tokens": 1e11, "activation": "swiglu"})
    lay = {"tp": 2, "pp": 1, "dp": 4, "zero": 1, "micro_batch": 2}
    acts = {}
    for vocab in (32000, 128256):
        r = evaluate({**base, "vocab": vocab}, {**A100_64, "nodes": 1}, lay, gpus=8)
        acts[vocab] = r["memory_gib_per_gpu"]["activations"] * C.GIB
    assert acts[128256] - acts[32000] == pytest.approx(4 * 8192 * 2 * (128256 - 32000) / 2, rel=0.002)
    assert float(M.logits_bytes(8192, 2, 128256, 2)) == 4 * 8192 * 2 * 128256 / 2


def test_the_last_stage_holds_the_output_layer_and_its_logits() -> None:
    """With pipeline stages the last rank holds the output layer (its own copy of a tied embedding) and one
    micro-batch's logits; where its layers equal the others', it is the most loaded in weights, and a large
    vocabulary over few in-flight micro-batches makes it the most loaded in activations."""
    from sizing.engine import evaluate

    base = {"name": "8b", "layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8, "ffn_hidden": 14336}
    base.update({"seq_len": 4096, "global_batch": 64, "train_tokens": 1e11, "activation": "swiglu"})
    lay = {"tp": 1, "pp": 2, "dp": 4, "zero": 0, "recompute": "full", "optimizer": "zero-paper"}
    r = {}
    for vocab in (32000, 256000):
        r[vocab] = evaluate({**base, "vocab": vocab}, {**A100_64, "nodes": 1}, lay, gpus=8)[
            "memory_gib_per_gpu"
        ]
    # two stages of 16 layers: the embedding on the first, the output layer on the last, both 16 bytes each
    states = {v: (m["weights"] + m["grads"] + m["optimizer"]) * C.GIB for v, m in r.items()}
    assert states[256000] - states[32000] == pytest.approx(16 * (256000 - 32000) * 4096, rel=0.002)
    # 31 layers on 2 stages run 15 and 16: the last stage's 16 layers and output layer weigh what 32 layers'
    # stages do, where the first stage's 15 with the embedding weigh one layer less
    odd = evaluate({**base, "vocab": 32000, "layers": 31}, {**A100_64, "nodes": 1}, lay, gpus=8)
    m = odd["memory_gib_per_gpu"]
    assert (m["weights"] + m["grads"] + m["optimizer"]) * C.GIB == pytest.approx(states[32000], rel=1e-9)
    # full recompute keeps 2 s b h per layer (32 MiB): rank 0 holds 2 micro-batches of 16 layers (1 GiB); the
    # last rank one micro-batch of 16 layers (0.5 GiB) and 4 s v bytes of logits (3.9 GiB at v = 256k)
    assert r[256000]["activations"] * C.GIB == pytest.approx(
        2 * 4096 * 4096 * 16 + 4 * 4096 * 256000, rel=0.01
    )
