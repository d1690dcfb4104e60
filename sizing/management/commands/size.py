"""`manage.py size`: the CLI contract of DESIGN section 5, a thin wrapper around sizing.engine.cli."""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand


def resolve_offering(slug: str) -> dict[str, Any]:
    """An offering slug from the catalog -> the facts dict (KeyError when there is none)."""
    from django.db import DatabaseError

    from providers.models import Offering
    from providers.selectors import offering_get

    try:
        return offering_get(slug=slug).facts()
    except Offering.DoesNotExist as exc:
        if slug != slug.strip().lower():  # slugs are lowercase: `Azure-ND-H100-v5` is azure-nd-h100-v5
            return resolve_offering(slug.strip().lower())
        raise KeyError(slug) from exc
    except DatabaseError as exc:  # no catalog yet: a one-line reason, not a traceback
        raise KeyError(f"{slug} (the catalog database is not ready: run `make demo`)") from exc


class Command(BaseCommand):
    help = "Size a training workload on an offering (DESIGN section 5 CLI contract)."

    def run_from_argv(self, argv: list[str]) -> None:
        # The engine owns the argument parsing and the exit codes (0 answered, 2 bad input).
        import django

        django.setup()
        from sizing.engine.cli import main

        sys.exit(main(argv[2:], resolve_offering=resolve_offering))

    def handle(self, *args: Any, **options: Any) -> None:  # pragma: no cover - run_from_argv handles it
        from sizing.engine.cli import main

        sys.exit(main(list(args), resolve_offering=resolve_offering))
