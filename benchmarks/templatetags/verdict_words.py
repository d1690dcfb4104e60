"""`{{ code|verdict_word }}`: a verdict (pass, warn, fail, cannot-measure, incomplete) or a finding's severity
shown as a word in the page's language, never as its code; `{{ upload.kind|kind_name }}`: what a file was
recognised as, by the tool's own name or the command that wrote it; `{{ v.lines|line_text }}`: a verdict's
cited lines."""

from __future__ import annotations

from django import template
from django.utils.translation import gettext, gettext_noop

register = template.Library()

# English message ids: the same word on an English page as the code it stands for, except where the code is
# not a word ("cannot-measure").
WORDS = {
    "pass": gettext_noop("pass"),
    "warn": gettext_noop("warn"),
    "fail": gettext_noop("fail"),
    "cannot-measure": gettext_noop("cannot be measured"),
    "incomplete": gettext_noop("incomplete"),
    "critical": gettext_noop("critical"),
    "warning": gettext_noop("warning"),
    "info": gettext_noop("info"),
}

# What each parser kind (benchmarks.parsers.KINDS) is called on a page: the tools' own names stay as they are
# (nccl-tests, perftest, ibstat, lspci, ...); the training logs are named by their framework and the
# multi-word commands as typed. The API and the CLI keep the kind codes.
KIND_NAMES = {
    "megatron": gettext_noop("Megatron-LM training log"),
    "deepspeed": gettext_noop("DeepSpeed training log"),
    "torchtitan": gettext_noop("torchtitan training log"),
    "dcgmi-diag": "dcgmi diag",
    "dcgmi-nvlink": "dcgmi nvlink",
    "nvidia-smi-topo": "nvidia-smi topo -m",
    "nvidia-smi-nvlink": "nvidia-smi nvlink",
    "rdma-link": "rdma link",
}


@register.filter
def kind_name(kind: object) -> str:
    """A recognised file's kind by its name in the page's language; a kind without one as it is."""
    name = KIND_NAMES.get(str(kind))
    return gettext(name) if name else str(kind or "")


@register.filter
def verdict_word(code: object) -> str:
    """The word for a verdict or severity code in the page's language; an unknown code as it is."""
    word = WORDS.get(str(code))
    return gettext(word) if word else str(code or "")


@register.filter
def line_text(lines: object) -> str:
    """A verdict's cited lines for a page: consecutive lines as a range ("2–5"), two lines apart as the span a
    run's first and last line give ("3–40"), more as the page's list ("7, 12, 19"; "7、12、19" in Chinese);
    no line as ""."""
    numbers = sorted({n for n in lines if isinstance(n, int) and n > 0}) if isinstance(lines, list) else []
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    if len(runs) == 2 and runs[0][0] == runs[0][1] and runs[1][0] == runs[1][1]:
        runs = [[runs[0][0], runs[1][1]]]
    return gettext(", ").join(str(a) if a == b else f"{a}–{b}" for a, b in runs)
