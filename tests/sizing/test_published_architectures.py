"""A workload whose shape is a published model's takes that model's facts beyond the contract's keys (head
widths, latent ranks, windows, clamp, biases, RoPE) where it leaves them unset, and says so
(sizing/engine/architectures.py); a fact it states is kept, and any other shape is sized as before."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import translation

from portal.i18n import translated
from sizing.engine import evaluate
from sizing.engine.architectures import ARCHITECTURES, FACT_KEYS, architecture, match
from sizing.engine.workload import PRESETS, workload_from_dict

OFFERING = {
    "name": "b200",
    "gpu": "B200-180GB",
    "gpus_per_node": 8,
    "intra_node": "nvswitch",
    "fabric": "infiniband",
    "nics_per_node": 8,
    "gbps_per_nic": 400,
    "topology": "fat-tree",
    "nodes": 32,
}


def _contract(arch_name: str, **changes: Any) -> dict[str, Any]:
    """The contract's keys of a published architecture's shape (no fact beyond them)."""
    arch = architecture(arch_name)
    layers, hidden, heads, kv_heads, ffn, activation = arch.shape
    d: dict[str, Any] = {
        "name": arch_name,
        "layers": layers,
        "hidden": hidden,
        "heads": heads,
        "kv_heads": kv_heads,
        "ffn_hidden": ffn,
        "vocab": 129280,
        "seq_len": 4096,
        "global_batch": 1024,
        "train_tokens": 1e12,
        "precision": "bf16",
        "activation": activation,
    }
    if arch.moe is not None:
        experts, top_k, expert_ffn, shared, dense = arch.moe
        d["moe"] = {
            "experts": experts,
            "top_k": top_k,
            "expert_ffn_hidden": expert_ffn,
            "shared_experts": shared,
            "dense_layers": dense,
        }
    return {**d, **changes}


def _fact(wl: Any, key: str) -> Any:
    return wl.head_dim_override if key == "head_dim" else getattr(wl, key)


@pytest.mark.parametrize("arch", ARCHITECTURES, ids=lambda a: a.name)
def test_each_architecture_fills_its_facts_and_says_so(arch: Any) -> None:
    wl = workload_from_dict(_contract(arch.name))
    for key, value in arch.facts.items():
        assert _fact(wl, key) == value, key
    [note] = [n for n in wl.notes if "published configuration" in str(n)]
    assert arch.name in str(note)
    assert all(key in str(note) for key in arch.facts)


def test_the_table_names_each_shape_once_and_only_known_keys() -> None:
    keys = [(a.shape, a.moe) for a in ARCHITECTURES]
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
    for arch in ARCHITECTURES:
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
