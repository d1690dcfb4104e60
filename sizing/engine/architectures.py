"""Published architectures, known by their shape: the facts of a model beyond the `size` contract's keys.

The contract's workload (DESIGN section 5) gives a model by its layers, widths, heads and experts. Some
published models have facts those keys cannot say, and the engine's defaults for them are the standard
transformer's: a head as wide as hidden / heads, full causal attention, no biases, plain RoPE. For the models
below those defaults are wrong by a measurable amount: DeepSeek-V3's 128 heads over 7,168 would be 56 wide,
where its multi-head latent attention scores 192-wide queries and keys and 128-wide values; Qwen3-235B-A22B's
64 heads over 4,096 would be 64 wide, where they are 128; gpt-oss attends to a 128-token band on every other
layer. A workload whose shape is one of these models' (its layers, hidden size, heads, KV heads, FFN width,
activation and MoE counts; not its vocabulary, sequence or batch, which a run may change) takes the facts it
leaves out from the model's published configuration, and the answer says which (`published_facts`). A fact
the workload states is kept, null included (the engine's own default: no window, no clamp, hidden / heads
wide heads, the activation's class dropout), so a run that differs (MLPerf's gpt-oss-20b with plain RoPE)
says so.

A workload given as a bare parameter count (the contract's other form) whose name is one of these models'
and whose count is that model's takes the model's whole shape rather than a standard one derived from the
count (`named`, `shape_of`); the answer says so. GPT-3, Llama 2 and 3, Nemotron-4, Mixtral, Grok-1 and
BLOOM are here for that alone (their shapes need nothing beyond the contract's keys but their vocabulary).

Each entry is read from its source: the model's own configuration (Hugging Face config.json, as the papers
print it) and Megatron-Bridge's model providers at v0.2.0 (src/megatron/bridge/models/*/..._provider.py),
which train it. Multi-token prediction is not here: it is a training choice a run makes (its recipe's
mtp_num_layers), not the architecture's shape."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hardware.messages import _, joined


@dataclass(frozen=True)
class Architecture:
    name: str
    # layers, hidden, heads, kv_heads, ffn_hidden, activation
    shape: tuple[int, int, int, int, int, str]
    # experts, top_k, expert_ffn_hidden, shared_experts, dense_layers (None: dense)
    moe: tuple[int, int, int, int, int] | None
    facts: dict[str, Any]
    source: str
    vocab: int
    # the names it is known by, as `name_key` writes them (a workload given as a bare parameter count and a
    # name that contains one of them is this model when the count is its count: `named`)
    names: tuple[str, ...]
    tied_embeddings: bool = False


def name_key(text: str) -> str:
    """A model name without case, spaces or punctuation but the version dot: "Llama 3.1 405B",
    "meta-llama/Llama-3.1-405B" and "llama3.1_405b" all contain "llama3.1405b"."""
    return re.sub(r"[^a-z0-9.]", "", text.lower())


def _arch(
    name: str,
    shape: tuple[int, int, int, int, int, str],
    moe: tuple[int, int, int, int, int] | None,
    facts: dict[str, Any],
    source: str,
    vocab: int,
    names: tuple[str, ...],
    tied_embeddings: bool = False,
) -> Architecture:
    keys = tuple(name_key(n) for n in (name, *names))
    return Architecture(name, shape, moe, facts, source, vocab, keys, tied_embeddings)


# multi-head latent attention as DeepSeek-V2 introduced it (arXiv 2405.04434 sec. 2.1), in V3 and Kimi K2:
# 128-wide non-rotary plus 64-wide rotary query/key heads (192), 128-wide values, queries from a rank-1,536
# latent, keys and values from a rank-512 one (config.json qk_nope_head_dim 128, qk_rope_head_dim 64,
# v_head_dim 128, q_lora_rank 1536, kv_lora_rank 512; Megatron-Bridge DeepSeekModelProvider the same)
_MLA = {
    "qk_head_dim": 192,
    "v_head_dim": 128,
    "q_lora_rank": 1536,
    "kv_lora_rank": 512,
    "qk_rope_head_dim": 64,
}
# DeepSeek-V2-Lite and Moonlight project their queries directly (q_lora_rank null)
_MLA_DIRECT_Q = {"qk_head_dim": 192, "v_head_dim": 128, "kv_lora_rank": 512, "qk_rope_head_dim": 64}
# gpt-oss (model card, arXiv 2508.10925 sec. 2.1; Megatron-Bridge GPTOSSProvider): 64-wide heads
# (kv_channels 64), a 128-token band on every other layer (window_size (128, 0), window_attn_skip_freq 2),
# the SwiGLU clamped at 7.0 (activation_func_clamp_value), biases on the linear layers (add_bias_linear) and
# YaRN rotary embeddings (position_embedding_type "yarn")
_GPT_OSS = {
    "head_dim": 64,
    "sliding_window": 128,
    "sliding_window_layers": 0.5,
    "glu_clamp": 7.0,
    "linear_bias": True,
    "rope": "yarn",
}
# Qwen3 (Megatron-Bridge Qwen3ModelProvider and Qwen3MoEModelProvider: kv_channels 128; config.json head_dim
# 128): heads 128 wide whatever the hidden size
_QWEN3 = {"head_dim": 128}
_BRIDGE = "Megatron-Bridge v0.2.0 "

ARCHITECTURES = (
    _arch(
        "DeepSeek-V3",
        (61, 7168, 128, 128, 18432, "swiglu"),
        (256, 8, 2048, 1, 3),
        _MLA,
        "arXiv 2412.19437; config.json; " + _BRIDGE + "DeepSeekV3ModelProvider",
        129280,
        ("DeepSeek-R1",),
    ),
    _arch(
        "DeepSeek-V2",
        (60, 5120, 128, 128, 12288, "swiglu"),
        (160, 6, 1536, 2, 1),
        _MLA,
        "arXiv 2405.04434; config.json; " + _BRIDGE + "DeepSeekV2ModelProvider",
        102400,
        (),
    ),
    _arch(
        "DeepSeek-V2-Lite",
        (27, 2048, 16, 16, 10944, "swiglu"),
        (64, 6, 1408, 2, 1),
        _MLA_DIRECT_Q,
        "config.json; " + _BRIDGE + "DeepSeekV2LiteModelProvider",
        102400,
        (),
    ),
    _arch(
        "Moonlight-16B-A3B",
        (27, 2048, 16, 16, 11264, "swiglu"),
        (64, 6, 1408, 2, 1),
        _MLA_DIRECT_Q,
        "config.json; " + _BRIDGE + "MoonlightModelProvider16B",
        163840,
        ("Moonlight",),
    ),
    _arch(
        "Kimi K2",
        (61, 7168, 64, 64, 18432, "swiglu"),
        (384, 8, 2048, 1, 1),
        _MLA,
        "arXiv 2507.20534; config.json (the DeepSeek-V3 architecture with 64 heads and 384 experts)",
        163840,
        (),
    ),
    _arch(
        "Qwen3-235B-A22B",
        (94, 4096, 64, 4, 12288, "swiglu"),
        (128, 8, 1536, 0, 0),
        _QWEN3,
        "config.json; " + _BRIDGE + "Qwen3MoEModelProvider235B_A22B",
        151936,
        ("Qwen3-235B",),
    ),
    _arch(
        "Qwen3-30B-A3B",
        (48, 2048, 32, 4, 6144, "swiglu"),
        (128, 8, 768, 0, 0),
        _QWEN3,
        "config.json; " + _BRIDGE + "Qwen3MoEModelProvider30B_A3B",
        151936,
        ("Qwen3-30B",),
    ),
    _arch(
        "Qwen3-32B",
        (64, 5120, 64, 8, 25600, "swiglu"),
        None,
        _QWEN3,
        "config.json; " + _BRIDGE + "Qwen3ModelProvider32B",
        151936,
        (),
    ),
    _arch(
        "Qwen3-4B",
        (36, 2560, 32, 8, 9728, "swiglu"),
        None,
        _QWEN3,
        "config.json (tie_word_embeddings true); " + _BRIDGE + "Qwen3ModelProvider4B",
        151936,
        (),
        tied_embeddings=True,
    ),
    _arch(
        "Qwen3-0.6B",
        (28, 1024, 16, 8, 3072, "swiglu"),
        None,
        _QWEN3,
        "config.json (tie_word_embeddings true); " + _BRIDGE + "Qwen3ModelProvider600M",
        151936,
        (),
        tied_embeddings=True,
    ),
    _arch(
        "gpt-oss-120b",
        (36, 2880, 64, 8, 2880, "swiglu"),
        (128, 4, 2880, 0, 0),
        _GPT_OSS,
        "arXiv 2508.10925; config.json; " + _BRIDGE + "GPTOSSProvider120B",
        201088,
        (),
    ),
    _arch(
        "gpt-oss-20b",
        (24, 2880, 64, 8, 2880, "swiglu"),
        (32, 4, 2880, 0, 0),
        _GPT_OSS,
        "arXiv 2508.10925; config.json; " + _BRIDGE + "GPTOSSProvider20B",
        201088,
        (),
    ),
    # Models whose contract keys say everything but their vocabulary and, for some, their dropout: known by
    # name for a workload given as a bare parameter count (`named`), their shape then taken whole.
    _arch(
        "GPT-3 175B",
        (96, 12288, 96, 96, 49152, "gelu"),
        None,
        {},
        "Brown et al. 2020 Table 2.1 (vocabulary 50,257, padded to 51,200 as Megatron-LM pads it)",
        51200,
        ("GPT3 175B", "GPT-3-175B"),
        tied_embeddings=True,
    ),
    _arch(
        "Llama 2 7B",
        (32, 4096, 32, 32, 11008, "swiglu"),
        None,
        {},
        "arXiv 2307.09288; config.json",
        32000,
        ("Llama-2-7b",),
    ),
    _arch(
        "Llama 2 13B",
        (40, 5120, 40, 40, 13824, "swiglu"),
        None,
        {},
        "arXiv 2307.09288; config.json",
        32000,
        (),
    ),
    _arch(
        "Llama 2 70B",
        (80, 8192, 64, 8, 28672, "swiglu"),
        None,
        {},
        "arXiv 2307.09288; config.json",
        32000,
        (),
    ),
    _arch(
        "Llama 3 8B",
        (32, 4096, 32, 8, 14336, "swiglu"),
        None,
        {},
        "arXiv 2407.21783 Table 3; config.json",
        128256,
        ("Llama 3.1 8B",),
    ),
    _arch(
        "Llama 3 70B",
        (80, 8192, 64, 8, 28672, "swiglu"),
        None,
        {},
        "arXiv 2407.21783 Table 3; config.json",
        128256,
        ("Llama 3.1 70B", "Llama 3.3 70B"),
    ),
    _arch(
        "Llama 3.1 405B",
        (126, 16384, 128, 8, 53248, "swiglu"),
        None,
        {},
        "arXiv 2407.21783 Table 3; config.json",
        128256,
        ("Llama 3 405B",),
    ),
    _arch(
        "Nemotron-4 15B",
        (32, 6144, 48, 8, 24576, "gelu"),
        None,
        {"dropout": False},
        "arXiv 2402.16819 sec. 2 (squared ReLU, no bias terms, dropout rate of zero, untied embeddings)",
        256000,
        (),
    ),
    _arch(
        "Nemotron-4 340B",
        (96, 18432, 96, 8, 73728, "gelu"),
        None,
        {"dropout": False},
        "arXiv 2406.11704 Table 1 (the architecture of Nemotron-4 15B: no dropout, untied embeddings)",
        256000,
        (),
    ),
    _arch(
        "Mixtral 8x7B",
        (32, 4096, 32, 8, 14336, "swiglu"),
        (8, 2, 14336, 0, 0),
        {},
        "arXiv 2401.04088 Table 1; config.json",
        32000,
        (),
    ),
    _arch(
        "Mixtral 8x22B",
        (56, 6144, 48, 8, 16384, "swiglu"),
        (8, 2, 16384, 0, 0),
        {},
        "config.json (Mixtral-8x22B-v0.1)",
        32768,
        (),
    ),
    _arch(
        "Grok-1",
        (64, 6144, 48, 8, 32768, "swiglu"),
        (8, 2, 32768, 0, 0),
        {},
        "xai-org/grok-1 model card and run.py (64 layers, 48 query / 8 KV heads, 8 experts top-2, "
        "vocabulary 131,072)",
        131072,
        (),
    ),
    _arch(
        "BLOOM-176B",
        (70, 14336, 112, 112, 57344, "gelu"),
        None,
        {"dropout": False},
        "arXiv 2211.05100 sec. 3.2 and Table 3 (70 layers, 112 heads, 14,336 wide, vocabulary 250,880); "
        "config.json (hidden_dropout and attention_dropout 0.0)",
        250880,
        (),
        tied_embeddings=True,
    ),
)


def architecture(name: str) -> Architecture:
    """The published architecture of this name."""
    return next(a for a in ARCHITECTURES if a.name == name)


def match(
    shape: dict[str, Any], activation: str, moe: tuple[int, int, int, int, int] | None
) -> Architecture | None:
    """The published architecture with this shape (layers, hidden, heads, kv_heads, ffn_hidden), activation
    and MoE counts that has facts beyond them, if any."""
    key = (*(shape[k] for k in ("layers", "hidden", "heads", "kv_heads", "ffn_hidden")), activation)
    return next((a for a in ARCHITECTURES if a.facts and a.shape == key and a.moe == moe), None)


def shape_group(
    shape: tuple[int, int, int, int, int, str], moe: tuple[int, int, int, int, int] | None
) -> str | None:
    """The published models of this shape (layers, hidden, heads, KV heads, FFN width, activation) and MoE
    counts, as one name ("Llama 3.1 405B"; "Llama 2 70B / Llama 3 70B" where two share it); None for a shape
    no published model here has. The accuracy an answer states for its own model is measured over the
    published runs of the same group (accuracy.measured_by_model)."""
    names = [a.name for a in ARCHITECTURES if a.shape == shape and a.moe == moe]
    return " / ".join(names) if names else None


# Facts that describe one thing together are taken together or not at all: a workload that states any of
# the latent attention's widths and ranks, or a window or its share of the layers, describes its own variant.
FACT_GROUPS = (
    ("qk_head_dim", "v_head_dim", "q_lora_rank", "kv_lora_rank", "qk_rope_head_dim"),
    ("sliding_window", "sliding_window_layers"),
    ("head_dim",),
    ("glu_clamp",),
    ("linear_bias",),
    ("rope",),
    ("dropout",),
)
# the workload keys an architecture may fill: attention widths, latent ranks, windows, clamp, biases, RoPE,
# dropout
FACT_KEYS = tuple(key for group in FACT_GROUPS for key in group)


# how far a bare parameter count may be from a named model's own count (the engine's, from its shape) and
# still be that model: published counts are rounded ("8B" for Llama 3 8B's 8.03B, "70B" for 70.6B)
NAMED_COUNT_TOLERANCE = 0.05


def named(name: str, params: float, count: Callable[[Architecture], float]) -> Architecture | None:
    """The published model a workload given by `name` and `params` alone is: the one whose names `name`
    contains (name_key) and whose parameter count (`count`, the engine's for its shape) is within
    NAMED_COUNT_TOLERANCE of `params`; the nearest count if several are. None otherwise."""
    key = name_key(name)
    found = [
        (abs(params / count(a) - 1.0), a)
        for a in ARCHITECTURES
        if any(n in key for n in a.names) and abs(params / count(a) - 1.0) <= NAMED_COUNT_TOLERANCE
    ]
    return min(found, key=lambda pair: pair[0])[1] if found else None


def shape_of(arch: Architecture) -> dict[str, Any]:
    """The workload keys of a published model's shape (its facts are added by `published_facts`)."""
    layers, hidden, heads, kv_heads, ffn, activation = arch.shape
    d: dict[str, Any] = {
        "layers": layers,
        "hidden": hidden,
        "heads": heads,
        "kv_heads": kv_heads,
        "ffn_hidden": ffn,
        "vocab": arch.vocab,
        "activation": activation,
        "tied_embeddings": arch.tied_embeddings,
        "moe": None,
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
    return d


def published_keys(arch: Architecture | None) -> frozenset[str]:
    """The keys of every group this architecture has a fact in (none for no architecture): the keys a
    workload of its shape states, null included, to keep its own."""
    if arch is None:
        return frozenset()
    return frozenset(k for group in FACT_GROUPS if any(key in arch.facts for key in group) for k in group)


def published_facts(
    d: dict[str, Any],
    shape: dict[str, Any],
    activation: str,
    moe: tuple[int, int, int, int, int] | None,
    notes: list[str],
) -> dict[str, Any]:
    """`d` with the facts it leaves out taken from the published architecture its shape is, group by group
    (FACT_GROUPS), and a note naming them; `d` itself when its shape is no published architecture's or it
    states every group. A key given as null keeps the engine's own default instead (no window, no clamp,
    hidden / heads wide heads, the activation's class dropout). A band as long as the sequence or longer is
    left out (the whole sequence is attended either way)."""
    arch = match(shape, activation, moe)
    if arch is None:
        return d
    taken: dict[str, Any] = {}
    for group in FACT_GROUPS:
        facts = {k: arch.facts[k] for k in group if k in arch.facts}
        if facts and not any(k in d for k in group):
            taken.update(facts)
    window = taken.get("sliding_window")
    if window is not None and window >= shape["seq_len"]:
        taken.pop("sliding_window")
        taken.pop("sliding_window_layers", None)
    if not taken:
        return d
    notes.append(
        _(
            "the shape is %(model)s's: %(facts)s taken from its published configuration (%(source)s); state "
            "them in the workload to size another variant",
            model=arch.name,
            facts=joined(*(f"{k} {_fact_text(v)}" for k, v in taken.items()), sep=_(", ")),
            source=arch.source,
        )
    )
    return {**d, **taken}


def _fact_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
