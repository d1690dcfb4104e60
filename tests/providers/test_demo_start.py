"""`load_demo` (what `make demo` runs) prints the address the demo really uses; every page has the favicon."""

from __future__ import annotations

import socket
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from accounts.demo import demo_port_choose
from tests.providers.factories import SMALL_CATALOG

pytestmark = pytest.mark.django_db
REPO = Path(__file__).resolve().parents[2]
SMALL = SMALL_CATALOG


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A port something listens on for the length of the test."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        yield int(listener.getsockname()[1])


def test_a_free_port_is_used_as_asked() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free = int(probe.getsockname()[1])
    assert demo_port_choose("127.0.0.1", free) == free


def test_a_taken_port_is_skipped(taken_port: int) -> None:
    chosen = demo_port_choose("127.0.0.1", taken_port)
    assert chosen > taken_port
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", chosen))  # really free


def test_load_demo_prints_the_port_actually_used(
    taken_port: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    port_file = tmp_path / "port"
    call_command(
        "load_demo",
        "--catalog",
        str(SMALL),
        "--no-accounts",
        "--port",
        str(taken_port),
        "--port-file",
        str(port_file),
    )
    out = capsys.readouterr().out
    used = int(port_file.read_text())
    assert used != taken_port
    assert f"Port {taken_port} is in use on 127.0.0.1; the demo uses port {used}." in out
    assert f"Open http://127.0.0.1:{used}/ and log in at http://127.0.0.1:{used}/accounts/login/" in out
    assert f":{taken_port}/" not in out


def test_a_port_out_of_range_is_named() -> None:
    with pytest.raises(CommandError, match="--port: port must be between 1 and 65535, got 70000"):
        call_command("load_demo", "--catalog", str(SMALL), "--no-accounts", "--port", "70000")


def test_make_demo_starts_the_server_on_the_port_load_demo_chose() -> None:
    makefile = (REPO / "Makefile").read_text()
    assert "load_demo --host $(HOST) --port $(PORT) --port-file .demo-port" in makefile
    assert "runserver $(HOST):$$(cat .demo-port)" in makefile


def test_every_page_links_the_favicon(client: Client) -> None:
    body = client.get("/").content.decode()
    assert '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">' in body
    svg = ET.parse(REPO / "static" / "favicon.svg").getroot()
    assert svg.tag == "{http://www.w3.org/2000/svg}svg" and svg.get("viewBox") == "0 0 32 32"
