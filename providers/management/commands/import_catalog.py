from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from providers.catalog import CatalogError, catalog_import, read_catalog_file
from providers.services import catalog_imported_announce


class Command(BaseCommand):
    help = (
        "Import a catalog file (YAML or CSV, docs/CATALOG_FORMAT.md). "
        "All-or-nothing; --dry-run only validates."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file")
        parser.add_argument("--dry-run", action="store_true", help="validate and report, write nothing")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            data = read_catalog_file(options["file"])
            report = catalog_import(data=data, dry_run=options["dry_run"])
        except CatalogError as exc:
            raise CommandError(exc.report.summary(), returncode=2) from exc
        self.stdout.write(report.summary())
        if not options["dry_run"]:
            for sentence in catalog_imported_announce(data=data):
                self.stdout.write(sentence)
