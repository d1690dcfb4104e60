"""The catalog API's JSON, OpenAPI schema and catalog pages, recorded on one checkout and compared byte for
byte on another.

    export DATABASE_URL=postgres://postgres@127.0.0.1:5432/<db>
    .venv/bin/python perf/check_api_identical.py --record /tmp/api-before.json    # on the old code
    .venv/bin/python perf/check_api_identical.py --compare /tmp/api-before.json   # exit 1 on a difference

Reads (Django test client, in-process, this checkout's code): the list's first page, an offset page, each
sort, a filtered page, three offerings' detail addresses (first, middle and last slug), and
`manage.py spectacular`; and the HTML of browse pages (plain, sorted, filtered, in yuan), of four
offering pages and of two compare pages, bar their CSRF tokens. Each address is requested twice, so that
a second answer read from a cache is compared too. Nothing is written to the database.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402

from providers.models import Offering  # noqa: E402


def addresses() -> list[str]:
    slugs = list(Offering.objects.order_by("slug").values_list("slug", flat=True))
    paths = [
        "/api/v1/offerings/",
        "/api/v1/offerings/?offset=200",
        "/api/v1/offerings/?limit=50&offset=1000",
        "/api/v1/offerings/?fabric=infiniband&min_gbps_per_gpu=100",
        "/api/v1/offerings/?include_fictional=true&limit=20",
    ]
    paths += [f"/api/v1/offerings/?sort={sort}&limit=50" for sort in ("name", "price", "-price", "updated")]
    paths += [f"/api/v1/offerings/?sort={s}&limit=30&offset=60" for s in ("gbps_per_gpu", "-gbps_per_gpu")]
    paths += [f"/api/v1/offerings/{slug}/" for slug in (slugs[0], slugs[len(slugs) // 2], slugs[-1])]
    paths += ["/offerings/", "/offerings/?page=7&sort=-price", "/offerings/?currency=CNY"]
    paths += ["/offerings/?fabric=infiniband&provider_name=Lambda&page=2"]
    paths += [f"/offerings/{slug}/" for slug in (slugs[0], slugs[len(slugs) // 2], slugs[-1])]
    paths += [f"/offerings/{slugs[5]}/?currency=CNY"]
    real = list(Offering.objects.filter(fictional=False).order_by("id").values_list("slug", flat=True)[:6])
    paths += [f"/compare/?offerings={','.join(real)}&workload=llama3-70b&gpus=256"]
    paths += [f"/compare/?offerings={','.join(real[:3])}&currency=CNY"]
    return paths


def snapshot() -> dict[str, str]:
    client = Client(HTTP_HOST="localhost")
    out: dict[str, str] = {}
    for path in addresses():
        for attempt in ("first", "second"):
            response = client.get(path, HTTP_ACCEPT="application/json")
            body = re.sub(rb'(name="csrfmiddlewaretoken" value=")[^"]+', rb"\1", response.content)
            digest = hashlib.sha256(body).hexdigest()
            out[f"{path} [{attempt}]"] = f"{response.status_code} {len(body)} {digest}"
    schema = io.StringIO()
    call_command("spectacular", stdout=schema)
    out["manage.py spectacular"] = hashlib.sha256(schema.getvalue().encode()).hexdigest()
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--record")
    group.add_argument("--compare")
    args = parser.parse_args()
    now = snapshot()
    if args.record:
        Path(args.record).write_text(json.dumps(now, indent=1))
        print(f"recorded {len(now)} answers")
        return 0
    before = json.loads(Path(args.compare).read_text())
    differ = [key for key in sorted(set(before) | set(now)) if before.get(key) != now.get(key)]
    for key in differ:
        print(f"DIFFERS {key}: before {before.get(key)} now {now.get(key)}")
    print(f"{len(now) - len(differ)} of {len(now)} answers identical")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
