"""The catalog version, and rows of the catalog cached under it.

The version is one value in Django's cache; any write to what an offering shows makes a new one, so
everything cached under the old version is never read again (it expires on its own). Writes are caught
where they happen, by the model signals of every catalog table (admin, imports, sourced edits, price
changes and the shell alike) and by the catalog's own signals (providers.signals, connected by the apps
above); the catalog has no bulk writes that would bypass them (docs/PERFORMANCE.md, "Pages at 3,000+
offerings").

`cached_rows` is what the API list and the browse page use: one cache read for a page of rows, and only
the rows missing from the cache built (and stored) again. Their keys also carry a digest of the code that
builds them, so a deploy never serves rows in an older shape.
"""

from __future__ import annotations

import functools
import hashlib
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, overload
from urllib.parse import urlencode

from django.core.cache import cache
from django.db import transaction
from django.db.models.signals import m2m_changed, post_delete, post_save

# The key predates the catalog's own use of the version (the compare page was its first reader).
VERSION_KEY = "compare:catalog-version"
# A cached row is never read under a newer version; this bounds how long the rows of old versions keep
# memory in the cache (each version's rows are ~30 MB when every page of a 3,000-offering catalog is read
# in the API), at the price of rebuilding an unchanged catalog's rows once an hour.
ROW_CACHE_SECONDS = 3600


def catalog_version() -> str:
    """The current catalog version (a new one is made when the cache has none)."""
    version = cache.get(VERSION_KEY)
    if version is None:
        version = uuid.uuid4().hex
        cache.add(VERSION_KEY, version, None)
        version = cache.get(VERSION_KEY) or version
    return str(version)


def catalog_version_bump() -> None:
    """Everything cached under the catalog version is stale: the catalog changed."""
    cache.set(VERSION_KEY, uuid.uuid4().hex, None)


def catalog_written(**_: Any) -> None:
    """A row of the catalog was saved or deleted. Bump now (a page rendered meanwhile recomputes) and on
    commit (a page rendered between the two could have cached the old rows under the new version): once
    per transaction, which an import of thousands of rows would otherwise queue thousands of times."""
    catalog_version_bump()
    pending = getattr(transaction.get_connection(), "run_on_commit", [])
    # entries are (savepoint ids, callback, robust); one rolled back with its savepoint is dropped
    if not any(isinstance(entry, tuple) and catalog_version_bump in entry for entry in pending):
        transaction.on_commit(catalog_version_bump)


def connect_model_signals() -> None:
    """Every catalog table's saves and deletes, and the source links of fact groups and plans, bump the
    version (called once, from ProvidersConfig.ready)."""
    from providers import models

    tables = [
        models.GPUModel,
        models.Provider,
        models.Source,
        models.Offering,
        models.Provenance,
        models.ExchangeRate,
        models.BillingPlan,
        models.PricePoint,
    ]
    for model in tables:
        uid = f"providers.version.{model.__name__}"
        post_save.connect(catalog_written, sender=model, dispatch_uid=f"{uid}.save")
        post_delete.connect(catalog_written, sender=model, dispatch_uid=f"{uid}.delete")
    for through in (models.Provenance.sources.through, models.BillingPlan.sources.through):
        m2m_changed.connect(
            catalog_written, sender=through, dispatch_uid=f"providers.version.{through.__name__}"
        )


@functools.cache
def code_version() -> str:
    """A digest of the code rows are built by (the catalog app, the money formatting, the templates of the
    catalog pages): after a deploy that changes any of it, rows an older process cached are never read."""
    root = Path(__file__).resolve().parents[1]
    files = [
        *sorted((root / "providers").rglob("*.py")),
        *sorted((root / "templates" / "providers").glob("*.html")),
        root / "portal" / "money.py",
    ]
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def cached_rows(
    prefix: str, pks: Iterable[int], build: Callable[[list[int]], dict[int, Any]]
) -> dict[int, Any]:
    """The row of each primary key, read from the cache under `prefix` and the catalog version; the
    missing ones built by `build(missing pks)` (which answers {pk: row}) and stored (one cache read and at
    most one write). `prefix` names what else the row depends on (language, currency)."""
    version = catalog_version()
    keys = {pk: f"rows:{prefix}:{code_version()}:{version}:{pk}" for pk in pks}
    found = cache.get_many(list(keys.values()))
    rows = {pk: found[key] for pk, key in keys.items() if key in found}
    missing = [pk for pk in keys if pk not in rows]
    if missing:
        built = build(missing)
        cache.set_many({keys[pk]: row for pk, row in built.items()}, ROW_CACHE_SECONDS)
        rows.update(built)
    return rows


def value_key(name: str) -> str:
    """The cache key of a value derived from the catalog: `name` under the code and catalog versions (read
    before the database is, so a value computed from older rows is never stored under a newer version)."""
    return f"value:{name}:{code_version()}:{catalog_version()}"


def cached_value(name: str, build: Callable[[], Any]) -> Any:
    """One value derived from the catalog (`build()`), cached under `name` and the catalog version."""
    key = value_key(name)
    value = cache.get(key)
    if value is None:
        value = build()
        cache.set(key, value, ROW_CACHE_SECONDS)
    return value


def query_name(kind: str, params: Mapping[str, Any]) -> str:
    """A name for what a list shows for this query (a QueryDict or a mapping of lists), the order of its
    parameters aside."""
    lists = params.lists() if hasattr(params, "lists") else params.items()
    pairs = sorted((name, str(value)) for name, values in lists for value in values)
    return f"{kind}:{hashlib.sha256(urlencode(pairs).encode()).hexdigest()[:24]}"


class PageOfIds(Sequence[int]):
    """What a paginator needs of a list it paged before: the list's length and the ids of one page (the
    page that starts at `start`), standing in for the queryset. Any other slice raises LookupError."""

    def __init__(self, count: int, start: int, ids: list[int]) -> None:
        self.total, self.start, self.ids = count, start, ids

    def __len__(self) -> int:
        return self.total

    @overload
    def __getitem__(self, index: int) -> int: ...
    @overload
    def __getitem__(self, index: slice) -> list[int]: ...
    def __getitem__(self, index: int | slice) -> int | list[int]:
        if isinstance(index, slice) and (index.start or 0) == self.start:
            return list(self.ids)
        raise LookupError("only the page cached is known")
