"""The engine's refusals that name its codes (and the planner service's), in a buyer's words on a page.

Some reasons the engine gives (`InputError`, sizing/engine) name the keys and products its input is written
in: a fact's key (`gpus_per_node`), the layout's degrees multiplied (`tp*pp*cp`), a setting's key
(`virtual_stages`). The CLI and the API keep that English exactly (outside tools read it); a page shows the
same reason worded with the names a buyer knows, by its message id (`page_worded`), in every language.
Stored reasons are worded when they are shown, so results stored before this module read the same.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_noop

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
_PAGE_WORDS = {**PAGE_REASONS, **SERVICE_PAGE_REASONS}


def page_worded(message: Any) -> Any:
    """A stored message ({"msgid", "params"}, its values too) with every engine reason that names a code
    in the page's words; anything else as it is."""
    if not isinstance(message, dict) or not message.get("msgid"):
        return message
    params = message.get("params")
    worded = {k: page_worded(v) for k, v in params.items()} if isinstance(params, dict) else params
    msgid = message["msgid"]
    return {**message, "msgid": _PAGE_WORDS.get(msgid, msgid), "params": worded}
