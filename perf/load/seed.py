"""Seed the load-test database: the demo catalog plus COPIES renamed copies of it, a buyer, a finished run.

Run by perf/load/run.py with DATABASE_URL pointing at the load database and no broker (the run is sized
in-process). Prints one JSON line: token, session key, run id, offering slugs.
"""

from __future__ import annotations

import copy
import json
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")

import django  # noqa: E402

django.setup()

from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY  # noqa: E402
from django.contrib.sessions.backends.db import SessionStore  # noqa: E402
from rest_framework.authtoken.models import Token  # noqa: E402

from accounts.models import User  # noqa: E402
from providers.catalog import catalog_import, read_catalog_file  # noqa: E402
from providers.models import Offering  # noqa: E402
from providers.services import gpu_table_sync  # noqa: E402
from sizing import services as sizing_services  # noqa: E402

COPIES = int(os.environ.get("LOAD_CATALOG_COPIES", "7"))
RUN_OFFERINGS = int(os.environ.get("LOAD_RUN_OFFERINGS", "40"))


def catalog_copy(data: dict, n: int) -> dict:
    """The catalog with every provider and offering slug suffixed `-c<n>` and names marked as copies."""
    out = copy.deepcopy(data)
    for provider in out["providers"]:
        provider["slug"] = f"{provider['slug']}-c{n}"[:60]
        provider["name"] = f"{provider['name']} (copy {n})"
        for offering in provider.get("offerings") or []:
            offering["slug"] = f"{offering['slug']}-c{n}"[:80]
            offering["name"] = f"{offering['name']} (copy {n})"
    return out


def main() -> None:
    gpu_table_sync()
    demo = read_catalog_file(REPO / "providers" / "demo" / "catalog.yaml")
    catalog_import(data=demo)
    for n in range(1, COPIES + 1):
        catalog_import(data=catalog_copy(demo, n))
    user = User.objects.create_user(username="loadbuyer", password="load-test-password")
    token = Token.objects.create(user=user).key
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    slugs = list(Offering.objects.filter(fictional=False).order_by("slug").values_list("slug", flat=True))
    workload = sizing_services.workload_create(owner=user, preset="llama3-70b")
    run = sizing_services.plan_run_create(owner=user, workload=workload, offering_slugs=slugs[:RUN_OFFERINGS])
    run.refresh_from_db()
    print(
        json.dumps(
            {
                "token": token,
                "session": session.session_key,
                "run": run.pk,
                "run_status": run.status,
                "run_slugs": list(run.results.values_list("offering__slug", flat=True)),
                "slugs": slugs,
            }
        )
    )


if __name__ == "__main__":
    main()
