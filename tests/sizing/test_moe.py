"""Mixture of experts: expert parallelism folded over the dense ranks, routing costs, all-to-all on the
real fabric, load imbalance, NVLink domains larger than a node."""

from __future__ import annotations

from typing import Any

import pytest

from sizing.engine import InputError, evaluate, workload_preset
from sizing.engine import constants as C
from sizing.engine.model import WorkloadShape
from sizing.engine.workload import workload_from_dict
from tests.sizing.conftest import GB200

H800 = {
    "name": "H800 IB",
    "gpu": "H800-SXM-80GB",
    "gpus_per_node": 8,
    "intra_node": "nvswitch",
    "fabric": "infiniband",
    "nics_per_node": 8,
    "gbps_per_nic": 400,
    "topology": "fat-tree",
    "nodes": 256,
}
CLOUDMATRIX = {
    "name": "CloudMatrix384",
    "gpu": "Ascend-910C-128GB",
    "gpus_per_node": 8,
    "nvlink_domain_gpus": 384,
    "intra_node": "nvlink-mesh",
    "fabric": "roce",
    "nics_per_node": 8,
    "gbps_per_nic": 200,
    "topology": "clos",
    "nodes": 48,
}
DSV3 = {"tp": 1, "pp": 8, "dp": 32, "ep": 32, "etp": 1, "virtual_stages": 4}


def qwen3_235b_like() -> dict[str, Any]:
    return {
        **workload_preset("deepseek-v3-671b").to_dict(),
        "name": "qwen3-235b-like",
        "layers": 94,
        "hidden": 4096,
        "heads": 64,
        "kv_heads": 4,
        "head_dim": 128,
        "moe": {"experts": 128, "top_k": 8, "expert_ffn_hidden": 1536},
    }


def test_deepseek_v3_published_layout_is_accepted_and_fits() -> None:
    # DeepSeek-V3 report: PP16, EP64 spanning 8 nodes, ZeRO-1 DP on 2,048 H800 (no TP)
    r = evaluate("deepseek-v3-671b", H800, {"tp": 1, "pp": 16, "dp": 128, "ep": 64, "zero": 1}, gpus=2048)
    assert r["feasible"] and r["layout"]["ep"] == 64


def test_expert_parallelism_folds_over_tensor_and_data_parallel_ranks(h100_ib: dict[str, Any]) -> None:
    qwen = qwen3_235b_like()
    # Megatron-Bridge's Qwen3-235B recipe: TP2 PP8 EP32 ETP1 on 256 H100: EP32 > DP16, folded over TP x DP
    ok = evaluate(qwen, h100_ib, {"tp": 2, "pp": 8, "dp": 16, "ep": 32, "etp": 1}, gpus=256)
    assert ok["layout"]["etp"] == 1 and ok["layout"]["ep"] == 32
    # with ETP = TP stated, EP must divide DP x CP: refused, naming the field
    with pytest.raises(InputError) as err:
        evaluate(qwen, h100_ib, {"tp": 2, "pp": 8, "dp": 16, "ep": 32, "etp": 2}, gpus=256)
    assert err.value.field == "layout.ep"
    # ETP not stated on Hopper: NVIDIA's Megatron-Core MoE recipes fold the experts (ETP = 1); said
    unstated = evaluate(qwen, h100_ib, {"tp": 2, "pp": 8, "dp": 16, "ep": 32}, gpus=256)
    assert unstated["layout"]["etp"] == 1
    assert unstated["iteration_time_s"] == ok["iteration_time_s"]
    assert any("ETP = 1 assumed with TP=2" in note for note in unstated["assumptions"])
    assert evaluate(qwen, h100_ib, {"tp": 2, "pp": 8, "dp": 16, "ep": 16}, gpus=256)["layout"]["etp"] == 1
    # folding is a property of expert parallelism: without EP the experts stay sharded like the dense layers
    no_ep = evaluate(qwen, h100_ib, {"tp": 2, "pp": 8, "dp": 16}, gpus=256)
    assert no_ep["layout"]["etp"] == 2 and not any("ETP = 1 assumed" in a for a in no_ep["assumptions"])


def test_unstated_expert_tensor_parallelism_on_a100_is_megatrons_unless_it_cannot_be(
    a100_ib: dict[str, Any],
) -> None:
    qwen = qwen3_235b_like()
    # A100-era stacks shard experts by TP (ETP = TP, Megatron's default) where that holds the stated EP
    plain = evaluate(qwen, a100_ib, {"tp": 2, "pp": 8, "dp": 16, "ep": 16}, gpus=256)
    assert plain["layout"]["etp"] == 2
    # where it cannot, the run folded its experts (ETP = 1): assumed and said, not refused
    folded = evaluate(qwen, a100_ib, {"tp": 2, "pp": 8, "dp": 16, "ep": 32}, gpus=256)
    assert folded["layout"]["etp"] == 1
    assert any("the only value under which EP=32 fits" in note for note in folded["assumptions"])
    # no ETP makes EP fit: still refused, naming the field
    with pytest.raises(InputError) as err:
        evaluate(qwen, a100_ib, {"tp": 2, "pp": 8, "dp": 16, "ep": 64}, gpus=256)
    assert err.value.field == "layout.ep"


def test_routing_costs_and_load_imbalance_are_charged(h100_ib: dict[str, Any]) -> None:
    base = workload_preset("deepseek-v3-671b").to_dict()
    balanced = {**base, "moe": {**base["moe"], "load_imbalance": 1.0}}
    skewed = {**base, "moe": {**base["moe"], "load_imbalance": 1.5}}
    # ends of 3 layers, so that a middle stage binds in both (with the last one's single layer, the output
    # layer and the MTP module, which stage binds depends on the per-layer time)
    lay = {"tp": 1, "pp": 16, "dp": 64, "ep": 64, "zero": 1, "first_stage_layers": 3, "last_stage_layers": 3}
    b = evaluate(balanced, h100_ib, lay, gpus=1024)
    s = evaluate(skewed, h100_ib, lay, gpus=1024)
    assert s["iteration_breakdown_s"]["ep_comm"] == pytest.approx(
        1.5 * b["iteration_breakdown_s"]["ep_comm"], rel=0.02
    )
    assert s["iteration_breakdown_s"]["compute"] > b["iteration_breakdown_s"]["compute"]
    # the default imbalance (the training capacity factor) is stated
    d = evaluate(base, h100_ib, lay, gpus=1024)
    assert any("MoE load imbalance not given" in a for a in d["assumptions"])
    assert not any("MoE load imbalance" in a for a in b["assumptions"])


def test_all_to_all_inside_an_nvl72_domain_runs_on_nvlink() -> None:
    rack = evaluate("deepseek-v3-671b", GB200, DSV3, gpus=256)
    trays = evaluate(
        # a domain of one tray (an unpublished domain would take the NVL72 class norm of 72 GPUs)
        "deepseek-v3-671b",
        {**GB200, "nvlink_domain_gpus": GB200["gpus_per_node"]},
        DSV3,
        gpus=256,
    )
    # EP=32 spans 8 four-GPU trays: inside the 72-GPU NVLink domain the all-to-all never touches a NIC
    assert rack["iteration_breakdown_s"]["ep_comm"] < 0.2 * trays["iteration_breakdown_s"]["ep_comm"]
    # tensor parallelism wider than a tray stays on NVLink too
    tp16 = {"tp": 16, "pp": 8, "dp": 2}
    rack16 = evaluate("gpt3-175b", GB200, tp16, gpus=256)["iteration_breakdown_s"]["tp_comm"]
    one_tray = {**GB200, "nvlink_domain_gpus": GB200["gpus_per_node"]}
    trays16 = evaluate("gpt3-175b", one_tray, tp16, gpus=256)["iteration_breakdown_s"]["tp_comm"]
    assert rack16 < 0.2 * trays16


def test_cloudmatrix_unified_bus_spans_384_npus() -> None:
    lay = {"tp": 1, "pp": 4, "dp": 96, "ep": 32, "etp": 1}
    ub = evaluate("deepseek-v3-671b", CLOUDMATRIX, lay, gpus=384)
    # a domain of one node (an unpublished domain would take the CloudMatrix384 class norm of 384 NPUs)
    one_node = {**CLOUDMATRIX, "nvlink_domain_gpus": CLOUDMATRIX["gpus_per_node"]}
    nodes = evaluate("deepseek-v3-671b", one_node, lay, gpus=384)
    assert ub["iteration_breakdown_s"]["ep_comm"] < 0.2 * nodes["iteration_breakdown_s"]["ep_comm"]


def test_a_domain_must_be_whole_nodes() -> None:
    with pytest.raises(InputError) as err:
        evaluate("gpt3-175b", {**GB200, "nvlink_domain_gpus": 70}, {"tp": 4}, gpus=256)
    assert err.value.field == "offering.nvlink_domain_gpus"


def test_the_token_dispatcher_sets_how_many_copies_of_a_token_travel(h100_ib: dict[str, Any]) -> None:
    # Megatron-Core's all-to-all dispatcher sends one copy per routed expert (top_k = 8); a deduplicating
    # dispatcher (DeepEP/HybridEP) one per destination node over the network and one per destination GPU
    # over NVLink: with experts spread over g = 8 destinations, g (1 - (1 - 1/g)^k) / k of the copies
    reached = 8 * (1 - (1 - 1 / 8) ** 8) / 8

    def ep_comm(layout: dict[str, Any], dispatcher: str, gpus: int) -> float:
        lay = {**layout, "moe_dispatcher": dispatcher}
        r = evaluate("deepseek-v3-671b", h100_ib, lay, gpus=gpus)
        assert r["layout"]["moe_dispatcher"] == dispatcher
        return float(r["iteration_breakdown_s"]["ep_comm"])

    across_nodes = {"tp": 1, "pp": 16, "dp": 64, "ep": 64, "zero": 1}  # EP64 over 8 nodes: NIC-bound
    one_node = {"tp": 1, "pp": 16, "dp": 8, "ep": 8, "zero": 1}  # EP8 inside a node: NVLink-bound
    for layout, gpus in ((across_nodes, 1024), (one_node, 128)):
        ratio = ep_comm(layout, "deepep", gpus) / ep_comm(layout, "alltoall", gpus)
        assert ratio == pytest.approx(reached, rel=0.03), layout


def test_the_dispatcher_default_follows_the_gpu_and_is_stated(h100_ib: dict[str, Any]) -> None:
    lay = {"tp": 1, "pp": 16, "dp": 64, "ep": 64, "zero": 1}
    hopper = evaluate("deepseek-v3-671b", h100_ib, lay, gpus=1024)
    assert hopper["layout"]["moe_dispatcher"] == "deepep"
    assert any("MoE token dispatcher not given" in a for a in hopper["assumptions"])
    ampere = {**h100_ib, "gpu": "A100-SXM-80GB"}
    assert evaluate("deepseek-v3-671b", ampere, lay, gpus=1024)["layout"]["moe_dispatcher"] == "alltoall"
    named = evaluate("deepseek-v3-671b", h100_ib, {**lay, "moe_dispatcher": "alltoall"}, gpus=1024)
    assert not any("MoE token dispatcher" in a for a in named["assumptions"])
    with pytest.raises(InputError) as err:
        evaluate("deepseek-v3-671b", h100_ib, {**lay, "moe_dispatcher": "nccl"}, gpus=1024)
    assert err.value.field == "layout.moe_dispatcher"
    assert "alltoall, deepep" in str(err.value)


def _mixtral_8x7b_like() -> dict[str, Any]:
    return {
        **workload_preset("deepseek-v3-671b").to_dict(),
        "name": "mixtral-8x7b-like",
        "layers": 8,  # a quarter of Mixtral's depth: fits 8 GPUs without recompute tricks
        "hidden": 4096,
        "heads": 32,
        "kv_heads": 8,
        "head_dim": 128,
        "ffn_hidden": 14336,
        "vocab": 32000,
        "seq_len": 4096,
        "global_batch": 256,
        "attention": "flash",
        "moe": {"experts": 8, "top_k": 2, "expert_ffn_hidden": 14336, "shared_experts": 0, "dense_layers": 0},
    }


def test_one_expert_per_gpu_is_a_plain_gemm_and_several_are_grouped(
    h100_ib: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Mixtral's 8 experts over EP8: each GPU runs one expert, one plain GEMM (TE GroupedLinear with one
    # GEMM), so the grouped-GEMM share does not apply; over EP4 each GPU groups two experts and it does
    wl = _mixtral_8x7b_like()
    one = {"tp": 1, "pp": 1, "dp": 8, "ep": 8, "etp": 1, "micro_batch": 1, "recompute": "full"}
    two = {**one, "ep": 4}

    def compute(layout: dict[str, Any]) -> float:
        r = evaluate(dict(wl), {**h100_ib, "nodes": 1}, layout, gpus=8)
        assert r["feasible"], r["reasons"]
        return r["iteration_breakdown_s"]["compute"]

    one_before, two_before = compute(one), compute(two)
    monkeypatch.setattr(C, "GROUPED_GEMM_EFFICIENCY", 1.0)
    assert compute(one) == pytest.approx(one_before)  # no grouped share to remove
    assert compute(two) < 0.95 * two_before  # the grouped share was charged


def test_fp8_casts_count_every_routed_copy_and_the_output_gradients() -> None:
    # Transformer Engine casts each linear layer's input to fp8 in the forward pass and its output gradient
    # in the backward pass; an expert's GroupedLinear casts the permuted tokens, one copy per routed expert.
    # Qwen3-30B-A3B: hidden 2048, 32 heads of 128 (attention width 4,096), 4 KV heads, top-8 of 128 experts
    # of width 768, SwiGLU
    wl = {
        "name": "qwen3-30b-a3b",
        "layers": 48,
        "hidden": 2048,
        "heads": 32,
        "kv_heads": 4,
        "head_dim": 128,
        "ffn_hidden": 6144,
        "vocab": 151936,
        "seq_len": 4096,
        "global_batch": 512,
        "train_tokens": 1e12,
        "precision": "fp8",
        "activation": "swiglu",
        "moe": {"experts": 128, "top_k": 8, "expert_ffn_hidden": 768, "shared_experts": 0, "dense_layers": 0},
    }
    shape = WorkloadShape(workload_from_dict(wl))
    # forward: QKV input 2,048 + projection input 4,096 + 8 x (FC1 input 2,048 + FC2 input 768)
    assert shape.fp8_cast_forward == 2048 + 4096 + 8 * (2048 + 768)
    # backward: QKV output 4,096 + 2 x 512 + projection output 2,048 + 8 x (FC1 output 2 x 768 + FC2 output)
    assert shape.fp8_cast_backward == (4096 + 1024) + 2048 + 8 * (2 * 768 + 2048)
    # a dense GeLU layer (GPT-3 shape): FC1's output gradient is 4h wide, its input h
    dense = WorkloadShape(workload_preset("gpt3-175b"))
    assert dense.fp8_cast_forward == 12288 * 3 + 49152
    assert dense.fp8_cast_backward == 3 * 12288 + 12288 + 49152 + 12288


def test_fp8_casts_of_shared_experts_and_leading_dense_layers() -> None:
    # a DeepSeek-style layout: 2 of 4 layers dense (FFN 8,192), 2 MoE with top-6 of 64 experts of width 1,024
    # and 2 shared experts, which Megatron-Core runs as one MLP of width 2,048 (its input cast once)
    wl = workload_from_dict(
        {
            "name": "moe-with-shared",
            "layers": 4,
            "hidden": 2048,
            "heads": 16,
            "kv_heads": 16,
            "ffn_hidden": 8192,
            "vocab": 32000,
            "seq_len": 4096,
            "global_batch": 64,
            "train_tokens": 1e12,
            "precision": "fp8",
            "activation": "swiglu",
            "moe": {
                "experts": 64,
                "top_k": 6,
                "expert_ffn_hidden": 1024,
                "shared_experts": 2,
                "dense_layers": 2,
            },
        }
    )
    shape = WorkloadShape(wl)
    attention_in, attention_out = 2048 + 2048, (2048 + 2 * 2048) + 2048
    dense_in, dense_out = 2048 + 8192, 2 * 8192 + 2048
    moe_in = 6 * (2048 + 1024) + (2048 + 2048)
    moe_out = 6 * (2 * 1024 + 2048) + (2 * 2048 + 2048)
    assert shape.fp8_cast_forward == attention_in + (dense_in + moe_in) / 2
    assert shape.fp8_cast_backward == attention_out + (dense_out + moe_out) / 2
