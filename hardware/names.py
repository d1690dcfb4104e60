"""GPU names as providers, nvidia-smi and rocm-smi print them -> rows of the GPU table.

`gpu_by_name` is strict (a table key or a known published name) and is what the sizing model accepts;
`gpu_from_text` also reads free text (an offering's "GPU as published", an nvidia-smi model string) and
answers None when the text names no GPU it knows or several different ones.
"""

from __future__ import annotations

import re

from .gpus import GPU, GPUS
from .messages import _

# Published names (nvidia-smi, rocm-smi, provider pages) -> GPU table keys.
ALIASES: dict[str, str] = {
    "NVIDIA A100-SXM4-40GB": "A100-SXM-40GB",
    "NVIDIA A100-SXM4-80GB": "A100-SXM-80GB",
    "A100 80GB": "A100-SXM-80GB",
    "A100": "A100-SXM-80GB",
    "NVIDIA A800-SXM4-80GB": "A800-SXM-80GB",
    "NVIDIA H100 80GB HBM3": "H100-SXM-80GB",
    "NVIDIA H100 SXM": "H100-SXM-80GB",
    "NVIDIA H100 (SXM)": "H100-SXM-80GB",
    "H100": "H100-SXM-80GB",
    "NVIDIA H800": "H800-SXM-80GB",
    "NVIDIA H200": "H200-SXM-141GB",
    "NVIDIA H200 141GB HBM3e": "H200-SXM-141GB",
    "H200": "H200-SXM-141GB",
    "NVIDIA B200": "B200-180GB",
    "B200": "B200-180GB",
    "NVIDIA B300": "B300-288GB",
    "AMD Instinct MI300X": "MI300X-192GB",
    "MI300X": "MI300X-192GB",
    "AMD Instinct MI325X": "MI325X-256GB",
    "AMD Instinct MI355X": "MI355X-288GB",
    "NVIDIA GB200": "GB200-186GB",
    "NVIDIA GB300": "GB300-288GB",
    "NVIDIA H100 PCIe": "H100-PCIe-80GB",
    "NVIDIA H20": "H20-96GB",
    "Huawei Ascend 910B": "Ascend-910B-64GB",
    "Huawei Ascend 910C": "Ascend-910C-128GB",
}

# Model tokens in free text, each with the row it names. Word boundaries keep H20 apart from H200 and
# B200 apart from GB200.
_TOKENS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(rf"\b{token}\b"), key)
    for token, key in (
        ("GB300", "GB300-288GB"),
        ("GB200", "GB200-186GB"),
        ("B300", "B300-288GB"),
        ("B200", "B200-180GB"),
        ("H200", "H200-SXM-141GB"),
        ("H800", "H800-SXM-80GB"),
        ("H100", "H100-SXM-80GB"),
        ("H20", "H20-96GB"),
        ("A800", "A800-SXM-80GB"),
        ("A100", "A100-SXM-80GB"),
        ("MI355X", "MI355X-288GB"),
        ("MI325X", "MI325X-256GB"),
        ("MI300X", "MI300X-192GB"),
        ("910C", "Ascend-910C-128GB"),
        ("910B", "Ascend-910B-64GB"),
    )
)
# PCIe cards: only the H100 has a PCIe row; an NVL card (H100 NVL) is a PCIe card with a bridge.
_PCIE_ROWS = {"H100-SXM-80GB": "H100-PCIe-80GB"}


def gpu_by_name(name: object) -> GPU | None:
    """The row for a table key or a known published name, else None."""
    if not isinstance(name, str) or not name:
        return None
    key = name if name in GPUS else ALIASES.get(name)
    return GPUS[key] if key else None


def gpu_shown(key: object) -> str | None:
    """A GPU table key as a page, a quote or an answer writes it: the GPU's name ("NVIDIA H100 SXM5 80GB"),
    never the key; None for a value that is no key (the caller shows it as it is)."""
    return GPUS[key].name if isinstance(key, str) and key in GPUS else None


def _is_pcie_card(text: str) -> bool:
    return "PCIE" in text or "NVL" in text.replace("NVLINK", "").replace("NVL72", "").replace("NVL36", "")


def gpus_named_in(text: object) -> list[GPU]:
    """Every GPU model free text names, in the order it names them ("NVIDIA H100 SXM / B200" -> H100, B200).
    PCIe and 40GB variants are not told apart here: use gpu_from_text for one GPU."""
    if not isinstance(text, str):
        return []
    upper = text.upper()
    found = sorted((match.start(), key) for pattern, key in _TOKENS if (match := pattern.search(upper)))
    return [GPUS[key] for _, key in found]


def gpu_from_text(text: object) -> GPU | None:
    """The row free text names (a key, a published name, or one model token), or None when it names none
    or several different GPUs ("H100 SXM / B200")."""
    exact = gpu_by_name(text)
    if exact is not None or not isinstance(text, str):
        return exact
    upper = text.upper()
    keys = {key for pattern, key in _TOKENS if pattern.search(upper)}
    if len(keys) != 1:
        return None
    (key,) = keys
    if _is_pcie_card(upper):
        pcie = _PCIE_ROWS.get(key)
        return GPUS[pcie] if pcie else None
    if key == "A100-SXM-80GB" and "40GB" in upper:
        key = "A100-SXM-40GB"
    return GPUS[key]


# The claim of a verdict on the GPU model a file shows (nvidia-smi's names, a collective log's Rank lines)
GPU_MODEL_CLAIM = _("GPU model")


def other_gpu_names(claimed: object, names: list[str]) -> list[str]:
    """`names` (GPU names a log prints) when each names a row of the table and one is not the `claimed` GPU's
    row (a key or name: a log of another cluster, or filed under the wrong offering); [] otherwise, also when
    a name is one the table does not know (a VM's or a driver's odd name proves nothing)."""
    own = gpu_from_text(claimed)
    seen = [gpu_from_text(name) for name in names]
    if own is None or not seen or any(gpu is None for gpu in seen):
        return []
    return list(names) if any(gpu is not None and gpu.key != own.key for gpu in seen) else []
