"""How the transformer layers are split over the pipeline stages, and the activations each rank holds at
its peak (Megatron-Core's names; grid keys in parentheses, present only when a layout sets them).

Three splits of L layers over p stages:
- the default: ceil(L / p) layers on every stage but the ends; when p does not divide L, one layer fewer on
  the first stage (it holds the most micro-batches in flight) and the rest of the shortfall off the last
  (which also holds the output layer): Llama 3 405B's 126 layers on 16 stages as 7, 8 x 14, 7 (paper
  sec. 3.3.2, "we reduce one Transformer layer each from the first and the last stages");
- uneven ends (`num_layers_in_first/last_pipeline_stage`; layout `first_stage_layers` /
  `last_stage_layers`, grid `fsl` / `lsl`, 0 = unset): the ends hold that many layers, the other stages share
  the rest;
- the embedding and the loss as pipeline layers (`account_for_embedding_in_pipeline_split` /
  `account_for_loss_in_pipeline_split`, grid `aemb` / `aloss`): each counts as one layer slot, so every rank
  holds S = (L + e + l) / p slots in v model chunks of S / v slots, and the first chunk of the first rank
  and the last chunk of the last rank build one transformer layer fewer (transformer_block.py
  `get_num_layers_to_build`; transformer_config.py requires both divisions to be exact). Llama 3 405B (paper
  sec. 3.3.2: "the first model chunk on the first stage has only the embedding, and the last model chunk on
  the last stage has only output projection and loss calculation"): 128 slots on 16 ranks, v = 8 one-slot
  chunks.

What a rank holds at its peak is its chunks in flight (memory.in_flight_chunks, Megatron's warm-up counts)
times the layers of each; with the embedding or loss slot some of those chunks are the lighter one
(memory.first_chunks_in_flight, memory.last_chunks_in_flight).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import memory as M

# grid keys of the uneven ends and of the embedding/loss slots
UNEVEN_ENDS = ("fsl", "lsl")
PIPELINE_SLOTS = ("aemb", "aloss")


def slots(x: dict[str, Any], layers: int) -> Any:
    """Layer slots split over the stages: the transformer layers, plus the embedding and the loss where
    the layout counts them."""
    if "aemb" not in x:
        return float(layers)
    return float(layers) + x["aemb"] + x["aloss"]


def stage_layers(layers: int, x: dict[str, Any], mtp: int = 0) -> tuple[Any, Any, Any]:
    """Transformer layers of (the most loaded, the first, the last) pipeline stage. `mtp` multi-token-
    prediction modules run on the last stage (Megatron-Core builds them there, after the decoder, beside the
    output layer: gpt_model.py `mtp_process`), each a layer more; with one stage, on the only one."""
    most, first, last = _split_layers(layers, x)
    if not mtp:
        return most, first, last
    last = last + float(mtp)
    first = np.where(x["pp"] > 1, first, first + float(mtp))
    return np.maximum(most, last), first, last


def _split_layers(layers: int, x: dict[str, Any]) -> tuple[Any, Any, Any]:
    """The transformer layers alone: (the most loaded, the first, the last) pipeline stage."""
    pp = x["pp"]
    if "aemb" in x:
        per_rank = slots(x, layers) / pp
        first, last = per_rank - x["aemb"], per_rank - x["aloss"]
        most = np.where(pp > 2, per_rank, np.maximum(first, last))
        return most, first, last
    even = np.ceil(float(layers) / pp)
    if "fsl" not in x:
        # the layers short of ceil(L / p) on every stage come off the ends: one off the first stage (it
        # holds the most micro-batches in flight), the rest off the last (it also holds the output layer)
        slack = even * pp - float(layers)
        first = np.where(slack > 0, even - 1.0, even)
        return even, first, np.maximum(even - np.maximum(slack - 1.0, 0.0), 0.0)
    fsl, lsl = np.asarray(x["fsl"], dtype=float), np.asarray(x["lsl"], dtype=float)
    rest_stages = pp - (fsl > 0) - (lsl > 0)
    middle = np.ceil((float(layers) - fsl - lsl) / np.maximum(rest_stages, 1.0))
    first = np.where(fsl > 0, fsl, middle)
    last = np.where(lsl > 0, lsl, middle)
    most = np.maximum(np.maximum(first, last), np.where(rest_stages > 0, middle, 0.0))
    return most, first, last


def most_loaded_dense(
    pp: Any,
    most: Any,
    first: Any,
    last: Any,
    per_layer: Any,
    embedding: Any,
    tied: bool,
    mtp_extra: Any = 0.0,
) -> Any:
    """Dense parameters of the most loaded pipeline stage (per GPU: `per_layer` and `embedding` already over
    TP). The first stage holds the embedding, and with one stage an untied output layer too (Megatron-LM
    theoretical_memory_usage.py, cal §3); a middle one can hold more where the first has fewer layers; with
    stages the last holds the output layer, its own copy of the embedding when tied (Megatron-Core
    LanguageModule.setup_embeddings_and_output_layer: the last stage's copy is all-reduced with the
    first's). `mtp_extra`: what multi-token prediction adds to the last stage beyond its layers (the
    projections, and the input embedding an untied model's last stage then builds: gpt_model.py builds the
    embedding `if self.pre_process or self.mtp_process`)."""
    output = 0.0 if tied else np.where(pp == 1, embedding, 0.0)
    return np.maximum(
        first * per_layer + embedding + output + np.where(pp == 1, mtp_extra, 0.0),
        np.maximum(most * per_layer, np.where(pp > 1, last * per_layer + embedding + mtp_extra, 0.0)),
    )


def peak_layers(x: dict[str, Any], micro: Any, most: Any, first: Any, last: Any) -> tuple[Any, Any]:
    """Layer-micro-batches of activations held at the peak by (the most loaded pipeline rank, the rank with
    the output layer: the last, or with one stage the only one). With the default split the first rank holds
    the most of both layers and chunks in flight. With set ends, or the embedding/loss slots, the second rank
    (the first middle stage, two warm-up chunks fewer) or the last one can hold more (when p does not divide
    L, the default split too)."""
    pp, v = x["pp"], x["v"]
    if "aemb" in x:
        return _peaks_with_slots(x, micro, first, last)
    in_flight = M.in_flight_factors(pp, v, micro)  # ranks 0, 1 and p - 1
    held = first * in_flight[0]
    second = np.where(pp > 2, most, last) * in_flight[1]
    final = last * in_flight[2]
    staged = pp > 1
    return np.where(staged, np.maximum(held, np.maximum(second, final)), held), np.where(staged, final, held)


def _peaks_with_slots(x: dict[str, Any], micro: Any, first: Any, last: Any) -> tuple[Any, Any]:
    """The embedding/loss slots: every chunk holds S / v slots, all of them transformer layers but in the
    first chunk of rank 0 (the embedding) and the last chunk of rank p - 1 (the loss), one layer fewer each.
    The heaviest of rank 0, rank 1 (a middle stage when p > 2) and rank p - 1."""
    pp, v, emb, loss = x["pp"], x["v"], x["aemb"], x["aloss"]
    chunk = (first + emb) / v  # first = S - e
    lighter_first = emb * M.first_chunks_in_flight(pp, v, micro)
    lighter_last = loss * M.last_chunks_in_flight(pp, v, micro)
    # one stage: rank 0 is also the last, both chunks are lighter (v is 1 without pipeline stages)
    held = chunk * M.in_flight_chunks(pp, v, micro) - lighter_first - np.where(pp > 1, 0.0, lighter_last)
    # multi-token prediction's layers ride on the last chunk, as the loss does (in `last`, stage_layers)
    last_held = M.last_chunks_in_flight(pp, v, micro)
    mtp = np.where(pp > 1, last - (first + emb - loss), 0.0)
    final = chunk * M.in_flight_chunks(pp, v, micro, rank=pp - 1.0) - lighter_last + mtp * last_held
    second = np.where(pp > 2, chunk * M.in_flight_chunks(pp, v, micro, rank=1), final)
    staged = pp > 1
    return np.where(staged, np.maximum(held, np.maximum(second, final)), held), np.where(staged, final, held)
