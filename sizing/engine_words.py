"""The engine's refusals that name its codes (and the planner service's), in a buyer's words on a page.

Some reasons the engine gives (`InputError`, sizing/engine) name the keys and products its input is written
in: a fact's key (`gpus_per_node`), the layout's degrees multiplied (`tp*pp*cp`), a setting's key
(`virtual_stages`). The CLI and the API keep that English exactly (outside tools read it); a page shows the
same reason worded with the names a buyer knows, by its message id (`page_worded`), in every language.
Stored reasons are worded when they are shown, so results stored before this module read the same. An answer's
assumption notes and explanation sentences that name a code (`workload.dropout`, `moe_dispatcher`) are worded
the same way on the result and quote pages (`PAGE_NOTES`, `page_worded_list`), a value the engine quotes as a
code (the optimizer-state convention) in words (`PAGE_VALUES`).
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext, gettext_noop

from sizing.engine.constants import OPTIMIZER_BYTES

# The engine's message id -> the page's. Each keeps the engine's values (%(name)s) and says the same thing.
PAGE_REASONS = {
    "must be a multiple of gpus_per_node (%(per_node)s), got %(got)s": gettext_noop(
        "must be a whole multiple of the GPUs per node (%(per_node)s), got %(got)s"
    ),
    "%(gpus)s GPUs are not divisible by tp*pp*cp = %(used)s": gettext_noop(
        "%(gpus)s GPUs are not divisible by TP × PP × CP = %(used)s"
    ),
    "%(gpus)s GPUs but the layout uses tp*pp*dp*cp = %(used)s": gettext_noop(
        "%(gpus)s GPUs, but the layout uses TP × PP × DP × CP = %(used)s"
    ),
    "tp*pp*dp*cp = %(gpus)s GPUs, more than the %(most)s the engine sizes": gettext_noop(
        "the layout uses TP × PP × DP × CP = %(gpus)s GPUs, more than the %(most)s the planner sizes"
    ),
    "%(layers)s layers + %(extra)s slots = %(slots)s must split evenly over pp=%(pp)s stages and their "
    "virtual_stages=%(v)s chunks": gettext_noop(
        "%(layers)s layers + %(extra)s slots = %(slots)s must split evenly over %(pp)s pipeline stages "
        "(PP) of %(v)s virtual stages each"
    ),
    "DeepSpeed's pipeline engine has no interleaved schedule: virtual_stages 1": gettext_noop(
        "DeepSpeed's pipeline engine has no interleaved schedule: one virtual stage per pipeline stage"
    ),
    "EP=%(ep)s x ETP=%(etp)s must divide tp*dp*cp = %(ranks)s (Megatron-Core folds the experts over the "
    "ranks of the dense layers)": gettext_noop(
        "EP × ETP = %(ep)s × %(etp)s must divide TP × DP × CP = %(ranks)s (Megatron-Core folds the experts "
        "over the ranks of the dense layers)"
    ),
    "cannot be set with first_stage_layers / last_stage_layers (Megatron-Core)": gettext_noop(
        "cannot be set together with the layers of the first or last pipeline stage (Megatron-Core)"
    ),
    "uneven first/last stages need pipeline stages (pp >= 2)": gettext_noop(
        "uneven first and last stages need pipeline parallelism (PP of 2 or more)"
    ),
    "must be less than qk_head_dim (%(qk)s), got %(got)s": gettext_noop(
        "must be less than the query/key head width (%(qk)s), got %(got)s"
    ),
    "moe_act needs a workload with experts (moe)": gettext_noop(
        "recomputing the experts' activation needs a workload with experts"
    ),
    "mla_up_proj needs multi-head latent attention (qk_head_dim and v_head_dim)": gettext_noop(
        "recomputing the up-projections of latent attention needs multi-head latent attention (its query/key "
        "and value head widths)"
    ),
    "the cheapest-within-deadline objective needs a deadline": gettext_noop(
        "the objective “Cheapest within the deadline” needs a deadline"
    ),
}

# The planner service's refusals (sizing.services) that name a parameter or an objective's code: the API's
# message id -> the page's. The service gives, beside the values its English names, those the page's words
# name instead (the offerings by name, `names`, where the API names their slugs).
SERVICE_PAGE_REASONS = {
    "%(slugs)s: fictional sample(s); set include_samples to size them": gettext_noop(
        "fictional sample offerings (%(names)s) are sized only when “Include the fictional sample offerings” "
        "is ticked"
    ),
    "must be cheapest or fastest, got “%(got)s”": gettext_noop(
        "must be “Cheapest within the deadline” or “Fastest within the budget”, got “%(got)s”"
    ),
}
# The engine's assumption notes and explanation sentences that name its codes (an input key such as
# `workload.dropout`, a layout setting such as `moe_dispatcher`, a framework flag such as
# `reshard_after_forward`): the engine's message id -> the page's, the same meaning without the codes.
# Where the engine says which key to set, the page names the planner form's field, or asks the provider
# about its training settings (the layout settings the portal does not take). A page sentence keeps the
# engine's values, or leaves out one that is itself a list of keys (`%(keys)s`).
PAGE_NOTES = {
    "Muon optimizer: unlike the other overlap defaults, the updated weights are gathered after the "
    "optimizer step, not behind the next forward pass, as Megatron-Core's layer-wise distributed "
    "optimizer runs it in NVIDIA's published recipes; set overlap_param_gather for a stack that overlaps "
    "it": gettext_noop(
        "Muon optimizer: unlike the other overlap defaults, the updated weights are gathered after the "
        "optimizer step, not behind the next forward pass, as Megatron-Core's layer-wise distributed "
        "optimizer runs it in NVIDIA's published recipes; ask the provider whether their stack overlaps it"
    ),
    "seq_len not given: %(seq)s tokens assumed": gettext_noop(
        "sequence length not given: %(seq)s tokens assumed"
    ),
    "global_batch not given: %(batch)s sequences (~4M tokens) assumed": gettext_noop(
        "global batch not given: %(batch)s sequences (~4M tokens) assumed"
    ),
    "train_tokens not given: 300B assumed": gettext_noop("training tokens not given: 300B assumed"),
    "MoE load imbalance not given: the busiest expert-parallel rank carries %(factor)sx the mean tokens (the "
    "GShard/Switch training capacity factor); set workload.moe.load_imbalance (1.0 for force-balanced "
    "benchmarks)": gettext_noop(
        "MoE load imbalance not given: the busiest expert-parallel rank carries %(factor)sx the mean tokens "
        "(the GShard/Switch training capacity factor); ask the provider about a run with another imbalance "
        "(1.0 for force-balanced benchmarks)"
    ),
    "DP=%(dp)s replicas; the gradient reduction adds %(seconds)s s per iteration after the part hidden "
    "behind compute (bucket by bucket behind the last micro-batch's backward pass, Megatron's "
    "overlap_grad_reduce).": gettext_noop(
        "DP=%(dp)s replicas; the gradient reduction adds %(seconds)s s per iteration after the part hidden "
        "behind compute (bucket by bucket behind the last micro-batch's backward pass, as Megatron overlaps "
        "it)."
    ),
    "DP=%(dp)s replicas; the gradient reduction adds %(seconds)s s per iteration, none of it hidden: it "
    "waits for the end of the backward pass instead of starting bucket by bucket (Megatron's "
    "overlap_grad_reduce off).": gettext_noop(
        "DP=%(dp)s replicas; the gradient reduction adds %(seconds)s s per iteration, none of it hidden: it "
        "waits for the end of the backward pass instead of starting bucket by bucket (Megatron's overlap of "
        "the gradient reduction off)."
    ),
    "ZeRO-3 also shards the weights: each of the %(micro_batches)s micro-batches all-gathers them once in "
    "the forward pass and keeps them until its backward (reshard_after_forward off), then reduce-scatters "
    "its gradients (the traffic of one all-reduce per micro-batch; %(overlap)s).": gettext_noop(
        "ZeRO-3 also shards the weights: each of the %(micro_batches)s micro-batches all-gathers them once "
        "in the forward pass and keeps them until its backward (not resharded after the forward pass), then "
        "reduce-scatters its gradients (the traffic of one all-reduce per micro-batch; %(overlap)s)."
    ),
    "ZeRO-3 also shards the weights: the one micro-batch all-gathers them once in the forward pass and keeps "
    "them until its backward (reshard_after_forward off), then reduce-scatters its gradients (the traffic of "
    "one all-reduce; %(overlap)s).": gettext_noop(
        "ZeRO-3 also shards the weights: the one micro-batch all-gathers them once in the forward pass and "
        "keeps them until its backward (not resharded after the forward pass), then reduce-scatters its "
        "gradients (the traffic of one all-reduce; %(overlap)s)."
    ),
    "The all-to-alls of one micro-batch run under another micro-batch's compute "
    "(overlap_moe_expert_parallel_comm): the share above is what stays exposed, with the compute slowed by "
    "the SMs the communication holds.": gettext_noop(
        "The all-to-alls of one micro-batch run under another micro-batch's compute (the expert-parallel "
        "communication overlapped): the share above is what stays exposed, with the compute slowed by the "
        "SMs the communication holds."
    ),
    "%(chunks)s model chunks (pp x virtual_stages) for %(layers)s layers: the embedding and the loss counted "
    "as pipeline layers assumed, the only split that gives every chunk a layer (Megatron-Core "
    "account_for_embedding_in_pipeline_split and account_for_loss_in_pipeline_split); set them to false to "
    "have the layout evaluated without": gettext_noop(
        "%(chunks)s model chunks (PP × virtual stages) for %(layers)s layers: the embedding and the loss "
        "counted as pipeline layers assumed, the only split that gives every chunk a layer (as Megatron-Core "
        "can count them); ask the provider whether its training settings count them"
    ),
    "recompute of mla_up_proj not modelled: the workload does not state q_lora_rank, kv_lora_rank and "
    "qk_rope_head_dim, so its outputs are counted as kept (more memory) and its rerun is not charged (less "
    "time)": gettext_noop(
        "recomputing the up-projections of latent attention not modelled: the workload does not state the "
        "latent attention's low ranks and rotary width, so their outputs are counted as kept (more memory) "
        "and their rerun is not charged (less time)"
    ),
    "attention not given: unfused attention (s x s scores materialised) assumed on %(gpu)s, as in its "
    "calibration runs (Megatron-LM 2021-22); set workload.attention to 'flash' for a FlashAttention "
    "stack": gettext_noop(
        "attention not given: unfused attention (s x s scores materialised) assumed on %(gpu)s, as in its "
        "calibration runs (Megatron-LM 2021-22); for a FlashAttention stack choose the Attention “fused "
        "(FlashAttention)”"
    ),
    "attention not given: fused FlashAttention-style kernels assumed on %(gpu)s (no s x s scores in memory "
    "or HBM traffic; the backward pass recomputes them); set workload.attention to 'unfused' for a stack "
    "that materialises them": gettext_noop(
        "attention not given: fused FlashAttention-style kernels assumed on %(gpu)s (no s x s scores in "
        "memory or HBM traffic; the backward pass recomputes them); for a stack that materialises them "
        "choose the Attention “unfused (scores materialised)”"
    ),
    "cross-entropy loss implementation not given: Transformer Engine's fused kernel assumed on %(gpu)s, as "
    "NVIDIA's performance recipes run it (about %(bytes)s bytes of memory traffic per logit); set the "
    "layout's cross_entropy to native or unfused for a stack that runs Megatron-Core's own": gettext_noop(
        "cross-entropy loss implementation not given: Transformer Engine's fused kernel assumed on %(gpu)s, "
        "as NVIDIA's performance recipes run it (about %(bytes)s bytes of memory traffic per logit); ask the "
        "provider which loss implementation its training stack runs"
    ),
    "cross-entropy loss implementation not given: the unfused vocabulary-parallel loss of Megatron-LM "
    "assumed on %(gpu)s (about %(bytes)s bytes of memory traffic per logit), its default; set the layout's "
    "cross_entropy to native or te for a stack that fuses it": gettext_noop(
        "cross-entropy loss implementation not given: the unfused vocabulary-parallel loss of Megatron-LM "
        "assumed on %(gpu)s (about %(bytes)s bytes of memory traffic per logit), its default; ask the "
        "provider whether its training stack fuses the loss"
    ),
    "ZeRO-3 data-parallel overlap not given: parameter prefetch and gradient reduce-scatter overlapped with "
    "compute, the default of DeepSpeed stage 3 (overlap_comm) and PyTorch FSDP (backward prefetch); set "
    "overlap_grad_reduce / overlap_param_gather to false for a stack that does not": gettext_noop(
        "ZeRO-3 data-parallel overlap not given: parameter prefetch and gradient reduce-scatter overlapped "
        "with compute, the default of DeepSpeed stage 3 and PyTorch FSDP (backward prefetch); ask the "
        "provider whether its training settings overlap them"
    ),
    "expert-parallel all-to-all overlap not given: off assumed (Megatron-Core's default): token dispatch and "
    "combine run on the critical path; set overlap_moe_expert_parallel_comm: true for a stack that hides "
    "them behind another micro-batch (Megatron-Core's combined 1F1B, DeepSeek's DualPipe)": gettext_noop(
        "expert-parallel all-to-all overlap not given: off assumed (Megatron-Core's default): token dispatch "
        "and combine run on the critical path; ask the provider whether its training settings hide them "
        "behind another micro-batch (Megatron-Core's combined 1F1B, DeepSeek's DualPipe)"
    ),
    "MoE token dispatcher not given: the all-to-all dispatcher assumed on %(gpu)s (one copy of a token per "
    "routed expert); set moe_dispatcher: deepep for a deduplicating dispatcher": gettext_noop(
        "MoE token dispatcher not given: the all-to-all dispatcher assumed on %(gpu)s (one copy of a token "
        "per routed expert); ask the provider whether its training settings use a deduplicating dispatcher "
        "(DeepEP)"
    ),
    "overlap settings not given: Megatron-Core/NeMo 2024+ defaults assumed on %(gpu)s (tensor-parallel "
    "communication, gradient reduction, parameter gathers and pipeline sends all overlapped with compute, as "
    "in NVIDIA's performance recipes for Hopper and later); set the layout's tp_comm_overlap, "
    "overlap_grad_reduce, overlap_param_gather and overlap_p2p_comm for another stack": gettext_noop(
        "overlap settings not given: Megatron-Core/NeMo 2024+ defaults assumed on %(gpu)s (tensor-parallel "
        "communication, gradient reduction, parameter gathers and pipeline sends all overlapped with "
        "compute, as in NVIDIA's performance recipes for Hopper and later); ask the provider whether its "
        "training settings overlap them"
    ),
    "MoE token dispatcher not given: a deduplicating dispatcher (DeepEP/HybridEP) assumed on %(gpu)s: each "
    "token crosses the network once per destination node and NVLink once per destination GPU; set "
    "moe_dispatcher: alltoall for one copy per routed expert": gettext_noop(
        "MoE token dispatcher not given: a deduplicating dispatcher (DeepEP/HybridEP) assumed on %(gpu)s: "
        "each token crosses the network once per destination node and NVLink once per destination GPU; ask "
        "the provider whether its training settings send one copy per routed expert instead"
    ),
    "dropout not given: none assumed, as SwiGLU models train (Llama 2/3, Mistral, Qwen and DeepSeek publish "
    "attention and hidden dropout 0.0); set workload.dropout to true for a model that uses it": gettext_noop(
        "dropout not given: none assumed, as SwiGLU models train (Llama 2/3, Mistral, Qwen and DeepSeek "
        "publish attention and hidden dropout 0.0); ask the provider, or state that the model trains with "
        "dropout"
    ),
    "dropout not given: dropout layers assumed, as GPT-3-era GELU models train (Megatron-LM's default hidden "
    "and attention dropout 0.1); set workload.dropout to false for a model without them": gettext_noop(
        "dropout not given: dropout layers assumed, as GPT-3-era GELU models train (Megatron-LM's default "
        "hidden and attention dropout 0.1); ask the provider, or state that the model trains without dropout"
    ),
    "%(keys)s left out: they describe multi-head latent attention, and the workload states no qk_head_dim "
    "and v_head_dim": gettext_noop(
        "the latent attention's low ranks left out: they describe multi-head latent attention, and the "
        "workload states no query/key head width and value head width"
    ),
    "ZeRO-3 gathers: one flat buffer per layer at the node's pooled bandwidth (PyTorch FSDP, FSDP2, "
    "Megatron-FSDP), on their own streams with the next layer prefetched, so they hide behind the compute of "
    "their pass except one layer's share; set the layout's zero3_gather to per_tensor for DeepSpeed's 2021 "
    "stage 3": gettext_noop(
        "ZeRO-3 gathers: one flat buffer per layer at the node's pooled bandwidth (PyTorch FSDP, FSDP2, "
        "Megatron-FSDP), on their own streams with the next layer prefetched, so they hide behind the "
        "compute of their pass except one layer's share; ask the provider whether its training settings "
        "gather tensor by tensor (DeepSpeed's 2021 stage 3)"
    ),
    "expert tensor parallelism not given: ETP = 1 assumed with TP=%(tp)s (experts folded over the dense "
    "ranks, as in NVIDIA's Megatron-Core MoE recipes for Hopper and later); set etp in the layout for a "
    "stack that shards experts by TP": gettext_noop(
        "expert tensor parallelism not given: ETP = 1 assumed with TP=%(tp)s (experts folded over the dense "
        "ranks, as in NVIDIA's Megatron-Core MoE recipes for Hopper and later); ask the provider whether its "
        "training settings shard the experts by TP"
    ),
    "expert tensor parallelism: the search forms the default of a layout that does not state etp on %(gpu)s, "
    "ETP = 1 with TP > 1 and EP > 1 (experts folded over the dense ranks, as in NVIDIA's Megatron-Core MoE "
    "recipes for Hopper and later); evaluate a layout with etp for a stack that shards experts by "
    "TP": gettext_noop(
        "expert tensor parallelism: the search forms the default of a layout that does not state ETP on "
        "%(gpu)s, ETP = 1 with TP > 1 and EP > 1 (experts folded over the dense ranks, as in NVIDIA's "
        "Megatron-Core MoE recipes for Hopper and later); ask the provider whether its training settings "
        "shard the experts by TP"
    ),
    "expert tensor parallelism: the search forms the default of a layout that does not state etp on %(gpu)s, "
    "ETP = TP (experts split like the dense layers, as the Megatron-LM and DeepSpeed stacks of the A100 "
    "generation run them), ETP = 1 only where ETP = TP cannot hold the EP; evaluate a layout with etp for a "
    "stack that folds experts (Megatron-Core 0.10+)": gettext_noop(
        "expert tensor parallelism: the search forms the default of a layout that does not state ETP on "
        "%(gpu)s, ETP = TP (experts split like the dense layers, as the Megatron-LM and DeepSpeed stacks of "
        "the A100 generation run them), ETP = 1 only where ETP = TP cannot hold the EP; ask the provider "
        "whether its training settings fold the experts (Megatron-Core 0.10+)"
    ),
    "optimizer-state convention not given: %(w)s + %(g)s + %(o)s bytes per parameter for weights, gradients "
    "and optimizer state assumed on %(gpu)s, gradients kept in bf16 as NVIDIA's recipes for Hopper and later "
    "do (the layout's optimizer '%(convention)s')": gettext_noop(
        "optimizer-state convention not given: %(w)s + %(g)s + %(o)s bytes per parameter for weights, "
        "gradients and optimizer state assumed on %(gpu)s, gradients kept in bf16 as NVIDIA's recipes for "
        "Hopper and later do (%(convention)s)"
    ),
    "optimizer-state convention not given: %(w)s + %(g)s + %(o)s bytes per parameter for weights, gradients "
    "and optimizer state assumed on %(gpu)s, with fp32 main gradients (the layout's optimizer "
    "'%(convention)s')": gettext_noop(
        "optimizer-state convention not given: %(w)s + %(g)s + %(o)s bytes per parameter for weights, "
        "gradients and optimizer state assumed on %(gpu)s, with fp32 main gradients (%(convention)s)"
    ),
}
# The values a page note shows in words where the engine's sentence quotes a code: the optimizer-state
# conventions of sizing/engine/constants.py OPTIMIZER_BYTES (bytes per parameter for weights, gradients and
# optimizer state), each as its comment there describes it.
PAGE_VALUES = {
    "convention": {
        "zero-paper": gettext_noop(
            "the ZeRO paper's convention: fp16 weights and gradients, an fp32 master copy with Adam's two "
            "moments"
        ),
        "megatron": gettext_noop(
            "Megatron's convention: bf16 weights, fp32 main gradients, an fp32 master copy with Adam's two "
            "moments"
        ),
        "megatron-bf16-grads": gettext_noop(
            "Megatron's convention with a bf16 gradient buffer, as NVIDIA's NeMo recipes set it: bf16 "
            "weights and gradients, an fp32 master copy with Adam's two moments"
        ),
        "bf16-adam": gettext_noop(
            "plain Adam over a bf16 model: bf16 weights, gradients and Adam moments, no fp32 master copy"
        ),
        "muon": gettext_noop(
            "the Muon optimizer as Megatron-Core runs it: bf16 weights, fp32 main gradients, an fp32 master "
            "copy with one momentum"
        ),
        "muon-bf16-grads": gettext_noop(
            "the Muon optimizer with a bf16 gradient buffer: bf16 weights and gradients, an fp32 master copy "
            "with one momentum"
        ),
    },
}
# The same conventions by a short name, for the planner's choice and the workload's line on its pages; the
# bytes per parameter are written beside each (OPTIMIZER_BYTES_WORDS) from constants.OPTIMIZER_BYTES.
OPTIMIZER_NAMES = {
    "megatron": gettext_noop("Adam, fp32 gradients (Megatron-LM)"),
    "megatron-bf16-grads": gettext_noop("Adam, bf16 gradients (NVIDIA's recipes)"),
    "zero-paper": gettext_noop("Adam, fp16 weights and gradients (the ZeRO paper)"),
    "bf16-adam": gettext_noop("Adam in bf16, no fp32 master copy"),
    "muon": gettext_noop("Muon, fp32 gradients"),
    "muon-bf16-grads": gettext_noop("Muon, bf16 gradients"),
}
OPTIMIZER_BYTES_WORDS = gettext_noop("%(name)s · %(bytes)s bytes per parameter")


def optimizer_bytes(code: str) -> float:
    """Bytes per parameter a convention keeps for weights, gradients and optimizer state (before ZeRO)."""
    return float(sum(OPTIMIZER_BYTES[code]))


def optimizer_words(code: Any) -> str:
    """A convention by its short name and bytes per parameter, in the page's language: "Muon, bf16
    gradients · 12 bytes per parameter"; "" for none stated (or a code it does not name: a quote's old
    snapshot)."""
    if code not in OPTIMIZER_NAMES:
        return ""
    values = {"name": gettext(OPTIMIZER_NAMES[code]), "bytes": f"{optimizer_bytes(code):g}"}
    return gettext(OPTIMIZER_BYTES_WORDS) % values


_PAGE_WORDS = {**PAGE_REASONS, **SERVICE_PAGE_REASONS, **PAGE_NOTES}


def _value_worded(name: str, value: Any) -> Any:
    """A value of a worded note that is itself a code (PAGE_VALUES) as a message of its words."""
    words = PAGE_VALUES.get(name, {}).get(value) if isinstance(value, str) else None
    return {"msgid": words, "params": {}} if words else value


def page_worded(message: Any) -> Any:
    """A stored message ({"msgid", "params"}, its values too) with every engine reason that names a code
    in the page's words; anything else as it is."""
    if not isinstance(message, dict) or not message.get("msgid"):
        return message
    params = message.get("params")
    worded = {k: page_worded(v) for k, v in params.items()} if isinstance(params, dict) else params
    msgid = message["msgid"]
    if msgid in _PAGE_WORDS and isinstance(worded, dict):
        worded = {k: _value_worded(k, v) for k, v in worded.items()}
    return {**message, "msgid": _PAGE_WORDS.get(msgid, msgid), "params": worded}


def page_worded_list(messages: Any) -> Any:
    """The messages stored beside a list of sentences (an answer's assumptions, its explanation), each in the
    page's words (`page_worded`); anything but a list as it is."""
    return [page_worded(m) for m in messages] if isinstance(messages, list) else messages
