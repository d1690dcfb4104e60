"""The checks app listens to the apps below it: findings are derived from offerings and their evidence, so
they are refreshed when either changes (connected in ChecksConfig.ready)."""

from __future__ import annotations

from typing import Any

from checks import services
from checks.display import findings_for_offering_page
from providers.models import Offering


def on_offerings_changed(*, offering_ids: list[int], **_: Any) -> None:
    services.findings_refresh_for(offering_ids)


def on_upload_parsed(*, offering_id: int, **_: Any) -> None:
    services.findings_refresh_for([offering_id])


def on_catalog_imported(*, slugs: list[str], **_: Any) -> str:
    checked = services.findings_refresh_catalog(slugs=slugs)
    return f"Pitfall checks run for {checked} offerings."


def offering_page_findings(offering: Offering) -> dict[str, Any]:
    return {"findings": findings_for_offering_page(offering)}
