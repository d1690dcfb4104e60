"""The bounds of every workload number, one table for the engine (`size` refuses a value outside with the
field and the range), the portal's model (validators and database constraints), its form and its API."""

from __future__ import annotations

from providers.facts import Bound

MAX_HEAD_WIDTH = 1024  # widest attention head accepted (published models: 64-256)
MAX_MTP_LAYERS = 8  # multi-token-prediction depths accepted (DeepSeek-V3: 1; Megatron-Core tests up to 2-4)

# The largest published training runs, about x10: inputs outside are typing errors or attacks, and would
# make the engine or the pages misbehave (a 1e300-layer workload divided by zero; a 1e300-token sequence was
# answered with infinities). The same bounds hold in the engine, the portal's model (validators and database
# constraints), the form, the API and the service; each message names the field and the range.
_SHAPE = "largest published dense shapes (Megatron 1T: 128 layers, hidden 25,600; PaLM: FFN 73,728) x10"
_MOE = "largest published MoE layouts (Switch-C: 2,048 experts; DeepSeek-V3: top-8 of 256, 1 shared) x10"
_MAX_SEQ_LEN = 10_485_760
_HEAD = "the widest attention head the engine takes for the MLA widths (MAX_HEAD_WIDTH; published: 64-256)"
_MTP = "the engine's deepest multi-token prediction (MAX_MTP_LAYERS; DeepSeek-V3: 1)"
WORKLOAD_BOUNDS: dict[str, Bound] = {
    "params": Bound("Parameters", 1e6, 2e13, source="the largest published models hold 1.6-2T parameters"),
    "layers": Bound("Layers", 1, 1280, source=_SHAPE),
    "hidden": Bound("Hidden size", 1, 262_144, source=_SHAPE),
    "heads": Bound("Attention heads", 1, 2048, source=_SHAPE),
    "kv_heads": Bound("KV heads", 1, 2048, source=_SHAPE),
    "ffn_hidden": Bound("FFN hidden", 1, 1_048_576, source=_SHAPE),
    "vocab": Bound("Vocabulary", 1, 2_621_440, source="the largest vocabularies hold 256k tokens"),
    "seq_len": Bound("Sequence length", 1, _MAX_SEQ_LEN, source="1M-token context training, x10"),
    "moe_experts": Bound("MoE experts", 1, 20_480, source=_MOE),
    "moe_top_k": Bound("MoE top-k", 1, 128, source=_MOE),
    "moe_expert_ffn_hidden": Bound("Expert FFN hidden", 1, 1_048_576, source=_MOE),
    "moe_shared_experts": Bound("Shared experts", 0, 64, source=_MOE),
    "moe_dense_layers": Bound("Leading dense layers", 0, 1280, source=_SHAPE),
    "head_dim": Bound("Head width", 1, MAX_HEAD_WIDTH, source=_HEAD),
    "qk_head_dim": Bound("Query/key head width", 1, MAX_HEAD_WIDTH, source=_HEAD),
    "v_head_dim": Bound("Value head width", 1, MAX_HEAD_WIDTH, source=_HEAD),
    "mtp_layers": Bound("Multi-token prediction modules", 0, MAX_MTP_LAYERS, source=_MTP),
    # at most the workload's own sequence length, which the engine checks (a cross-field rule)
    "sliding_window": Bound(
        "Sliding window", 1, _MAX_SEQ_LEN, "tokens", source="the sequence length's bound"
    ),
    "sliding_window_layers": Bound(
        "Layers with the window",
        None,
        1,
        strictly_positive=True,
        source="a share of the layers (gpt-oss: 0.5, every other layer; Mistral 7B v0.1: 1)",
    ),
    "glu_clamp": Bound(
        "Clamp of the gated activation",
        None,
        10_000,
        strictly_positive=True,
        source="a clamp of the gated activation's input (gpt-oss: 7.0); far above any, x1,000",
    ),
    "global_batch": Bound("Global batch", 1, 1_048_576, "sequences", source="DeepSeek-V3: 15,360 sequences"),
    "train_tokens": Bound("Training tokens", 1e6, 4e14, source="the longest published runs: ~36T tokens"),
    "deadline_days": Bound("Deadline", None, 3650, "days", strictly_positive=True, source="ten years"),
    "budget_usd": Bound(
        "Budget", None, 1e11, "USD", strictly_positive=True, source="about 100x the costliest training run"
    ),
    "checkpoints_retained": Bound("Checkpoints kept", 1, 1000, source="one per hour for six weeks"),
    "dataset_size_gb": Bound("Dataset size", 0, 1e9, "GB", source="1 EB, far above any training set"),
}

# Multi-head latent attention's low ranks and rotary head width (DeepSeek-V2/V3 config.json: q_lora_rank
# 1,536, kv_lora_rank 512, qk_rope_head_dim 64): the engine's alone (the `size` contract and its presets; the
# portal stores none of them), for the rerun of the up-projections (checkpointing.py)
_LATENT = (
    "DeepSeek-V2/V3 and Kimi K2: query rank 1,536, key/value rank 512, rotary width 64; x10 of the widest"
)
LATENT_BOUNDS: dict[str, Bound] = {
    "q_lora_rank": Bound("Query low rank", 1, 65_536, source=_LATENT),
    "kv_lora_rank": Bound("Key/value low rank", 1, 65_536, source=_LATENT),
    "qk_rope_head_dim": Bound("Rotary query/key head width", 1, MAX_HEAD_WIDTH, source=_LATENT),
}
