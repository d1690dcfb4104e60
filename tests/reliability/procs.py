"""Entry points the fault tests run as subprocesses against the private stack (never imported by tests).

    python -m tests.reliability.procs worker <celery worker args>   a worker, optionally slowed down
    python -m tests.reliability.procs seed                          GPU table, demo catalog, a buyer
    python -m tests.reliability.procs sweep <stalled_s>             both sweepers, once, with no grace

RELIABILITY_SLOW_PARSE_S / RELIABILITY_SLOW_SIZING_OFFERING_S / RELIABILITY_SLOW_PDF_S stretch a parse / the
sizing of one offering / a PDF render
so that a SIGKILL lands in the middle of a task instead of between two; RELIABILITY_FAIL_SIZING_SLUG makes
the sizing of that offering raise (a chunk that fails).
"""

from __future__ import annotations

import os
import sys
import time
from datetime import timedelta
from typing import Any

import django


def _slow_down() -> None:
    slow_parse = float(os.environ.get("RELIABILITY_SLOW_PARSE_S", "0"))
    slow_sizing = float(os.environ.get("RELIABILITY_SLOW_SIZING_OFFERING_S", "0"))
    slow_pdf = float(os.environ.get("RELIABILITY_SLOW_PDF_S", "0"))
    if slow_parse:
        import benchmarks.parsers as parsers

        # the worker streams the stored file through parse_file (benchmarks.services.upload_parse)
        real_parse_file = parsers.parse_file

        def parse_file(*args: Any, **kwargs: Any) -> Any:
            time.sleep(slow_parse)
            return real_parse_file(*args, **kwargs)

        parsers.parse_file = parse_file  # type: ignore[assignment]
    fail_slug = os.environ.get("RELIABILITY_FAIL_SIZING_SLUG", "")
    if slow_sizing or fail_slug:
        from sizing import services

        real_size = services.size_offering_with_findings

        def size_offering_with_findings(**kwargs: Any) -> Any:
            time.sleep(slow_sizing)
            if fail_slug and kwargs["facts"]["slug"] == fail_slug:
                raise ZeroDivisionError("injected by RELIABILITY_FAIL_SIZING_SLUG")
            return real_size(**kwargs)

        services.size_offering_with_findings = size_offering_with_findings  # type: ignore[assignment]
    if slow_pdf:
        from quotes import pdf

        real_render = pdf.render_quote_pdf

        def render_quote_pdf(*args: Any, **kwargs: Any) -> Any:
            time.sleep(slow_pdf)
            return real_render(*args, **kwargs)

        pdf.render_quote_pdf = render_quote_pdf  # type: ignore[assignment]


def worker(argv: list[str]) -> None:
    django.setup()
    _slow_down()
    from portal.celery import app

    app.worker_main(["worker", *argv])


def seed() -> None:
    django.setup()
    from pathlib import Path

    from rest_framework.authtoken.models import Token

    from accounts.models import User
    from providers.catalog import catalog_import, read_catalog_file
    from providers.services import gpu_table_sync

    repo = Path(__file__).resolve().parents[2]
    gpu_table_sync()
    catalog_import(data=read_catalog_file(repo / "providers" / "demo" / "catalog.yaml"))
    user = User.objects.create_user(username="buyer", password="reliability-pw")
    print(Token.objects.create(user=user).key)


def sweep(stalled_s: float) -> None:
    django.setup()
    from benchmarks.services import upload_sweep_stored
    from sizing.services import sweep_queued_runs

    uploads = upload_sweep_stored(older_than=timedelta(0))
    runs = sweep_queued_runs(queued_older_than_s=0, stalled_older_than_s=stalled_s)
    print(f"uploads={uploads} runs={runs}")


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    if command == "worker":
        worker(args)
    elif command == "seed":
        seed()
    elif command == "sweep":
        sweep(float(args[0]) if args else 0.0)
    else:
        raise SystemExit(f"unknown command {command}")
