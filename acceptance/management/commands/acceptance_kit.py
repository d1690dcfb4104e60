"""`manage.py acceptance_kit OFFERING --nodes N --scheduler slurm|kubernetes [-o FILE]`: write the kit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from acceptance import kit
from providers.models import Offering


class Command(BaseCommand):
    help = "Write the acceptance kit (tar.gz of Slurm scripts or Kubernetes manifests) for an offering."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("offering", help="offering slug")
        parser.add_argument("--nodes", type=int, required=True, help="nodes of the trial")
        parser.add_argument("--scheduler", choices=kit.SCHEDULERS, default="slurm")
        parser.add_argument("--stability-hours", type=int, default=0, help="hours of the stability loop")
        parser.add_argument("-o", "--output", help="archive path (default: <kit name>.tar.gz here)")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            offering = Offering.objects.select_related("provider", "gpu").get(slug=options["offering"])
        except Offering.DoesNotExist as exc:
            raise CommandError(f"offering: no offering with slug “{options['offering']}”.") from exc
        facts = offering.facts()
        try:
            data = kit.build_kit(facts, options["nodes"], options["scheduler"], options["stability_hours"])
        except kit.KitError as exc:
            raise CommandError(f"{exc.field}: {exc.message}") from exc
        path = Path(
            options["output"] or f"{kit.kit_name(facts, options['nodes'], options['scheduler'])}.tar.gz"
        )
        path.write_bytes(data)
        self.stdout.write(f"Wrote {path} ({len(data)} bytes).")
