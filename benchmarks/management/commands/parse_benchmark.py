"""`manage.py parse_benchmark FILE [--json]` (DESIGN section 7): a thin wrapper around the pure parsers."""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Recognise and parse a benchmark or evidence file; exit 0 when recognised, 2 when not."

    def run_from_argv(self, argv: list[str]) -> None:
        from benchmarks.parsers.cli import main

        sys.exit(main(argv[2:]))

    def handle(self, *args: Any, **options: Any) -> None:  # pragma: no cover - run_from_argv handles it
        from benchmarks.parsers.cli import main

        sys.exit(main(list(args)))
