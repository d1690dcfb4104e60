from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from checks.services import findings_refresh_catalog


class Command(BaseCommand):
    help = "Re-run the pitfall checks for every offering (or the given slugs) in this process."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slugs", nargs="*", help="offering slugs; all offerings when none")

    def handle(self, *args: Any, **options: Any) -> None:
        count = findings_refresh_catalog(slugs=options["slugs"] or None)
        self.stdout.write(f"Pitfall checks run for {count} offerings.")
