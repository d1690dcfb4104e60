"""Workload: the model architecture and the training job, presets, and shape derivation."""

from __future__ import annotations

import math
from dataclasses import MISSING, asdict, dataclass, field, fields
from functools import cache
from typing import Any

import numpy as np

from hardware.messages import _
from hardware.numbers import is_finite, value_text

from .architectures import Architecture, architecture, match, named, published_facts, published_keys, shape_of
from .bounds import check_float_range, check_number, chosen
from .errors import InputError
from .limits import LATENT_BOUNDS, MAX_HEAD_WIDTH, MAX_MTP_LAYERS, WORKLOAD_BOUNDS
from .shapes import DEFAULT_VOCAB, with_derived_shape, with_published_shape


@dataclass(frozen=True)
class MoE:
    experts: int
    top_k: int
    expert_ffn_hidden: int
    shared_experts: int = 0
    dense_layers: int = 0  # leading dense layers (DeepSeek-V3: 3)
    # tokens on the busiest expert-parallel rank / the mean (None: constants.MOE_LOAD_IMBALANCE, stated)
    load_imbalance: float | None = None

    @property
    def counts(self) -> tuple[int, int, int, int, int]:
        """experts, top_k, expert_ffn_hidden, shared_experts, dense_layers: the architecture's MoE shape."""
        return (self.experts, self.top_k, self.expert_ffn_hidden, self.shared_experts, self.dense_layers)


@dataclass(frozen=True)
class Workload:
    name: str
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    ffn_hidden: int
    vocab: int
    seq_len: int
    global_batch: int  # sequences per iteration
    train_tokens: float
    precision: str = "bf16"
    activation: str = "gelu"
    moe: MoE | None = None
    tied_embeddings: bool = False
    deadline_days: float | None = None
    attention: str = "auto"  # auto | flash | unfused (constants.UNFUSED_ATTENTION_GPUS)
    # per-head dimension when it is not hidden / heads (Qwen3: 128 with hidden 2048 and 32 heads)
    head_dim_override: int | None = None
    # attention-core head widths when they differ from head_dim: multi-head latent attention (DeepSeek-V2/V3,
    # Kimi K2) scores with 192-wide query/key heads (128 + 64 RoPE) and 128-wide values; its low-rank
    # projections are counted by its ranks below when they are stated (attention_params), else approximated by
    # the heads x head_dim block (DeepSeek-V3: 187M vs 205M parameters per layer)
    qk_head_dim: int | None = None
    v_head_dim: int | None = None
    # dropout layers (GPT-3-era models); Llama, Qwen, DeepSeek train without: no dropout masks stored. A
    # workload dict that leaves it out takes its activation's class (DROPOUT_NOTES)
    dropout: bool = True
    # multi-token prediction modules (DeepSeek-V3 sec. 2.2, `num_nextn_predict_layers` 1; Megatron-Core
    # `mtp_num_layers`): each is one more transformer layer of the model's last kind, a 2h x h projection and
    # a second pass of the shared output head, all on the last pipeline stage (mtp_params)
    mtp_layers: int = 0
    # sliding-window (local, banded) attention: each query attends to the `sliding_window` tokens before it in
    # `sliding_window_layers` of the layers (a share, 0-1), the rest attend to the whole causal prefix
    # (gpt-oss: a 128-token band on every other layer, model card and Megatron-Bridge's window_size (127, 0)
    # with window_attn_skip_freq 2; Mistral 7B v0.1: 4,096 on every layer; Gemma 3: 1,024 on 5 of 6)
    sliding_window: int | None = None
    sliding_window_layers: float = 1.0
    # the gated activation's clamp (gpt-oss: the GLU input clamped to 7.0, Megatron-Core
    # activation_func_clamp_value), biases on the linear layers (gpt-oss; Megatron-Core add_bias_linear) and
    # YaRN rotary embeddings (gpt-oss; position_embedding_type "yarn"): facts of the model whose code paths
    # run memory-bound passes the plain model does not (eager.eager_bytes, constants.GLU_CLAMP_* and the rest)
    glu_clamp: float | None = None
    linear_bias: bool = False
    rope: str = "rope"
    # multi-head latent attention's low ranks and rotary head width (DeepSeek-V2/V3 config.json q_lora_rank,
    # kv_lora_rank, qk_rope_head_dim): the up-projections' shapes, which their rerun under Megatron-Core's
    # mla_up_proj recompute needs (checkpointing.py); the parameter count keeps the heads x head_dim block
    q_lora_rank: int | None = None
    kv_lora_rank: int | None = None
    qk_rope_head_dim: int | None = None
    derived_from_params: float | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def head_dim(self) -> int:
        return self.head_dim_override or self.hidden // self.heads

    @property
    def attention_dim(self) -> int:
        """Width of the query (and attention output) projection: heads x head_dim."""
        return self.heads * self.head_dim

    @property
    def query_dim(self) -> int:
        """Width of the attention core's queries (and keys per head): heads x the query/key head width."""
        return self.heads * (self.qk_head_dim or self.head_dim)

    @property
    def output_dim(self) -> int:
        """Width of the attention core's output (its values per head): heads x the value head width."""
        return self.heads * (self.v_head_dim or self.head_dim)

    @property
    def key_dim(self) -> int:
        """Width of the attention core's keys: kv_heads x the query/key head width (kv_dim but for MLA)."""
        return self.kv_heads * (self.qk_head_dim or self.head_dim)

    @property
    def value_dim(self) -> int:
        """Width of the attention core's values: kv_heads x the value head width (kv_dim but for MLA)."""
        return self.kv_heads * (self.v_head_dim or self.head_dim)

    @property
    def latent_dim(self) -> int:
        """Multi-head latent attention's low ranks together (the queries' and the keys' and values'), when
        the ranks are stated (latent_up_params); 0 otherwise."""
        if self.latent_up_params is None:
            return 0
        return (self.q_lora_rank or 0) + (self.kv_lora_rank or 0)

    @property
    def core_widths(self) -> dict[str, int]:
        """The attention core's widths and the latents' for the activation model
        (memory.activation_coefficients)."""
        return {
            "query_dim": self.query_dim,
            "key_dim": self.key_dim,
            "value_dim": self.value_dim,
            "output_dim": self.output_dim,
            "latent_dim": self.latent_dim,
        }

    @property
    def latent_attention(self) -> bool:
        """Multi-head latent attention (DeepSeek-V2/V3, Kimi K2): the query/key and value head widths stated
        apart, which the engine's workloads do for MLA only. Its input norm is a module of its own (the
        down-projections read it), not fused into a linear layer (checkpointing.separate_norms)."""
        return self.qk_head_dim is not None and self.v_head_dim is not None

    @property
    def latent_up_params(self) -> float | None:
        """Weights per layer of the projections that multi-head latent attention's mla_up_proj recompute runs
        again: the queries' from their low rank (without one, DeepSeek-V2-Lite, from the hidden state:
        Megatron-Core's linear_q_proj, inside the same checkpoint) and the keys' non-rotary part and the
        values' from theirs (DeepSeek-V3: 1,536 x 128 x 192 + 512 x 128 x (128 + 128), 54.5M); None without
        the key/value rank and the rotary width."""
        if self.kv_lora_rank is None or self.qk_rope_head_dim is None or not self.latent_attention:
            return None
        qk, v = self.qk_head_dim or 0, self.v_head_dim or 0
        queries = (self.q_lora_rank or self.hidden) * self.heads * qk
        return float(queries + self.kv_lora_rank * self.heads * (qk - self.qk_rope_head_dim + v))

    @property
    def attention_core_dim(self) -> float:
        """heads x the mean of the query/key and value head widths: the attention core (scores Q K^T and
        values P V) takes 2 s x heads x (d_qk + d_v) FLOPs per token forward = 4 s x this."""
        return (self.query_dim + self.output_dim) / 2.0

    @property
    def attention_span(self) -> float:
        """The keys each query's attention core is charged for, averaged over the layers, in the convention of
        model_flops_per_token (a causal layer counts all s keys, twice the (s + 1) / 2 it computes): a banded
        layer's query i attends to min(i + 1, w) keys, s w - w (w - 1) / 2 over the sequence, so twice that
        per query, 2 w - w (w - 1) / s (s + 1 when w = s)."""
        s = float(self.seq_len)
        if not self.sliding_window:
            return s
        w = float(self.sliding_window)
        banded = min(2.0 * w - w * (w - 1.0) / s, s)
        return (1.0 - self.sliding_window_layers) * s + self.sliding_window_layers * banded

    @property
    def kv_dim(self) -> int:
        return self.kv_heads * self.head_dim

    # --- parameter counts (Narayanan eq. 2 generalised to GQA, SwiGLU, MoE; cal §2) ---
    def attention_params(self) -> float:
        """Q and output projections h x (heads x head_dim); K and V h x kv_dim each (GQA). Multi-head latent
        attention with its ranks stated (latent_up_params) is counted by its own projections (DeepSeek-V2,
        arXiv 2405.04434 sec. 2.1, eqs. 9-14; the models' config.json shapes): the queries' down-projection
        h x q_lora_rank and up-projection q_lora_rank x heads x qk_head_dim (or h x heads x qk_head_dim
        without a query rank), the keys' and values' joint down-projection h x (kv_lora_rank +
        qk_rope_head_dim) and up-projection kv_lora_rank x heads x (qk_nope + v_head_dim), the output
        heads x v_head_dim x h. DeepSeek-V3 187.1M per layer, Kimi K2 (64 heads) 101.1M, where the 4 h^2 block
        of the generic count gives both 205.5M."""
        up = self.latent_up_params
        if up is None:
            return 2.0 * self.hidden * self.attention_dim + 2.0 * self.hidden * self.kv_dim
        h = float(self.hidden)
        down = h * ((self.q_lora_rank or 0) + (self.kv_lora_rank or 0) + (self.qk_rope_head_dim or 0))
        return down + up + self.output_dim * h

    def mlp_params(self, ffn: int) -> float:
        return (3.0 if self.activation == "swiglu" else 2.0) * self.hidden * ffn

    def fp8_cast_widths(self) -> tuple[float, float]:
        """(forward, backward) elements per token that Transformer Engine casts to fp8 per layer, averaged
        over dense and MoE layers: in the forward pass the inputs of the QKV, output-projection, FC1 and FC2
        GEMMs, in the backward pass their output gradients. An MoE layer's routed experts cast each routed
        copy of a token (top_k copies, GroupedLinear); its shared experts are one MLP of n_s x the expert
        width (Megatron-Core SharedExpertMLP), one copy."""
        h, g = float(self.hidden), (2.0 if self.activation == "swiglu" else 1.0)
        mlp_in, mlp_out = h + self.ffn_hidden, g * self.ffn_hidden + h
        if self.moe:
            k, f_e = float(self.moe.top_k), float(self.moe.expert_ffn_hidden)
            shared = float(self.moe.shared_experts) * f_e
            moe_in = k * (h + f_e) + (h + shared if shared else 0.0)
            moe_out = k * (g * f_e + h) + (g * shared + h if shared else 0.0)
            mlp_in = (self.n_dense_layers * mlp_in + self.n_moe_layers * moe_in) / self.layers
            mlp_out = (self.n_dense_layers * mlp_out + self.n_moe_layers * moe_out) / self.layers
        qkv_out = self.attention_dim + 2.0 * self.kv_dim
        return h + self.attention_dim + mlp_in, qkv_out + h + mlp_out

    @property
    def n_moe_layers(self) -> int:
        return 0 if self.moe is None else self.layers - self.moe.dense_layers

    @property
    def n_dense_layers(self) -> int:
        return self.layers - self.n_moe_layers

    def expert_params_total(self) -> float:
        """Routed expert weights (sharded over EP), all MoE layers."""
        if self.moe is None:
            return 0.0
        return self.n_moe_layers * self.moe.experts * self.mlp_params(self.moe.expert_ffn_hidden)

    def dense_params_total(self) -> float:
        """Everything not in routed experts: attention, dense MLPs, shared experts, routers, norms."""
        p = self.layers * (self.attention_params() + 2.0 * self.hidden)  # + 2 norms
        p += self.n_dense_layers * self.mlp_params(self.ffn_hidden)
        if self.moe is not None:
            per = self.moe.shared_experts * self.mlp_params(self.moe.expert_ffn_hidden)
            per += self.hidden * self.moe.experts  # router
            p += self.n_moe_layers * per
        return p

    def embedding_params(self) -> float:
        return self.vocab * self.hidden * (1 if self.tied_embeddings else 2)

    def total_params(self) -> float:
        mtp = self.mtp_layers * self.mtp_params()
        return self.dense_params_total() + self.expert_params_total() + self.embedding_params() + mtp

    def active_params(self) -> float:
        if self.moe is None:
            return self.total_params()
        active_experts = self.n_moe_layers * self.moe.top_k * self.mlp_params(self.moe.expert_ffn_hidden)
        mtp = self.mtp_layers * self.mtp_params(active=True)
        return self.dense_params_total() + active_experts + self.embedding_params() + mtp

    def active_matmul_params_per_layer(self) -> float:
        """Average over layers of the matmul weights one token passes through (for FLOPs)."""
        p = self.layers * self.attention_params() + self.n_dense_layers * self.mlp_params(self.ffn_hidden)
        if self.moe is not None:
            k = self.moe.top_k + self.moe.shared_experts
            p += self.n_moe_layers * k * self.mlp_params(self.moe.expert_ffn_hidden)
        return p / self.layers

    def model_flops_per_token(self) -> float:
        """Narayanan eq. 3 / Korthikanti (cal §2): 6 x active matmul params (incl. the output layer) +
        12 x layers x hidden x seq for attention (not halved for causal, as Megatron counts it; hidden is the
        attention-core width, attention_core_dim); each multi-token-prediction module adds one layer of the
        model's last kind, its 2h x h projection and a pass of the output layer (mtp_params)."""
        matmul = self.layers * self.active_matmul_params_per_layer() + self.vocab * self.hidden
        matmul += self.mtp_layers * (self.mtp_params(active=True) + self.vocab * self.hidden)
        attention_layers = self.layers + self.mtp_layers
        return 6.0 * matmul + 12.0 * attention_layers * self.attention_core_dim * self.attention_span

    def mtp_params(self, active: bool = False) -> float:
        """Parameters of one multi-token-prediction module (DeepSeek-V3 sec. 2.2: a transformer block like the
        model's last, MoE in an MoE model, its projection M_k of h x 2h, and RMSNorms of the embedding and of
        the previous depth's hidden state; the embedding and the output head are the main model's). `active`:
        the routed experts one token passes through, top_k, not all (for FLOPs)."""
        h = float(self.hidden)
        block = self.attention_params() + 2.0 * h
        if self.moe is None:
            block += self.mlp_params(self.ffn_hidden)
        else:
            routed = self.moe.top_k if active else self.moe.experts
            block += (routed + self.moe.shared_experts) * self.mlp_params(self.moe.expert_ffn_hidden)
            block += 0.0 if active else h * self.moe.experts  # router
        return block + 2.0 * h * h + (0.0 if active else 2.0 * h)

    def micro_batches(self, dp: Any, micro_batch: Any) -> Any:
        """Micro-batches per data-parallel replica per step, ceil(global_batch / (dp x micro_batch)): the m of
        a layout (scalars) or of a grid of layouts (arrays)."""
        return np.ceil(self.global_batch / (np.asarray(dp) * micro_batch))

    @property
    def tokens_per_iteration(self) -> int:
        return self.global_batch * self.seq_len

    def to_dict(self) -> dict[str, Any]:
        # dataclasses.asdict's result (same keys, same order) built field by field: every field but `notes`
        # (a list, dropped here) and `moe` (a dataclass of scalars) is a scalar, so nothing needs a deep copy
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        if self.moe is not None:
            d["moe"] = {f.name: getattr(self.moe, f.name) for f in fields(self.moe)}
        d.pop("notes")
        d.pop("derived_from_params")
        d["head_dim"] = d.pop("head_dim_override")
        if self.sliding_window is None:
            d.pop("sliding_window_layers")
        # absent keys stay absent in the answer's echo, but for a published model's shape, whose absent keys
        # would take that model's values again (architectures.published_facts): its echo sizes the same
        kept = published_keys(match(d, self.activation, self.moe.counts if self.moe else None))
        for key, default in (("glu_clamp", None), ("linear_bias", False), ("rope", "rope"), *_UNSET_LATENT):
            if d[key] == default and key not in kept:
                d.pop(key)
        if self.moe is None or self.moe.load_imbalance is None:
            if isinstance(d.get("moe"), dict):
                d["moe"].pop("load_imbalance")
        return d


ATTENTION_KINDS = ("auto", "flash", "unfused")
# rotary embeddings: plain RoPE (fused by Megatron-Core's kernels) or YaRN (gpt-oss), which runs unfused
ROPE_KINDS = ("rope", "yarn")


# The columns of a preset row: the Workload's required fields after its name, in declaration order
# (layers, hidden, heads, kv_heads, ffn_hidden, vocab, seq_len, global_batch, train_tokens).
PRESET_COLUMNS = tuple(
    f.name
    for f in fields(Workload)
    if f.name != "name" and f.default is MISSING and f.default_factory is MISSING
)


def _preset(name: str, shape: tuple[Any, ...], **extra: Any) -> Workload:
    """A preset from its row of PRESET_COLUMNS and any other Workload fields."""
    return Workload(name=name, **dict(zip(PRESET_COLUMNS, shape, strict=True)), **extra)


# Published shapes. Batch and token counts are the published training settings where they exist.
# Each row: the values of PRESET_COLUMNS (global_batch in sequences), then any other field.
_PRESET_LIST = (
    # Llama 2 13B (Touvron et al. 2023): 40 x 5120, 40 heads, SwiGLU 13824, 4k context, 2T tokens,
    # 4M-token batch.
    _preset("13b", (40, 5120, 40, 40, 13824, 32000, 4096, 1024, 2.0e12), activation="swiglu", dropout=False),
    # LLaMA 30B ("33B" in the paper, Touvron et al. 2023): 60 x 6656, 52 heads, 1.4T tokens, 4M-token batch.
    _preset("30b", (60, 6656, 52, 52, 17920, 32000, 2048, 2048, 1.4e12), activation="swiglu", dropout=False),
    # Llama 3 70B (arXiv 2407.21783 Table 3): 80 x 8192, 64 heads / 8 KV, FFN 28672, vocab 128256, 15T tokens.
    _preset(
        "llama3-70b",
        (80, 8192, 64, 8, 28672, 128256, 8192, 2048, 15.0e12),
        activation="swiglu",
        dropout=False,
    ),
    # GPT-3 175B (Brown et al. 2020): 96 x 12288, 96 heads, seq 2048, 3.2M-token batch (1536 seqs), 300B
    # tokens; vocab padded to 51200 as Megatron does (cal §2).
    _preset("gpt3-175b", (96, 12288, 96, 96, 49152, 51200, 2048, 1536, 300e9), tied_embeddings=True),
    # Llama 3 405B (arXiv 2407.21783 Table 3): 126 x 16384, 128 heads / 8 KV, FFN 53248, 15.6T tokens,
    # batch 16M tokens at 8k.
    _preset(
        "llama3-405b",
        (126, 16384, 128, 8, 53248, 128256, 8192, 2048, 15.6e12),
        activation="swiglu",
        dropout=False,
    ),
    # Megatron 1T (Narayanan et al. 2021 Table 1, cal §2): 128 x 25600, 160 heads. Tokens assumed 1T.
    _preset("dense-1t", (128, 25600, 160, 160, 102400, 51200, 2048, 3072, 1.0e12), tied_embeddings=True),
    # DeepSeek-V3 (arXiv 2412.19437): 61 layers, hidden 7168, 128 heads, 3 dense layers (FFN 18432), 256
    # routed experts top-8 + 1 shared, expert FFN 2048, vocab 129280, 14.8T tokens, seq 4096, batch 15360,
    # fp8. MLA's projections are counted by its ranks (187.1M params per layer, attention_params); its
    # attention core scores with 192-wide query/key heads (qk_nope 128 + qk_rope 64) and 128-wide values
    # (the model's config.json: qk_nope_head_dim, qk_rope_head_dim, v_head_dim), its up-projections from
    # ranks 1,536 (queries) and 512 (keys and values; config.json q_lora_rank, kv_lora_rank): the facts of
    # architectures.ARCHITECTURES, which a workload of this shape takes without the preset. It trained with
    # one multi-token-prediction module (sec. 2.2, D = 1; config.json num_nextn_predict_layers 1).
    _preset(
        "deepseek-v3-671b",
        (61, 7168, 128, 128, 18432, 129280, 4096, 15360, 14.8e12),
        activation="swiglu",
        precision="fp8",
        dropout=False,
        **architecture("DeepSeek-V3").facts,
        mtp_layers=1,
        moe=MoE(experts=256, top_k=8, expert_ffn_hidden=2048, shared_experts=1, dense_layers=3),
    ),
)
PRESETS: dict[str, Workload] = {preset.name: preset for preset in _PRESET_LIST}


# A preset's facts beyond its shape, batch, precision and MoE counts, which a portal workload made from it
# may leave blank (the portal stores all of them but dropout): MLA head widths, head width, dropout,
# multi-token prediction and sliding windows
PRESET_EXTRA_FIELDS = (
    "qk_head_dim", "v_head_dim", "head_dim", "dropout", "mtp_layers", "sliding_window",
    "sliding_window_layers", "q_lora_rank", "kv_lora_rank", "qk_rope_head_dim",
)  # fmt: skip
# the latent-attention keys an answer's workload echo leaves out when unset, as before they existed
_UNSET_LATENT = (("q_lora_rank", None), ("kv_lora_rank", None), ("qk_rope_head_dim", None))
_PRESET_SHAPE_FIELDS = ("layers", "hidden", "heads", "kv_heads", "ffn_hidden", "vocab", "activation")


def preset_extras(name: str, workload: dict[str, Any]) -> dict[str, Any]:
    """The facts of preset `name` beyond its shape (PRESET_EXTRA_FIELDS), for a stored workload to take where
    it leaves them blank, when it keeps the preset's architecture (its shape and MoE counts); none when it
    changed them, or names no preset: they describe that model, not another."""
    preset = PRESETS.get(name)
    if preset is None:
        return {}
    d = preset.to_dict()
    if any(workload.get(k) != d[k] for k in _PRESET_SHAPE_FIELDS):
        return {}
    moe = workload.get("moe") or None
    if (moe is None) != (preset.moe is None):
        return {}
    if moe is not None and any(moe.get(k) not in (None, d["moe"][k]) for k in moe):
        return {}
    extras = {k: d[k] for k in PRESET_EXTRA_FIELDS if d.get(k) is not None}
    if extras.get("dropout") == (preset.activation == "gelu"):
        del extras["dropout"]  # the activation's class, which the engine takes and states (DROPOUT_NOTES)
    if extras.get("mtp_layers") == 0:
        del extras["mtp_layers"]
    return extras


def workload_preset(name: str) -> Workload:
    try:
        return PRESETS[name]
    except KeyError:
        raise InputError(
            "workload",
            _("unknown preset %(name)s (known: %(known)s)", name=repr(name), known=", ".join(PRESETS)),
        ) from None


_BOUNDS = {**WORKLOAD_BOUNDS, **LATENT_BOUNDS}


def _num(
    d: dict[str, Any], key: str, *, integer: bool = True, default: Any = None, required: bool = True
) -> Any:
    field_name = f"workload.{key}"
    if key not in d or d[key] is None:
        if required and default is None:
            raise InputError(field_name, _("missing"))
        return default
    v = d[key]
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise InputError(field_name, _("must be a number, got %(got)s", got=value_text(v)))
    check_float_range(field_name, v, _BOUNDS.get(key))
    if not math.isfinite(v) or v <= 0:
        raise InputError(field_name, _("must be positive, got %(got)s", got=value_text(v)))
    if integer and float(v) != int(v):
        raise InputError(field_name, _("must be an integer, got %(got)s", got=value_text(v)))
    if (bound := _BOUNDS.get(key)) is not None:
        check_number(field_name, v, bound, integer=integer)
    return int(v) if integer else float(v)


def _latent_ranks(
    d: dict[str, Any], qk_head_dim: int | None, v_head_dim: int | None, notes: list[str]
) -> dict[str, Any]:
    """Multi-head latent attention's low ranks and rotary width, the rotary part narrower than the query/key
    width. Without the attention's query/key and value widths they describe nothing and are left out, as
    the answer says (a preset's dict with its widths cleared still sizes)."""
    out = {key: _num(d, key, required=False) for key in LATENT_BOUNDS}
    stated = [key for key, value in out.items() if value is not None]
    if stated and (qk_head_dim is None or v_head_dim is None):
        notes.append(
            _(
                "%(keys)s left out: they describe multi-head latent attention, and the workload states no "
                "qk_head_dim and v_head_dim",
                keys=", ".join(stated),
            )
        )
        return dict.fromkeys(LATENT_BOUNDS)
    rope = out["qk_rope_head_dim"]
    if rope is not None and qk_head_dim is not None and rope >= qk_head_dim:
        raise InputError(
            "workload.qk_rope_head_dim",
            _("must be less than qk_head_dim (%(qk)s), got %(got)s", qk=qk_head_dim, got=value_text(rope)),
        )
    return out


def _head_width(d: dict[str, Any], key: str) -> int | None:
    width = _num(d, key, required=False)
    if width is not None and width > MAX_HEAD_WIDTH:
        raise InputError(
            f"workload.{key}",
            _(
                "must be between 1 and %(most)s, got %(got)s",
                most=value_text(MAX_HEAD_WIDTH),
                got=value_text(width),
            ),
        )
    return width


# A workload that does not say whether it has dropout layers takes its class's: SwiGLU models train without
# (Llama 2/3, Mistral, Qwen2/3 and DeepSeek-V3 publish attention and hidden dropout 0.0 in their config.json),
# GPT-3-era GELU models with (Megatron-LM's defaults --hidden-dropout and --attention-dropout 0.1; BLOOM, a
# GELU model, trained without and says so). The masks are activation memory and memory-bound work.
DROPOUT_NOTES = {
    "swiglu": _(
        "dropout not given: none assumed, as SwiGLU models train (Llama 2/3, Mistral, Qwen and DeepSeek "
        "publish attention and hidden dropout 0.0); set workload.dropout to true for a model that uses it"
    ),
    "gelu": _(
        "dropout not given: dropout layers assumed, as GPT-3-era GELU models train (Megatron-LM's default "
        "hidden and attention dropout 0.1); set workload.dropout to false for a model without them"
    ),
}


def workload_from_dict(d: dict[str, Any], layer_multiple: int = 1) -> Workload:
    """Validate a workload dict (DESIGN section 5 CLI contract) and build the Workload; a shape derived from a
    bare parameter count has a multiple of `layer_multiple` layers (derive_shape)."""
    if not isinstance(d, dict):
        raise InputError("workload", _("must be a JSON object"))
    if "preset" in d and "layers" not in d and "params" not in d:
        base = workload_preset(str(d["preset"]))
        return _override(base, d)
    notes: list[str] = []
    derived: float | None = None
    if "layers" not in d and "params" in d:
        params = _num(d, "params", integer=False)
        known = _named_model(d, params)
        if known is not None:
            d = with_published_shape(d, known, params, notes)
        else:
            if isinstance(d.get("moe"), dict):
                # a derived shape is dense: experts added to it would size a larger model than the count
                raise InputError(
                    "workload.moe",
                    _(
                        "a parameter count alone gives a dense shape; for a mixture of experts give the "
                        "shape too (layers, hidden, heads and the experts' widths), or the name and count "
                        "of a published model"
                    ),
                )
            derived = params
            vocab = _num(d, "vocab", default=DEFAULT_VOCAB)
            d = with_derived_shape(d, params, vocab, notes, layer_multiple)
    shape = _shape_fields(d, notes)
    # checked in this order, so the first error a caller sees does not change
    precision = _choice(d, "precision", ("bf16", "fp8"))
    activation = _choice(d, "activation", ("gelu", "swiglu"))
    attention = _choice(d, "attention", ATTENTION_KINDS)
    moe = _moe_from_dict(d.get("moe"), shape["ffn_hidden"], shape["layers"])
    d = published_facts(d, shape, activation, moe.counts if moe else None, notes)
    head_dim = _head_width(d, "head_dim")
    qk_head_dim, v_head_dim = (_head_width(d, key) for key in ("qk_head_dim", "v_head_dim"))
    mtp_layers = _mtp_layers(d)
    window, window_layers = _sliding_window(d, shape["seq_len"])
    glu_clamp = _num(d, "glu_clamp", integer=False, required=False)
    linear_bias = d.get("linear_bias", False)
    if not isinstance(linear_bias, bool):
        raise InputError(
            "workload.linear_bias", _("must be true or false, got %(got)s", got=value_text(linear_bias))
        )
    rope = _choice(d, "rope", ROPE_KINDS)
    latent = _latent_ranks(d, qk_head_dim, v_head_dim, notes)
    dropout = d.get("dropout")
    if dropout is None:
        dropout = activation == "gelu"
        notes.append(DROPOUT_NOTES[activation])
    if not isinstance(dropout, bool):
        raise InputError("workload.dropout", _("must be true or false, got %(got)s", got=value_text(dropout)))
    deadline = d.get("deadline_days")
    if deadline is not None:
        deadline = _num(d, "deadline_days", integer=False)
    return Workload(
        name=str(d.get("name") or "custom"),
        **shape,
        precision=precision,
        activation=activation,
        moe=moe,
        tied_embeddings=bool(d.get("tied_embeddings", False)),
        deadline_days=deadline,
        attention=attention,
        head_dim_override=head_dim,
        qk_head_dim=qk_head_dim,
        v_head_dim=v_head_dim,
        dropout=dropout,
        mtp_layers=mtp_layers,
        sliding_window=window,
        sliding_window_layers=window_layers,
        glu_clamp=glu_clamp,
        linear_bias=linear_bias,
        rope=rope,
        **latent,
        derived_from_params=derived,
        notes=notes,
    )


def _published_count(arch: Architecture) -> float:
    """The engine's parameter count of a published model's shape."""
    return _count_of(arch.name)


@cache
def _count_of(name: str) -> float:
    return workload_from_dict({**shape_of(architecture(name)), "name": name}).total_params()


def _named_model(d: dict[str, Any], params: float) -> Architecture | None:
    """The published model a bare parameter count and its name give (architectures.named), unless the
    workload states an activation or experts that are not that model's."""
    arch = named(str(d.get("name") or ""), params, _published_count)
    if arch is None:
        return None
    activation = arch.shape[-1]
    stated_moe = d.get("moe", arch.moe)
    if d.get("activation", activation) != activation or (stated_moe is None) != (arch.moe is None):
        return None
    return arch


def _shape_fields(d: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    """The architecture and batch fields, with the defaults filled in noted, heads checked."""
    layers = _num(d, "layers")
    hidden = _num(d, "hidden")
    heads = _num(d, "heads")
    kv_heads = _num(d, "kv_heads", default=heads)
    ffn = _num(d, "ffn_hidden", default=4 * hidden)
    vocab = _num(d, "vocab", default=DEFAULT_VOCAB)
    seq = _num(d, "seq_len", default=2048)
    global_batch = _num(d, "global_batch", default=max(1, (4 * 1024 * 1024) // seq))
    tokens = _num(d, "train_tokens", integer=False, default=300e9)
    # each default a workload leaves to the engine is said, in the reader's language
    if "vocab" not in d:
        notes.append(_("vocab not given: %(vocab)s assumed", vocab=str(vocab)))
    if "seq_len" not in d:
        notes.append(_("seq_len not given: %(seq)s tokens assumed", seq=str(seq)))
    if "global_batch" not in d:
        notes.append(
            _("global_batch not given: %(batch)s sequences (~4M tokens) assumed", batch=str(global_batch))
        )
    if "train_tokens" not in d:
        notes.append(_("train_tokens not given: 300B assumed"))
    if hidden % heads:
        raise InputError(
            "workload.heads", _("%(heads)s heads do not divide hidden %(hidden)s", heads=heads, hidden=hidden)
        )
    if heads % kv_heads:
        raise InputError(
            "workload.kv_heads",
            _("%(kv_heads)s KV heads do not divide %(heads)s heads", kv_heads=kv_heads, heads=heads),
        )
    return {
        "layers": layers,
        "hidden": hidden,
        "heads": heads,
        "kv_heads": kv_heads,
        "ffn_hidden": ffn,
        "vocab": vocab,
        "seq_len": seq,
        "global_batch": global_batch,
        "train_tokens": tokens,
    }


def _mtp_layers(d: dict[str, Any]) -> int:
    """`mtp_layers`: a whole number from 0 to MAX_MTP_LAYERS (absent or null: 0)."""
    value = d.get("mtp_layers")
    if value is None:
        return 0
    number = isinstance(value, int | float) and not isinstance(value, bool) and is_finite(value)
    if not number or value != int(value) or not 0 <= value <= MAX_MTP_LAYERS:
        raise InputError(
            "workload.mtp_layers",
            _(
                "must be a whole number from 0 to %(most)s, got %(got)s",
                most=MAX_MTP_LAYERS,
                got=value_text(value),
            ),
        )
    return int(value)


def _sliding_window(d: dict[str, Any], seq_len: int) -> tuple[int | None, float]:
    """`sliding_window` (tokens, 1 to the sequence length) and the share of the layers that use it (above 0,
    at most 1; all of them when not given)."""
    window = _num(d, "sliding_window", required=False)
    share = d.get("sliding_window_layers")
    if window is None:
        if share is not None and (
            isinstance(share, bool) or share != 1.0
        ):  # 1: the default, said of no window
            raise InputError("workload.sliding_window_layers", _("is given without a sliding window"))
        return None, 1.0
    if window > seq_len:
        raise InputError(
            "workload.sliding_window",
            _(
                "must be at most the sequence length %(seq)s, got %(got)s",
                seq=value_text(seq_len),
                got=value_text(window),
            ),
        )
    if share is None:
        return window, 1.0
    if isinstance(share, bool) or not isinstance(share, int | float) or not 0.0 < share <= 1.0:
        raise InputError(
            "workload.sliding_window_layers",
            _("must be a share above 0 and at most 1, got %(got)s", got=value_text(share)),
        )
    return window, float(share)


def _choice(d: dict[str, Any], key: str, allowed: tuple[str, ...]) -> str:
    """A text field that must be one of `allowed` (absent or empty: the first)."""
    given = d.get(key) or allowed[0]
    value = chosen(given, allowed) or str(given)
    if value not in allowed:
        if len(allowed) == 2:
            reason = _(
                "must be %(first)s or %(second)s, got %(got)s",
                first=allowed[0],
                second=allowed[1],
                got=value_text(value),
            )
        else:
            reason = _(
                "must be one of %(allowed)s, got %(got)s", allowed=", ".join(allowed), got=value_text(value)
            )
        raise InputError(f"workload.{key}", reason)
    return value


def _moe_from_dict(m: Any, ffn: int, layers: int) -> MoE | None:
    """The `moe` object (absent, null or empty: a dense model)."""
    if not m:
        return None
    if not isinstance(m, dict):
        raise InputError("workload.moe", _("must be an object or null"))
    experts = _moe_num(m, "experts")
    top_k = _moe_num(m, "top_k")
    if top_k > experts:
        raise InputError(
            "workload.moe.top_k", _("%(top_k)s exceeds %(experts)s experts", top_k=top_k, experts=experts)
        )
    expert_ffn = _moe_num(m, "expert_ffn_hidden", default=ffn)
    shared = _moe_num(m, "shared_experts", default=0, allow_zero=True)
    dense_layers = _moe_num(m, "dense_layers", default=0, allow_zero=True)
    if dense_layers >= layers:
        raise InputError(
            "workload.moe.dense_layers",
            _("%(dense)s leaves no MoE layer of %(layers)s", dense=dense_layers, layers=layers),
        )
    imbalance = m.get("load_imbalance")
    if imbalance is not None and (
        isinstance(imbalance, bool) or not isinstance(imbalance, int | float) or not 1.0 <= imbalance <= 8.0
    ):
        raise InputError(
            "workload.moe.load_imbalance",
            _("must be a number from 1 to 8, got %(got)s", got=value_text(imbalance)),
        )
    return MoE(
        experts, top_k, expert_ffn, shared, dense_layers, None if imbalance is None else float(imbalance)
    )


def _moe_num(m: dict[str, Any], key: str, default: int | None = None, allow_zero: bool = False) -> int:
    field_name = f"workload.moe.{key}"
    v = m.get(key, default)
    if v is None:
        raise InputError(field_name, _("missing"))
    check_float_range(field_name, v, WORKLOAD_BOUNDS.get(f"moe_{key}"))
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or float(v) != int(v):
        raise InputError(field_name, _("must be an integer, got %(got)s", got=value_text(v)))
    if v < 0 or (v == 0 and not allow_zero):
        raise InputError(field_name, _("must be positive, got %(got)s", got=value_text(v)))
    if (bound := WORKLOAD_BOUNDS.get(f"moe_{key}")) is not None:
        check_number(field_name, v, bound, integer=True)
    return int(v)


def _override(base: Workload, d: dict[str, Any]) -> Workload:
    merged = base.to_dict()
    merged["moe"] = None if base.moe is None else asdict(base.moe)
    for k, v in d.items():
        if k != "preset":
            merged[k] = v
    return workload_from_dict(merged)
