"""Attention kernels: unfused (scores materialised, as calibrated) vs fused (FlashAttention)."""

from __future__ import annotations

from typing import Any

import pytest

from sizing.engine import InputError, evaluate, workload_from_dict, workload_preset


def _wl(attention: str) -> dict[str, Any]:
    return {**workload_preset("llama3-70b").to_dict(), "attention": attention, "moe": None}


def test_fused_attention_keeps_no_scores_in_memory_and_selective_equals_none(h100_ib: dict[str, Any]) -> None:
    lay = {"tp": 8, "pp": 4, "dp": 16, "cp": 1}
    mem = {
        (att, rec): evaluate(_wl(att), h100_ib, {**lay, "recompute": rec}, gpus=512)
        for att in ("flash", "unfused")
        for rec in ("none", "selective")
    }
    act = {k: r["memory_gib_per_gpu"]["activations"] for k, r in mem.items()}
    # unfused at 8k: the score term dwarfs the rest (Korthikanti Table 2: 5 a s / h; 2 a s / h for Llama,
    # which trains without attention dropout); selective drops it
    assert act[("unfused", "none")] > 4 * act[("unfused", "selective")]
    assert act[("flash", "none")] == act[("flash", "selective")] == act[("unfused", "selective")]
    t = {k: r["iteration_time_s"] for k, r in mem.items()}
    assert t[("flash", "none")] == t[("flash", "selective")]  # nothing left to recompute
    # the score traffic is gone from the memory-bound work, the backward recomputes the scores instead
    other = {k: r["iteration_breakdown_s"]["other"] for k, r in mem.items()}
    assert other[("flash", "none")] < 0.3 * other[("unfused", "selective")]
    assert mem[("flash", "none")]["iteration_breakdown_s"]["recompute"] > 0
    assert t[("flash", "none")] < t[("unfused", "selective")]


def test_auto_resolves_by_gpu_and_says_so(h100_ib: dict[str, Any], a100_ib: dict[str, Any]) -> None:
    lay = {"tp": 8, "pp": 4}
    h = evaluate("llama3-70b", h100_ib, lay, gpus=512)
    a = evaluate("llama3-70b", a100_ib, lay, gpus=512)
    assert any("FlashAttention-style kernels assumed on NVIDIA H100" in x for x in h["assumptions"])
    assert any("unfused attention" in x and "A100" in x for x in a["assumptions"])
    explicit = evaluate(_wl("flash"), a100_ib, lay, gpus=512)
    assert not any(x.startswith("attention not given") for x in explicit["assumptions"])
    assert explicit["iteration_time_s"] < a["iteration_time_s"]
    assert explicit["workload"]["attention"] == "flash"


def test_bad_attention_names_the_field() -> None:
    with pytest.raises(InputError) as e:
        workload_from_dict({**_wl("flash"), "attention": "sparse"})
    assert e.value.field == "workload.attention"


def test_multi_head_latent_attention_counts_its_own_head_widths(h100_ib: dict[str, Any]) -> None:
    # DeepSeek-V3's MLA scores with 192-wide query/key heads and 128-wide values (config.json: qk_nope 128 +
    # qk_rope 64, v 128), not hidden / heads = 56: the attention core is 2 s x heads x (192 + 128) FLOPs per
    # token forward, 12 L s heads (d_qk + d_v) / 2 in the model FLOPs (x3 for forward and backward)
    mla = workload_preset("deepseek-v3-671b")
    assert (mla.qk_head_dim, mla.v_head_dim, mla.head_dim) == (192, 128, 56)
    mha = workload_from_dict({**mla.to_dict(), "qk_head_dim": None, "v_head_dim": None})
    # (its multi-token-prediction layer's attention core too)
    extra = 12 * (mla.layers + mla.mtp_layers) * mla.seq_len * mla.heads * ((192 + 128) / 2 - 56)
    # and its projections are counted as they are (the ranks' down- and up-projections, 187.1M per layer)
    # where the generic count has the 4 h^2 block (205.5M): 6 x their difference per layer
    assert mla.attention_params() == pytest.approx(187.1e6, rel=1e-3)
    assert mha.attention_params() == 4 * mla.hidden**2
    extra += 6 * (mla.layers + mla.mtp_layers) * (mla.attention_params() - mha.attention_params())
    assert mla.model_flops_per_token() - mha.model_flops_per_token() == pytest.approx(extra)
    # the parameters differ by the projections alone, in every layer and the multi-token-prediction block
    per_layer = mla.attention_params() - mha.attention_params()
    assert mla.total_params() - mha.total_params() == pytest.approx((mla.layers + mla.mtp_layers) * per_layer)
    # the same settings for both (unstated ones are chosen to fit, and MLA's wider activations fit otherwise);
    # the step, not its compute line: which stage binds (the last one with the output layer, or a middle one)
    # can change with the per-layer time
    lay = {"tp": 1, "pp": 16, "dp": 64, "ep": 64, "zero": 1, "micro_batch": 1, "recompute": "full"}
    slow = evaluate(mla.to_dict(), h100_ib, lay, gpus=1024)["iteration_time_s"]
    fast = evaluate(mha.to_dict(), h100_ib, lay, gpus=1024)["iteration_time_s"]
    assert slow > fast
    with pytest.raises(InputError) as err:
        workload_from_dict({**mla.to_dict(), "qk_head_dim": 5000})
    assert err.value.field == "workload.qk_head_dim"
    assert "between 1 and 1,024" in str(err.value)


@pytest.mark.parametrize(
    ("name", "total", "active"),
    [
        # the reports' own counts: DeepSeek-V3 (arXiv 2412.19437: 671B, 37B activated, without its MTP
        # module), DeepSeek-V2 (arXiv 2405.04434: 236B, 21B), Kimi K2 (arXiv 2507.20534: 32B activated of
        # "1 trillion"), Moonlight-16B-A3B (its model card: 16B, 3B)
        ("DeepSeek-V3", 671e9, 37e9),
        ("DeepSeek-V2", 236e9, 21e9),
        ("Kimi K2", 1.0e12, 32e9),
        ("Moonlight-16B-A3B", 16e9, 3e9),
    ],
)
def test_latent_attention_models_have_their_published_parameter_counts(
    name: str, total: float, active: float
) -> None:
    # multi-head latent attention counted by its down- and up-projections (workload.attention_params): the
    # generic 4 h^2 block gave Kimi K2 (64 heads of a 7,168-wide model) 39.2B active parameters, and
    # DeepSeek-V2 (128 heads of a 5,120-wide model, 149.2M per layer) 2.7B fewer in all
    from sizing.engine.architectures import architecture, shape_of

    arch = architecture(name)
    wl = workload_from_dict(
        {**shape_of(arch), **arch.facts, "name": name, "seq_len": 4096, "global_batch": 1024}
        | {"train_tokens": 1e12, "precision": "bf16"}
    )
    assert wl.latent_up_params is not None
    assert wl.total_params() == pytest.approx(total, rel=0.03)
    assert wl.active_params() == pytest.approx(active, rel=0.04)
    generic = workload_from_dict({**wl.to_dict(), **{k: None for k in ("q_lora_rank", "kv_lora_rank")}})
    assert generic.attention_params() == 4 * wl.hidden**2
    assert abs(generic.attention_params() / wl.attention_params() - 1.0) > 0.09
