"""A workload whose shape is a published model's takes that model's facts beyond the contract's keys (head
widths, latent ranks, windows, clamp, biases, RoPE) where it leaves them unset, and says so
(sizing/engine/architectures.py); a fact it states is kept, and any other shape is sized as before."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import translation

from portal.i18n import translated
from sizing.engine import InputError, evaluate
from sizing.engine.architectures import (
    ARCHITECTURES,
    FACT_KEYS,
    NAMED_COUNT_TOLERANCE,
    architecture,
    match,
    shape_of,
)
from sizing.engine.workload import PRESETS, workload_from_dict
from tests.sizing.test_moe import H800

# test_moe's H800 fabric with B200 GPUs, 32 nodes
OFFERING = {**H800, "name": "b200", "gpu": "B200-180GB", "nodes": 32}


def _contract(arch_name: str, **changes: Any) -> dict[str, Any]:
    """The contract's keys of a published architecture's shape (no fact beyond them)."""
    d = {
        "name": arch_name,
        **shape_of(architecture(arch_name)),
        "vocab": 129280,
        "seq_len": 4096,
        "global_batch": 1024,
        "train_tokens": 1e12,
        "precision": "bf16",
    }
    d.pop("tied_embeddings")
    return {**d, **changes}


def _fact(wl: Any, key: str) -> Any:
    return wl.head_dim_override if key == "head_dim" else getattr(wl, key)


@pytest.mark.parametrize("arch", [a for a in ARCHITECTURES if a.facts], ids=lambda a: a.name)
def test_each_architecture_fills_its_facts_and_says_so(arch: Any) -> None:
    wl = workload_from_dict(_contract(arch.name))
    for key, value in arch.facts.items():
        assert _fact(wl, key) == value, key
    [note] = [n for n in wl.notes if "published configuration" in str(n)]
    assert arch.name in str(note)
    assert all(key in str(note) for key in arch.facts)


def test_the_table_names_each_shape_once_and_only_known_keys() -> None:
    # (two models of one shape, Llama 2 and 3 70B, differ in their vocabulary alone and have no facts)
    keys = [(a.shape, a.moe) for a in ARCHITECTURES if a.facts]
    assert len(set(keys)) == len(keys)
    assert all(set(a.facts) <= set(FACT_KEYS) for a in ARCHITECTURES)


def test_a_stated_fact_is_kept_and_the_rest_are_taken() -> None:
    # MLPerf's gpt-oss-20b runs plain RoPE: stated, kept; its window and widths still taken
    wl = workload_from_dict(_contract("gpt-oss-20b", rope="rope", head_dim=96))
    assert wl.rope == "rope"
    assert wl.head_dim_override == 96
    assert wl.sliding_window == 128 and wl.sliding_window_layers == 0.5
    assert wl.glu_clamp == 7.0 and wl.linear_bias is True
    [note] = [str(n) for n in wl.notes if "published configuration" in str(n)]
    assert "rope" not in note.split("taken from")[0] and "head_dim" not in note


def test_a_group_stated_in_part_is_the_workloads_own_variant() -> None:
    # the latent attention's widths stated without its ranks: the ranks are not taken from DeepSeek-V3
    wl = workload_from_dict(_contract("DeepSeek-V3", qk_head_dim=128, v_head_dim=128))
    assert (wl.qk_head_dim, wl.v_head_dim) == (128, 128)
    assert wl.q_lora_rank is None and wl.kv_lora_rank is None and wl.qk_rope_head_dim is None
    assert not [n for n in wl.notes if "published configuration" in str(n)]
    # a window's share of the layers stated with its own window
    wl = workload_from_dict(_contract("gpt-oss-120b", sliding_window=256))
    assert (wl.sliding_window, wl.sliding_window_layers) == (256, 1.0)
    assert wl.head_dim_override == 64


def test_null_states_none_and_the_echo_sizes_the_same() -> None:
    # null is a stated "none" (no window, no clamp, the default head width), as everywhere in the workload
    wl = workload_from_dict(_contract("gpt-oss-120b", sliding_window=None, glu_clamp=None, head_dim=None))
    assert wl.sliding_window is None and wl.glu_clamp is None and wl.head_dim_override is None
    assert wl.linear_bias is True and wl.rope == "yarn"
    # the answer's echo of a published shape, sent again, gives the same workload (absent keys would refill)
    for arch in [a for a in ARCHITECTURES if a.facts]:
        once = workload_from_dict(_contract(arch.name))
        twice = workload_from_dict(once.to_dict())
        assert {k: _fact(twice, k) for k in FACT_KEYS} == {k: _fact(once, k) for k in FACT_KEYS}, arch.name


def test_a_workload_that_states_every_fact_gets_no_note() -> None:
    facts = architecture("Qwen3-235B-A22B").facts
    wl = workload_from_dict(_contract("Qwen3-235B-A22B", **facts))
    assert not [n for n in wl.notes if "published configuration" in str(n)]


@pytest.mark.parametrize(
    "change",
    [
        {"layers": 60},
        {"hidden": 7680},
        {"kv_heads": 8},
        {"activation": "gelu"},
        {"moe": {"experts": 256, "top_k": 8, "expert_ffn_hidden": 2048, "shared_experts": 1}},
        {"moe": None},
    ],
    ids=["layers", "hidden", "kv-heads", "activation", "dense-layers", "dense"],
)
def test_another_shape_is_sized_with_the_standard_defaults(change: dict[str, Any]) -> None:
    wl = workload_from_dict(_contract("DeepSeek-V3", **change))
    assert wl.qk_head_dim is None and wl.v_head_dim is None and wl.kv_lora_rank is None
    assert not [n for n in wl.notes if "published configuration" in str(n)]


def test_the_vocabulary_and_batch_do_not_matter() -> None:
    # MLPerf's gpt-oss-20b trains a 128,256-word vocabulary, not the model's 201,088
    wl = workload_from_dict(_contract("gpt-oss-20b", vocab=128256, global_batch=16, seq_len=8192))
    assert wl.head_dim_override == 64 and wl.sliding_window == 128


def test_a_window_as_long_as_the_sequence_is_left_out() -> None:
    wl = workload_from_dict(_contract("gpt-oss-120b", seq_len=128))
    assert wl.sliding_window is None and wl.sliding_window_layers == 1.0
    assert wl.head_dim_override == 64
    note = next(str(n) for n in wl.notes if "published configuration" in str(n))
    assert "sliding_window" not in note


def test_the_deepseek_preset_carries_the_tables_facts() -> None:
    preset = PRESETS["deepseek-v3-671b"]
    for key, value in architecture("DeepSeek-V3").facts.items():
        assert _fact(preset, key) == value
    assert match(
        {k: getattr(preset, k) for k in ("layers", "hidden", "heads", "kv_heads", "ffn_hidden", "seq_len")},
        preset.activation,
        preset.moe.counts if preset.moe else None,
    ) == architecture("DeepSeek-V3")


def test_the_answer_sizes_the_published_attention_not_hidden_over_heads() -> None:
    layout = {"tp": 1, "pp": 16, "dp": 16, "ep": 8, "micro_batch": 1, "recompute": "full"}
    filled = evaluate(_contract("DeepSeek-V3"), OFFERING, layout)
    # the same model stated with 56-wide heads (7,168 / 128), as the engine took the shape before
    narrow = evaluate(_contract("DeepSeek-V3", qk_head_dim=56, v_head_dim=56), OFFERING, layout)
    assert filled["workload"]["qk_head_dim"] == 192 and filled["workload"]["kv_lora_rank"] == 512
    assert narrow["workload"]["qk_head_dim"] == 56 and narrow["workload"].get("kv_lora_rank") is None
    assert filled["iteration_time_s"] > narrow["iteration_time_s"] * 1.03
    assert any("DeepSeek-V3's" in a for a in filled["assumptions"])
    assert not any("DeepSeek-V3's" in a for a in narrow["assumptions"])


def test_the_note_reads_in_chinese() -> None:
    wl = workload_from_dict(_contract("Qwen3-30B-A3B"))
    note = next(n for n in wl.notes if "Qwen3-30B-A3B" in str(n))
    with translation.override("zh-hans"):
        chinese = translated(note.as_json(), "")
    assert chinese.startswith("该形状即 Qwen3-30B-A3B 的形状：head_dim 128 取自其公开的配置"), chinese
    assert "published" not in chinese
    # two facts listed with the page's separator
    wl = workload_from_dict(_contract("DeepSeek-V3"))
    note = next(n for n in wl.notes if "DeepSeek-V3" in str(n))
    with translation.override("zh-hans"):
        chinese = translated(note.as_json(), "")
    assert "qk_head_dim 192、v_head_dim 128" in chinese, chinese


# --- a bare parameter count with a published model's name (architectures.named) -----------------------

BARE = {"seq_len": 8192, "global_batch": 1024, "train_tokens": 1e12}


def _bare(name: str, params: float, **more: Any) -> Any:
    return workload_from_dict({"name": name, "params": params, **BARE, **more})


@pytest.mark.parametrize(
    "name",
    ["Llama 3.1 405B", "meta-llama/Llama-3.1-405B", "llama3.1_405b", "Llama 3 405B (pre-training)"],
)
def test_a_named_count_takes_the_published_shape(name: str) -> None:
    wl = _bare(name, 405e9)
    assert (wl.layers, wl.hidden, wl.heads, wl.kv_heads, wl.ffn_hidden) == (126, 16384, 128, 8, 53248)
    assert (wl.vocab, wl.activation, wl.dropout, wl.derived_from_params) == (128256, "swiglu", False, None)
    note = str(wl.notes[0])
    assert "is Llama 3.1 405B: its published shape taken (126 layers" in note and "2407.21783" in note


def test_the_name_picks_among_models_of_one_size() -> None:
    assert _bare("Llama 2 70B", 70e9).vocab == 32000
    assert _bare("Llama 3.1 70B", 70e9).vocab == 128256
    assert _bare("Llama 3.3 70B", 70e9).vocab == 128256


def test_a_count_that_is_not_the_models_is_derived_as_before() -> None:
    # 5% of the engine's count of the shape: Llama 3 8B counts 8.03B
    assert _bare("Llama 3 8B", 8.03e9 * 1.049).derived_from_params is None
    for wl in (_bare("Llama 3 8B", 8.03e9 * 1.06), _bare("Llama 3 70B", 8e9), _bare("my 405B model", 405e9)):
        assert wl.derived_from_params is not None
        assert "shape derived from" in str(wl.notes[0])


def test_a_stated_activation_or_expert_count_that_is_not_the_models_keeps_the_derived_shape() -> None:
    assert _bare("Llama 3.1 405B", 405e9, activation="gelu").derived_from_params is not None
    assert _bare("DeepSeek-V3", 671e9, moe=None).derived_from_params is not None


def test_a_bare_count_with_experts_that_names_no_published_model_is_refused() -> None:
    """A derived shape is dense: experts added to it sized a larger model than the count (100B with 64
    experts of 2,048 came out at 243B) under a note saying the shape was derived from 100B."""
    experts = {"experts": 64, "top_k": 8, "expert_ffn_hidden": 2048}
    for name, params in (("my 100B MoE", 100e9), ("Llama 3 8B", 8.03e9)):
        with pytest.raises(InputError) as exc:
            _bare(name, params, moe=experts)
        assert exc.value.field == "workload.moe"
        assert "a parameter count alone gives a dense shape" in str(exc.value)
    # a published MoE model's name and count keep their experts, the stated ones merged in
    assert _bare("DeepSeek-V3", 671e9, moe={"top_k": 6}).moe.counts == (256, 6, 2048, 1, 3)


def test_stated_keys_win_over_the_published_shape() -> None:
    wl = _bare("Llama 3.1 405B", 405e9, vocab=32768, dropout=True)
    assert (wl.layers, wl.vocab, wl.dropout) == (126, 32768, True)


def test_a_named_moe_count_takes_its_experts_and_its_facts() -> None:
    wl = _bare("DeepSeek-V3 671B", 671e9)
    assert wl.moe is not None and wl.moe.counts == (256, 8, 2048, 1, 3)
    assert (wl.qk_head_dim, wl.kv_lora_rank, wl.vocab) == (192, 512, 129280)
    assert wl.mtp_layers == 0  # a run's choice, not the shape
    notes = [str(n) for n in wl.notes]
    assert any("published shape taken" in n for n in notes) and any("DeepSeek-V3's" in n for n in notes)


def test_names_that_contain_one_another_belong_to_counts_far_apart() -> None:
    # "deepseekv2" is in "deepseekv2lite": the count tells them apart, so any two such models must differ
    # by more than twice the tolerance
    def count(arch: Any) -> float:
        return float(workload_from_dict({"name": "x", **shape_of(arch), **BARE}).total_params())

    for a in ARCHITECTURES:
        for b in ARCHITECTURES:
            if a is b or not any(m in n for m in a.names for n in b.names):
                continue
            assert abs(count(a) / count(b) - 1) > 2 * NAMED_COUNT_TOLERANCE, (a.name, b.name)


def test_every_named_model_is_found_by_its_own_name_and_count() -> None:
    for arch in ARCHITECTURES:
        count = workload_from_dict({"name": "x", **shape_of(arch), **BARE}).total_params()
        wl = _bare(arch.name, count)
        assert wl.derived_from_params is None and str(wl.notes[0]).split(" is ")[1].startswith(arch.name)
        assert (wl.layers, wl.hidden, wl.vocab) == (arch.shape[0], arch.shape[1], arch.vocab)


def test_the_answer_for_a_named_count_is_the_published_shapes() -> None:
    h100 = {**OFFERING, "gpu": "H100-SXM-80GB", "nodes": 128}
    layout = {"tp": 8, "pp": 8, "dp": 16, "micro_batch": 1, "recompute": "full", "sequence_parallel": True}
    shape = {"name": "Llama 3.1 405B", **shape_of(architecture("Llama 3.1 405B")), **BARE}
    by_shape = evaluate(shape, h100, layout)
    by_name = evaluate({"name": "Llama 3.1 405B", "params": 405e9, **BARE}, h100, layout)
    anonymous = evaluate({"name": "custom", "params": 405e9, **BARE}, h100, layout)
    assert by_name["iteration_time_s"] == pytest.approx(by_shape["iteration_time_s"], rel=1e-9)
    assert by_name["workload"]["layers"] == 126 and anonymous["workload"]["layers"] != 126


def test_the_named_note_reads_in_chinese() -> None:
    wl = _bare("Llama 2 7B", 6.74e9)
    with translation.override("zh-hans"):
        chinese = translated(wl.notes[0].as_json(), "")
    assert chinese.startswith("名为 Llama 2 7B、含 6.7B 参数的工作负载即 Llama 2 7B："), chinese
    assert "published" not in chinese
