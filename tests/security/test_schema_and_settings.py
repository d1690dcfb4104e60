"""The OpenAPI schema validates without a warning; production settings pass `check --deploy` cleanly."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.core.management import call_command

REPO = Path(__file__).resolve().parents[2]


def test_the_schema_validates_without_warnings(tmp_path: Path, db: Any) -> None:
    out = tmp_path / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    schema = yaml.safe_load(out.read_text())
    paths = schema["paths"]
    for path in (
        "/api/v1/providers/",
        "/api/v1/offerings/",
        "/api/v1/offerings/{slug}/prices/",
        "/api/v1/workloads/",
        "/api/v1/runs/",
        "/api/v1/uploads/",
        "/api/v1/findings/",
        "/api/v1/auth/token/",
        "/api/v1/quotes/",
        "/api/v1/quotes/{quote_id}/",
        "/api/v1/quotes/{quote_id}/pdf",
        "/api/v1/quotes/{quote_id}/share",
    ):
        assert path in paths, path
    error_ref = {"$ref": "#/components/schemas/Error"}
    for path, operations in paths.items():
        for method, operation in operations.items():
            responses = operation["responses"]
            # Every documented error has the one error body.
            for code, response in responses.items():
                if str(code).startswith("4"):
                    schema = response["content"]["application/json"]["schema"]
                    assert schema == error_ref, f"{method} {path} {code}"
            # Every write with input documents its 400. A DELETE takes no input: it documents what it can
            # answer (401/403/404), and at least one error.
            if method in ("post", "patch", "put"):
                assert "400" in responses, f"{method} {path}"
            if method == "delete":
                assert any(str(code).startswith("4") for code in responses), f"{method} {path}"
    # Lists are paginated like the rest, and the quote PDF is documented as a PDF or a 202 status.
    quotes_list = paths["/api/v1/quotes/"]["get"]["responses"]["200"]["content"]["application/json"]
    assert quotes_list["schema"] == {"$ref": "#/components/schemas/PaginatedQuoteList"}
    pdf = paths["/api/v1/quotes/{quote_id}/pdf"]["get"]["responses"]
    assert set(pdf) == {"200", "202", "401", "404"} and set(pdf["200"]["content"]) == {"application/pdf"}
    share = paths["/api/v1/quotes/{quote_id}/share"]
    assert {"201", "403", "404"} <= set(share["post"]["responses"])
    assert {"204", "403", "404"} <= set(share["delete"]["responses"])


def _deploy_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "CLUSTERSCOUT_"))}
    env.update(
        {
            "DJANGO_DEBUG": "false",
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(60),
            "DJANGO_ALLOWED_HOSTS": "example.com",
            "DJANGO_SETTINGS_MODULE": "portal.settings",
        }
    )
    return env


def test_production_settings_pass_check_deploy_without_warnings() -> None:
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=REPO,
        env=_deploy_env(),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout, result.stdout + result.stderr


def test_production_refuses_to_start_without_a_secret_key() -> None:
    env = _deploy_env()
    del env["DJANGO_SECRET_KEY"]
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0 and "DJANGO_SECRET_KEY" in result.stderr


@pytest.mark.parametrize(
    "name",
    ["SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS"],
)
def test_production_turns_on_the_secure_settings(name: str) -> None:
    code = f"import django; django.setup(); from django.conf import settings; print(bool(settings.{name}))"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=_deploy_env(), capture_output=True, text=True, timeout=60
    )
    assert result.stdout.strip() == "True", result.stderr


def _setting_in_fresh_process(name: str, **extra_env: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "CLUSTERSCOUT_"))}
    env.update(extra_env, DJANGO_SETTINGS_MODULE="portal.settings")
    code = f"import django; django.setup(); from django.conf import settings; print(settings.{name})"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.mark.parametrize(
    ("env", "debug"),
    [
        ({}, "False"),  # a deployment that forgot its environment shows no debug page
        ({"CLUSTERSCOUT_DEMO": "1"}, "True"),  # make demo
        ({"DJANGO_DEBUG": "true"}, "True"),  # development (.env.example)
        ({"CLUSTERSCOUT_DEMO": "1", "DJANGO_DEBUG": "false", "DJANGO_SECRET_KEY": "k" * 60}, "False"),
    ],
)
def test_debug_is_off_unless_the_demo_or_development_turns_it_on(env: dict[str, str], debug: str) -> None:
    assert _setting_in_fresh_process("DEBUG", **env) == debug


def test_without_a_secret_key_the_embedded_mode_makes_its_own_not_a_shared_one() -> None:
    key = _setting_in_fresh_process("SECRET_KEY")
    assert len(key) >= 50 and "insecure" not in key
    assert _setting_in_fresh_process("SECRET_KEY") == key  # kept: sessions survive a restart
