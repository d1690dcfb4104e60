"""Pitfall ecosystem-lock-in: a stack the model code cannot leave cheaply (DESIGN section 6)."""

from __future__ import annotations

from checks.rules.base import Finding, Signal, _, claim, merge
from checks.rules.context import Context
from checks.severity import Severity


def rule_ecosystem_lock_in(ctx: Context) -> list[Finding]:
    """Fires on a non-CUDA accelerator stack, a proprietary fabric plugin, or no standard containers."""
    return merge("ecosystem-lock-in", _stack_signals(ctx.offering) + _portability_signals(ctx.offering))


def _stack_signals(offering: dict) -> list[Signal]:
    """The accelerator stack: CANN, ROCm or another non-CUDA stack, or none published."""
    stack = offering.get("accelerator_stack")
    if stack == "cann":
        # Critical: Ascend needs torch_npu/MindSpeed forks and HCCL instead of CUDA/NCCL, no public hccl_test
        # baseline exists to check claims against (benchlogs SOURCES.md), and few providers rent the hardware,
        # so both the port and the exit are expensive.
        return [
            Signal(
                Severity.CRITICAL,
                _("Huawei Ascend / CANN stack: CUDA code does not run"),
                [claim(offering, "accelerator_stack"), claim(offering, "gpu_label")],
                _(
                    "Budget the port (torch_npu, MindSpeed, HCCL) and a trial with your own model before "
                    "signing; ask for hccl_test results at the job's scale."
                ),
                {
                    "text": _(
                        "Porting and re-validating a training stack takes engineer-months; exit is narrow."
                    )
                },
            )
        ]
    if stack in ("rocm", "other"):
        return [
            Signal(
                Severity.WARNING,
                _("Non-CUDA accelerator stack (%(stack)s)", stack="ROCm" if stack == "rocm" else _("other")),
                [claim(offering, "accelerator_stack"), claim(offering, "gpu")],
                _(
                    "Check that your framework, kernels (attention, fused optimizers) and collective library "
                    "run on it; ask for rccl-tests and a training-log sample on the job's model family."
                ),
            )
        ]
    if stack is None:
        return [
            Signal(
                Severity.INFO,
                _("Accelerator stack not published"),
                [claim(offering, "accelerator_stack")],
                _("Ask which driver, CUDA/ROCm and NCCL/RCCL versions the nodes run."),
            )
        ]
    return []


def _portability_signals(offering: dict) -> list[Signal]:
    """What ties the launch to the provider: its NCCL plugin, its images, its scheduler."""
    signals: list[Signal] = []
    if offering.get("proprietary_fabric_plugin"):
        signals.append(
            Signal(
                Severity.INFO,
                _("NCCL needs the provider's fabric plugin"),
                [claim(offering, "proprietary_fabric_plugin"), claim(offering, "fabric_label")],
                _(
                    "Pin the plugin version (aws-ofi-nccl, TCPX, ...) in your container and test it "
                    "before the term."
                ),
            )
        )
    if offering.get("standard_containers") is False:
        signals.append(
            Signal(
                Severity.WARNING,
                _("Standard CUDA/NCCL containers do not run as is"),
                [claim(offering, "standard_containers")],
                _(
                    "Ask which images are required and whether your own container runs unmodified; "
                    "avoid being tied to a vendor image for the whole term."
                ),
            )
        )
    schedulers = offering.get("schedulers") or []
    if schedulers and set(schedulers) <= {"proprietary"}:
        signals.append(
            Signal(
                Severity.INFO,
                _("Only a proprietary scheduler"),
                [claim(offering, "schedulers")],
                _("Ask for Slurm or Kubernetes access so launch scripts stay portable."),
            )
        )
    return signals
