"""GPU names a file prints that are not whole GPUs of the hardware table: NVIDIA vGPU profiles (a share of a
GPU) and names stating a memory size no row of their model has (`NVIDIA A100-SXM-64GB`). Both are kept as
printed (`gpu_models`, a run's `gpu_names`) and listed here, with a warning; `hardware.gpu_from_text` knows
neither, so the GPU-model check does not pass them as the claimed GPU."""

from __future__ import annotations

from collections.abc import Iterable

from hardware import off_table_memory_gb, vgpu_profile
from hardware.messages import _, listed

from .result import ParseResult


def printed_gpu_names(result: ParseResult) -> list[str]:
    """The GPU names a parsed file prints: nvidia-smi's models (table, `-L`, `-q`, CSV, `nvlink -s`), the
    Rank lines of every nccl-tests / rccl-tests run."""
    if result.kind in ("nvidia-smi", "nvidia-smi-nvlink"):
        return list(result.summary.get("gpu_models") or [])
    if result.kind in ("nccl-tests", "rccl-tests"):
        return [name for run in result.summary.get("runs") or [] for name in run.get("gpu_names") or []]
    return []


def note_gpu_names(result: ParseResult, names: Iterable[str]) -> None:
    """Add `vgpu_profiles` and `gpu_names_not_in_table` to the summary (only when there are any), warned."""
    distinct = [name for name in dict.fromkeys(names) if isinstance(name, str)]
    profiles = [profile for name in distinct if (profile := vgpu_profile(name)) is not None]
    if profiles:
        result.summary["vgpu_profiles"] = profiles
        result.warnings.append(
            _(
                "the GPUs are NVIDIA vGPU profiles (%(names)s): virtual GPUs, each a share of one physical "
                "GPU's memory and compute, not whole GPUs; they do not count as the GPU model",
                names=listed(p["name"] for p in profiles),
            )
        )
    sized = [{"name": name, "stated_memory_gb": gb} for name in distinct if (gb := off_table_memory_gb(name))]
    if sized:
        result.summary["gpu_names_not_in_table"] = sized
        result.warnings.append(
            _(
                "%(names)s: a memory size the GPU table has no row of that model for; reported as printed, "
                "not taken for a GPU of another memory size",
                names=listed(f"{x['name']} ({x['stated_memory_gb']} GB)" for x in sized),
            )
        )
