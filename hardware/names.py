"""GPU names as providers, nvidia-smi and rocm-smi print them -> rows of the GPU table.

`gpu_by_name` is strict (a table key or a known published name) and is what the sizing model accepts;
`gpu_from_text` also reads free text (an offering's "GPU as published", an nvidia-smi model string) and
answers None when the text names no GPU it knows or several different ones.
"""

from __future__ import annotations

import re
from typing import Any

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
# A memory size a name states right after its model token, within the name or just after a bracket or slash
# that opens it (`NVIDIA A100-SXM-64GB`, `H100 NVL 94GB`, `MI355X 288 GB`, `A100 (40GB)`, `A100/40GB`), not
# across a separator that starts another part of the text. `Gb` (bits: `8 x 400 Gb`) is no memory size.
_STATED_GB_RE = re.compile(r"[^,;/|()]{0,24}?[\s(/]*(?<![\d.])(\d{2,3})\s?(?:GB|gb)\b")
# A size after the comma that ends the name (`8x A100, 40GB`; `NVIDIA H100, 512GB RAM`): the name's own only
# when the model has a row of that size, so it picks a variant and never makes the name one the table lacks.
_LISTED_GB_RE = re.compile(r"[^,;/|()]{0,24}?\s*,\s*(?<![\d.])(\d{2,3})\s?(?:GB|gb)\b")
# Sizes the same GPU is also published with, beside its row's datasheet `hbm_gb` (../shared/data/provider-
# catalog-addendum.yaml `reference_gpu_memory`: B200 "180GB" and OCI's "192 GB", GB200 "186 GB" and 192,
# B300 "270GB" beside 288, GB300 "280 GB" and "288 GB").
_ALSO_PUBLISHED_GB: dict[str, tuple[float, ...]] = {
    "B200-180GB": (192,),
    "GB200-186GB": (192,),
    "B300-288GB": (270,),
    "GB300-288GB": (280,),
}
# An NVIDIA vGPU profile (a virtual GPU: a time-sliced or MIG-backed share of one board), as nvidia-smi and
# CUDA name it inside the VM: `<board>-<frame buffer GB><series>` (`GRID A100-40C`, `NVIDIA H100XM-80C`,
# `GRID A100D-80C`) or, MIG-backed, `<board>-<slices>-<frame buffer GB><series>` (`NVIDIA A100-4-20C`,
# `NVIDIA H100L-1-12C`); series Q, C, B or A (NVIDIA Virtual GPU Software User Guide, "Virtual GPU Types";
# drivers before vGPU 13 print `GRID`, later ones `NVIDIA`).
VGPU_PROFILE_RE = re.compile(
    r"(?<![\w-])(?:(?:GRID|NVIDIA)\s++)?([A-Z]{1,4}\d{1,5}[A-Z]{0,3})-(?:(\d{1,2})-)?(\d{1,3})([QCBA])\s*+$"
)


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


def vgpu_profile(name: object) -> dict[str, Any] | None:
    """`{name, board, frame_buffer_gb, series, mig_slices}` when `name` is an NVIDIA vGPU profile (a virtual
    GPU, a share of one board: `GRID A100-40C`, `NVIDIA A100-4-20C`), else None."""
    if not isinstance(name, str):
        return None
    found = VGPU_PROFILE_RE.search(name.strip())
    if found is None:
        return None
    slices = found.group(2)
    return {
        "name": name.strip(),
        "board": found.group(1),
        "frame_buffer_gb": int(found.group(3)),
        "series": found.group(4),
        "mig_slices": int(slices) if slices else None,
    }


def _published_gb(key: str) -> tuple[float, ...]:
    return (GPUS[key].hbm_gb, *_ALSO_PUBLISHED_GB.get(key, ()))


def stated_memory_gb(text: object, pattern: re.Pattern[str] = _STATED_GB_RE) -> int | None:
    """The memory size a GPU name states right after its model token (`NVIDIA A100-SXM-64GB` -> 64), else
    None; `pattern`: how it may follow the token (_LISTED_GB_RE: after a comma)."""
    if not isinstance(text, str):
        return None
    upper = text.upper()
    ends = sorted(match.end() for regex, _key in _TOKENS if (match := regex.search(upper)))
    found = pattern.match(text, ends[0]) if ends else None
    return int(found.group(1)) if found else None


def off_table_memory_gb(name: object) -> int | None:
    """The memory `name` states when it names one GPU model of the table but no row of that model has that
    memory (`NVIDIA A100-SXM-64GB` -> 64: a real A100 the table does not hold), else None."""
    stated = stated_memory_gb(name)
    if stated is None or not isinstance(name, str) or vgpu_profile(name) is not None or gpu_by_name(name):
        return None
    key = _model_key(name)
    return stated if key is not None and _row_of_size(key, stated) is None else None


def _row_of_size(key: str, stated: int | None) -> str | None:
    """`key`, or the row of the same model and form factor with the memory `stated` (an A100 40GB), or None
    when the table has no row of that model with that memory (an A100 64GB is no A100 80GB)."""
    if stated is None or stated in _published_gb(key):
        return key
    model, pcie = key.split("-")[0], "PCIe" in key
    same = [
        k for k in GPUS if k.split("-")[0] == model and ("PCIe" in k) == pcie and stated in _published_gb(k)
    ]
    return same[0] if same else None


def _model_key(text: str) -> str | None:
    """The row of the one model token free text names, by its form factor (PCIe/NVL), memory not looked at."""
    upper = text.upper()
    keys = {key for pattern, key in _TOKENS if pattern.search(upper)}
    if len(keys) != 1:
        return None
    (key,) = keys
    return _PCIE_ROWS.get(key) if _is_pcie_card(upper) else key


def gpu_from_text(text: object) -> GPU | None:
    """The row free text names (a key, a published name, or one model token), or None when it names none
    or several different GPUs ("H100 SXM / B200"), a vGPU profile (a share of a GPU, `GRID A100-40C`), or a
    memory size no row of that model has (`NVIDIA A100-SXM-64GB`)."""
    exact = gpu_by_name(text)
    if exact is not None or not isinstance(text, str) or vgpu_profile(text) is not None:
        return exact
    key = _model_key(text)
    if key is None:
        return None
    stated = stated_memory_gb(text)
    if stated is None:  # a size after the name's comma only picks a row the model has
        return GPUS[_row_of_size(key, stated_memory_gb(text, _LISTED_GB_RE)) or key]
    sized = _row_of_size(key, stated)
    return GPUS[sized] if sized else None


# The claim of a verdict on the GPU model a file shows (nvidia-smi's names, a collective log's Rank lines)
GPU_MODEL_CLAIM = _("GPU model")


def _named_model(name: str) -> str | None:
    """The row a log's GPU name stands for when judging whether it is another GPU: its own row, or, for a
    memory size the table lacks (`NVIDIA A100-SXM-64GB`, `NVIDIA A800-SXM4-40GB`), the row of the same model
    and form factor (its links are that model's); None for a name the table does not know or a vGPU."""
    gpu = gpu_from_text(name)
    if gpu is not None:
        return gpu.key
    return _model_key(name) if off_table_memory_gb(name) is not None else None


def other_gpu_names(claimed: object, names: list[str]) -> list[str]:
    """`names` (GPU names a log prints) when each names a model of the table and one is not the `claimed`
    GPU's (a key or name: a log of another cluster, or filed under the wrong offering); [] otherwise, also
    when a name is one the table does not know (a VM's or a driver's odd name proves nothing). A memory size
    the table lacks is no other GPU by itself: an A100 64GB under an A100 80GB offering has its links."""
    own = gpu_from_text(claimed)
    seen = [_named_model(name) for name in names]
    if own is None or not seen or any(key is None for key in seen):
        return []
    return list(names) if any(key != own.key for key in seen) else []
