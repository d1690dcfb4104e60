from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.demo import demo_accounts_create, demo_port_choose
from providers.catalog import CatalogError, catalog_import, read_catalog_file
from providers.services import catalog_imported_announce, gpu_table_sync

DEMO_CATALOG = Path(__file__).resolve().parents[3] / "providers" / "demo" / "catalog.yaml"


class Command(BaseCommand):
    help = "Load the demo catalog and create the demo accounts (demo mode only, never in production)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--catalog", default=str(DEMO_CATALOG))
        parser.add_argument("--no-accounts", action="store_true")
        parser.add_argument("--host", default="127.0.0.1", help="where the demo server will listen")
        parser.add_argument(
            "--port", type=int, default=8000, help="the port to try first; the next free one is used if taken"
        )
        parser.add_argument(
            "--port-file", help="write the chosen port here (make demo starts the server on it)"
        )

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
        if not options["no_accounts"]:
            accounts = demo_accounts_create()
            self.stdout.write("")
            self.stdout.write("Demo accounts (demo mode only; the password is the user name):")
            for username, description in accounts:
                self.stdout.write(f"  {username:<14} password {username:<14} {description}")
        self._announce_address(options)

    def _announce_address(self, options: dict[str, Any]) -> None:
        host, wanted = options["host"], options["port"]
        try:
            port = demo_port_choose(host, wanted)
        except (OSError, ValueError) as exc:
            raise CommandError(f"--port: {exc}", returncode=2) from exc
        if options.get("port_file"):
            Path(options["port_file"]).write_text(f"{port}\n", encoding="utf-8")
        if port != wanted:
            self.stdout.write(f"Port {wanted} is in use on {host}; the demo uses port {port}.")
        shown = f"[{host}]" if ":" in host else host
        self.stdout.write(f"Open http://{shown}:{port}/ and log in at http://{shown}:{port}/accounts/login/")
