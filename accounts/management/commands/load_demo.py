from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.demo import demo_accounts_create
from providers.catalog import CatalogError, catalog_import, read_catalog_file
from providers.services import catalog_imported_announce, gpu_table_sync

DEMO_CATALOG = Path(__file__).resolve().parents[3] / "providers" / "demo" / "catalog.yaml"


class Command(BaseCommand):
    help = "Load the demo catalog and create the demo accounts (demo mode only, never in production)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--catalog", default=str(DEMO_CATALOG))
        parser.add_argument("--no-accounts", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        gpu_table_sync()
        try:
            data = read_catalog_file(options["catalog"])
            report = catalog_import(data=data)
        except CatalogError as exc:
            raise CommandError(exc.report.summary(), returncode=2) from exc
        self.stdout.write(report.summary())
        for sentence in catalog_imported_announce(data=data):
            self.stdout.write(sentence)
        if options["no_accounts"]:
            return
        accounts = demo_accounts_create()
        self.stdout.write("")
        self.stdout.write("Demo accounts (demo mode only; the password is the user name):")
        for username, description in accounts:
            self.stdout.write(f"  {username:<14} password {username:<14} {description}")
        self.stdout.write("Open http://127.0.0.1:8000/ and log in at http://127.0.0.1:8000/accounts/login/")
