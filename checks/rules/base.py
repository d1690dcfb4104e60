"""What a rule returns: findings, the signals merged into them, and the evidence references they cite."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from checks.severity import SEVERITY_RANK, Severity
from hardware.messages import Msg as Msg
from hardware.messages import _ as _
from hardware.messages import joined as joined
from hardware.messages import listed as listed
from hardware.messages import ngettext as ngettext
from hardware.messages import sentences as sentences


@dataclass
class Ref:
    """One piece of evidence behind a finding: a published fact, an upload's lines, or a model number."""

    source: str  # "claim" | "evidence" | "model"
    text: str
    fact: str | None = None
    value: Any = None
    file: str | None = None
    lines: list[list[int]] | None = None  # [[first, last], ...], 1-based
    upload_id: int | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"source": self.source, "text": self.text}
        if self.fact is not None:
            out["fact"] = self.fact
            out["value"] = self.value
        if self.file is not None:
            out["file"] = self.file
            out["lines"] = self.lines or []
            if self.upload_id is not None:
                out["upload_id"] = self.upload_id
        return out


@dataclass
class Finding:
    code: str
    severity: Severity
    title: str
    evidence: list[Ref] = field(default_factory=list)
    advice: str = ""
    impact: dict[str, Any] = field(default_factory=dict)
    # the advice sentences as the signals gave them (Msg where marked for translation)
    advice_parts: list[str] = field(default_factory=list)
    # the impact sentences as the signals gave them (Msg where marked for translation)
    impact_parts: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "severity": str(self.severity),
            "title": str(self.title),
            "evidence": [ref.as_dict() for ref in self.evidence],
            "advice": self.advice,
            "impact": dict(self.impact),
        }

    def messages(self) -> dict[str, Any]:
        """The message ids and values of the texts marked for translation (stored beside the English)."""
        out: dict[str, Any] = {"title": self.title.as_json()} if isinstance(self.title, Msg) else {}
        if self.advice_parts and all(isinstance(part, Msg) for part in self.advice_parts):
            out["advice"] = [part.as_json() for part in self.advice_parts if isinstance(part, Msg)]
        if self.impact_parts and all(isinstance(part, Msg) for part in self.impact_parts):
            out["impact"] = [part.as_json() for part in self.impact_parts if isinstance(part, Msg)]
        if any(isinstance(ref.text, Msg) for ref in self.evidence):  # one per reference, None where unmarked
            out["evidence"] = [
                ref.text.as_json() if isinstance(ref.text, Msg) else None for ref in self.evidence
            ]
        return out


@dataclass
class Signal:
    """One reason a rule fires; a rule's signals become one Finding."""

    severity: Severity
    title: str
    refs: list[Ref]
    advice: str
    impact: dict[str, Any] = field(default_factory=dict)


def merge(code: str, signals: list[Signal]) -> list[Finding]:
    """The one finding of a rule: the worst signal's severity, title and numbers, every signal's evidence."""
    if not signals:
        return []
    ordered = sorted(signals, key=lambda signal: SEVERITY_RANK[signal.severity])
    worst = ordered[0]
    refs: list[Ref] = []
    advice: list[str] = []
    texts: list[str] = []
    impact: dict[str, Any] = {}
    for signal in ordered:
        refs.extend(signal.refs)
        if signal.advice and signal.advice not in advice:
            advice.append(signal.advice)
        text = signal.impact.get("text")
        if text and text not in texts:
            texts.append(text)
        for key, value in signal.impact.items():
            if key == "text" or value is None:
                continue
            # The worst signal's numbers come first; later signals only fill in what is missing, so a
            # number in `impact` always belongs to the most severe reason.
            impact.setdefault(key, value)
    title = worst.title
    if len(ordered) > 1:
        title = _("%(title)s (and %(count)s more)", title=title, count=len(ordered) - 1)
    if not texts:
        texts = [_("Not quantified by the model.")]
    impact["text"] = " ".join(texts)
    return [
        Finding(
            code=code,
            severity=worst.severity,
            title=title,
            evidence=refs,
            advice=" ".join(advice),
            impact=impact,
            advice_parts=advice,
            impact_parts=texts,
        )
    ]


# --- Evidence references ---------------------------------------------------------------------------


def claim(offering: dict, name: str, text: str | None = None) -> Ref:
    value = offering.get(name)
    shown = "not published" if value is None else value
    return Ref(source="claim", fact=name, value=value, text=text or f"{name} = {shown}")


def model(text: str, name: str | None = None, value: Any = None) -> Ref:
    return Ref(source="model", text=text, fact=name, value=value)


def upload(item: dict, text: str, lines: Iterable[Any] = ()) -> Ref:
    spans: list[list[int]] = []
    for line in lines:
        if line is None:
            continue
        if isinstance(line, list | tuple) and len(line) == 2:
            if line[0] is not None:
                spans.append([int(line[0]), int(line[1] if line[1] is not None else line[0])])
        elif isinstance(line, int | float):
            spans.append([int(line), int(line)])
    return Ref(
        source="evidence",
        text=text,
        file=str(item.get("filename") or "upload"),
        lines=spans,
        upload_id=item.get("upload_id"),
    )


# --- Numbers as the inputs give them ----------------------------------------------------------------


def to_float(value: Any) -> float | None:
    """A finite number, or None for missing, boolean, non-numeric or infinite input."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value) if math.isfinite(value) else None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def percent(fraction: float) -> float:
    return round(100.0 * fraction, 1)
