"""The checks app listens to the apps below it: findings are derived from offerings and their evidence, so
they are refreshed when either changes (connected in ChecksConfig.ready)."""

from __future__ import annotations

from typing import Any

from checks import selectors, services
from checks.display import findings_for_offering_page
from providers.models import Offering


def on_offerings_changed(*, offering_ids: list[int], **_: Any) -> None:
    services.findings_refresh_for(offering_ids)


def on_upload_parsed(*, offering_id: int, upload_id: int | None = None, **_: Any) -> None:
    """A private upload raises its findings at once in its owner's own context, citing the upload; then
    (any upload) the offering's public findings are refreshed on the worker after commit."""
    owner = selectors.upload_owner_and_visibility(upload_id) if upload_id is not None else None
    if owner is not None and owner[1] != "public":
        offering = selectors.offering_for_checklist_by_id(offering_id)
        if offering is not None:
            services.findings_refresh_private(offering=offering, owner_id=owner[0])
    services.findings_refresh_for([offering_id])


def on_catalog_imported(*, slugs: list[str], **_: Any) -> str:
    checked = services.findings_refresh_catalog(slugs=slugs)
    return f"Pitfall checks run for {checked} offerings."


def offering_page_findings(offering: Offering) -> dict[str, Any]:
    return {"findings": findings_for_offering_page(offering)}
