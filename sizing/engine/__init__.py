"""ClusterScout sizing engine: a pure library (no Django, no Celery).

evaluate(workload, offering_facts, layout) -> dict and search(workload, offering_facts, ...) -> dict
return the DESIGN section 5 output dicts; see docs/MODEL.md.
"""

from __future__ import annotations

from .api import evaluate
from .errors import InputError
from .layout import Layout
from .search import search
from .workload import PRESETS, Workload, workload_from_dict, workload_preset

__all__ = [
    "InputError",
    "Layout",
    "PRESETS",
    "Workload",
    "evaluate",
    "search",
    "workload_from_dict",
    "workload_preset",
]
