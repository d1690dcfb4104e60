"""The presets by the names a buyer knows them by; pure (Django's gettext_noop only marks the strings), so the
quote's display code reads it too."""

from __future__ import annotations

from django.utils.translation import gettext, gettext_noop

# the form, the compare picker, a workload's default name and the quote's workload line
PRESET_LABELS = {
    "13b": gettext_noop("13B dense (Llama 2 13B shape)"),
    "30b": gettext_noop("30B dense (LLaMA 33B shape)"),
    "llama3-70b": "Llama 3 70B",
    "gpt3-175b": "GPT-3 175B",
    "llama3-405b": "Llama 3 405B",
    "dense-1t": gettext_noop("1T dense (Megatron)"),
    "deepseek-v3-671b": gettext_noop("DeepSeek-V3 671B MoE (37B active)"),
}


def preset_label(name: str) -> str:
    """A preset by its name in the active language ("Llama 3 70B"), never its code; an unknown one as is."""
    return gettext(PRESET_LABELS.get(name, name))


def preset_names() -> str:
    """Every preset by its name in the active language, listed as the language lists ("、" in Chinese)."""
    return gettext(", ").join(preset_label(name) for name in PRESET_LABELS)


def preset_by_name(value: str) -> str | None:
    """The preset a buyer named by its name, in English or in the active language, whatever the case ("llama 3
    70b" -> "llama3-70b"); None for no preset of that name."""
    wanted = value.strip().casefold()
    for code, label in PRESET_LABELS.items():
        if wanted in (label.casefold(), gettext(label).casefold()):
            return code
    return None
