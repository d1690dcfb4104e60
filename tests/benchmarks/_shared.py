"""Where the shared corpus (../shared beside the checkout) lives, and the skip/fail policy for it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def shared_dir() -> Path | None:
    env = os.environ.get("CLUSTERSCOUT_SHARED")
    candidates = [Path(env)] if env else []
    candidates += [REPO_ROOT.parent / "shared"]
    for path in candidates:
        if (path / "benchlogs").is_dir() and (path / "evidence").is_dir():
            return path
    return None


def require_shared() -> Path:
    """The corpus, or a module-level skip; on CI a missing corpus is a failure, never a skip."""
    path = shared_dir()
    if path is not None:
        return path
    if os.environ.get("CI"):
        pytest.fail(
            "CI is set but the shared corpus (../shared or $CLUSTERSCOUT_SHARED) is missing", pytrace=False
        )
    pytest.skip("shared corpus not present (../shared or $CLUSTERSCOUT_SHARED)", allow_module_level=True)
    raise AssertionError("unreachable")
