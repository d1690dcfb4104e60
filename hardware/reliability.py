"""How often GPUs in a training cluster fail: the default failure rate both the sizing model and the
pitfall rules use when an offering publishes none (cal §4 = ../shared/data/calibration.md section 4)."""

from __future__ import annotations

# Llama 3 (arXiv 2407.21783 section 3.3.4, Table 5): 419 unexpected interruptions in 54 days on 16,384 H100.
LLAMA3_UNEXPECTED_INTERRUPTIONS = 419
LLAMA3_DAYS = 54
LLAMA3_GPUS = 16384
# = 1.97e-5 unexpected interruptions per GPU-hour (cal §4); public reports span ~2e-5 to 1.2e-4 (cal §6).
DEFAULT_FAILURE_RATE_PER_GPU_HOUR = LLAMA3_UNEXPECTED_INTERRUPTIONS / (LLAMA3_DAYS * 24 * LLAMA3_GPUS)
