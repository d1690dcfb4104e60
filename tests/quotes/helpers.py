"""Reading PDFs back in the quotes tests (pypdf and poppler's pdftotext/pdftoppm)."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from django.core.files.storage import default_storage
from pypdf import PdfReader

from quotes import services
from quotes.models import Quote


def pdf_bytes(quote: Quote) -> bytes:
    name = services.quote_pdf_ready(quote=quote)
    assert name is not None, "no PDF stored"
    with default_storage.open(name, "rb") as fh:
        return bytes(fh.read())


def pdf_text(data: bytes) -> str:
    """The text of the PDF, whitespace collapsed (pdftotext when available, pypdf otherwise)."""
    if shutil.which("pdftotext"):
        out = subprocess.run(
            ["pdftotext", "-layout", "-", "-"], input=data, capture_output=True, check=True
        ).stdout
        text = out.decode()
    else:
        text = "\n".join(page.extract_text() or "" for page in PdfReader(io.BytesIO(data)).pages)
    return re.sub(r"[ \t]+", " ", text)


def page_texts(data: bytes) -> list[str]:
    return [re.sub(r"\s+", " ", p.extract_text() or "") for p in PdfReader(io.BytesIO(data)).pages]


def flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def to_png(data: bytes, artifacts: Path, stem: str) -> list[Path]:
    """Render the pages at 60 dpi into test-artifacts/ for a human to look at."""
    if not shutil.which("pdftoppm"):
        return []
    pdf = artifacts / f"{stem}.pdf"
    pdf.write_bytes(data)
    for old in artifacts.glob(f"{stem}-*.png"):
        old.unlink()
    subprocess.run(["pdftoppm", "-png", "-r", "60", str(pdf), str(artifacts / stem)], check=True)
    return sorted(artifacts.glob(f"{stem}-*.png"))


def xobject_kinds(page: Any) -> list[str]:
    """The subtypes of the XObjects drawn on a page (Image = embedded raster)."""
    kinds: list[str] = []
    resources = page.get("/Resources") or {}
    xobjects = resources.get("/XObject") if hasattr(resources, "get") else None
    if not xobjects:
        return kinds

    def walk(xobjs: Any) -> None:
        for ref in xobjs.values():
            obj = ref.get_object()
            kinds.append(str(obj.get("/Subtype")))
            inner = (obj.get("/Resources") or {}).get("/XObject") if obj.get("/Resources") else None
            if inner:
                walk(inner.get_object())

    walk(xobjects.get_object())
    return kinds


def page_content(page: Any) -> bytes:
    """The page's content stream plus those of its form XObjects (where WeasyPrint puts drawn SVG)."""
    data = page.get_contents().get_data() if page.get_contents() is not None else b""
    resources = page.get("/Resources") or {}
    xobjects = resources.get("/XObject") if hasattr(resources, "get") else None

    def walk(xobjs: Any) -> bytes:
        out = b""
        for ref in xobjs.values():
            obj = ref.get_object()
            if obj.get("/Subtype") == "/Form":
                out += obj.get_data()
                inner = (obj.get("/Resources") or {}).get("/XObject") if obj.get("/Resources") else None
                if inner:
                    out += walk(inner.get_object())
        return out

    if xobjects:
        data += walk(xobjects.get_object())
    return data
