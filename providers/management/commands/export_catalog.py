from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from providers.catalog import catalog_export_yaml


class Command(BaseCommand):
    help = "Export the whole catalog as YAML (the import format); to stdout or --output FILE."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--output", "-o", default=None)

    def handle(self, *args: Any, **options: Any) -> None:
        text = catalog_export_yaml()
        if options["output"]:
            Path(options["output"]).write_text(text, encoding="utf-8")
            self.stdout.write(f"Wrote {options['output']}")
        else:
            self.stdout.write(text, ending="")
