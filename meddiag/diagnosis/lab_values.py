"""Laboratory values written as numbers: "CK 20,000 U/L", "glucose 2.1 mmol/L", "platelets 40,000".

HPO describes such results qualitatively ("Elevated circulating creatine kinase
concentration", "Hypoglycemia"), so a number has to be read against a reference interval
before it can count as a finding. Reference intervals depend on age, sex and laboratory;
the limits (`lab_limits.csv`, one row per analyte and unit) are deliberately wide —
outside them a value is abnormal for (almost) anyone past the neonatal period — so a value
read as abnormal here is abnormal, while a mildly abnormal value may be read as within
range. A clinician wanting the finding
regardless can name it ("elevated CK").

The unit decides the limits. A value written without a unit is read only when the units
the analyte is commonly reported in agree: "ammonia 250" is high in µmol/L and in µg/dL,
"glucose 30" is low in mg/dL but high in mmol/L, so it is not read and the question's
warnings ask for the unit. Each unit has a plausible range, which lets "platelets 40,000"
(per µL) and "platelets 40" (× 10⁹/L) both be read.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from meddiag.schema import LabReadingKind, LabValue


@dataclass(frozen=True)
class Unit:
    """One unit an analyte is reported in: its spellings and limits in that unit."""

    label: str  # as shown: "mg/dL"
    spellings: tuple[str, ...]  # normalised (`normalise_unit`) spellings, label's included
    low: float | None  # below this: low
    high: float | None  # above this: high
    plausible: tuple[float, float]  # values outside this range are not in this unit


@dataclass(frozen=True)
class Analyte:
    name: str
    names: tuple[str, ...]  # matched case-insensitively, whole words
    acronyms: tuple[str, ...]  # matched as written: "CK", "Hb" (in lower case they are words)
    units: tuple[Unit, ...]
    low_term: str | None  # HPO id for a low value
    high_term: str | None  # HPO id for a high value


class LabReading(LabValue):
    """A value found in the text, what it means against the analyte's limits (the `LabValue`
    the question reports), and where it stands in the text."""

    start: int
    end: int


@dataclass(frozen=True)
class UnreadLab:
    """A value found in the text that could not be read, with the reason for the user."""

    mention: str
    reason: str
    start: int
    end: int


_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹µμ×", "0123456789uux")


def normalise_unit(text: str) -> str:
    """Spelling-insensitive key for a unit: case, spaces, µ/u, ×/x and superscripts folded."""
    t = text.translate(_SUPERSCRIPTS).lower().replace(" ", "").replace("**", "^")
    return re.sub(r"^x?10(?:\^|e)?(\d)", r"x10^\1", t)  # "10e9", "×10⁹", "10^9" → "x10^9"


_LIMITS_CSV = Path(__file__).with_name("lab_limits.csv")


def _split(cell: str) -> tuple[str, ...]:
    return tuple(x.strip() for x in cell.split("|") if x.strip())


def _float(cell: str) -> float | None:
    return float(cell) if cell.strip() else None


@lru_cache(maxsize=1)
def analytes() -> tuple[Analyte, ...]:
    """The analytes of `lab_limits.csv`: one row per unit, names and terms on an analyte's first row."""
    rows: dict[str, list[dict[str, str]]] = {}
    with _LIMITS_CSV.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            rows.setdefault(row["analyte"], []).append(row)
    out = []
    for name, unit_rows in rows.items():
        first = unit_rows[0]
        units = tuple(
            Unit(
                r["unit"],
                tuple(dict.fromkeys(normalise_unit(u) for u in (r["unit"], *_split(r["spellings"])))),
                _float(r["low"]),
                _float(r["high"]),
                (float(r["plausible_min"]), float(r["plausible_max"])),
            )
            for r in unit_rows
        )
        out.append(
            Analyte(
                name,
                _split(first["names"]),
                _split(first["acronyms"]),
                units,
                first["low_term"] or None,
                first["high_term"] or None,
            )
        )
    return tuple(out)


# Words allowed between an analyte and its value: "CK was markedly elevated at 20,000".
_BETWEEN = (
    r"(?:\s*(?:[:=~≈]|\b(?:was|were|is|are|of|at|to|up|level|levels|concentration|count|activity|value|"
    r"markedly|mildly|severely|very|elevated|raised|increased|high|low|decreased|reduced|peak|peaked|"
    r"measured|serum|plasma|blood|total|initial|only|about|approximately|around|reaching|reached)\b))*"
)
_NUMBER = r"(?P<cmp>[<>≤≥]=?\s*)?(?P<num>\d{1,3}(?:,\d{3})+(?![\d,])|\d+(?:[.,]\d+)?)"
_UNIT_TEXT = (
    r"(?P<unit>\s*(?:(?:[x×*]\s*)?10\s*(?:\^|e|\*\*)?\s*[0-9⁰-⁹]+\s*/\s*[a-zA-Zµμ]+[0-9³]*"
    r"|[a-zA-Zµμ%]+(?:\s*/\s*(?:100\s*)?[a-zA-Zµμ]+[0-9³]*)?|/\s*[a-zA-Zµμ]+[0-9³]*))?"
)


def _pattern(analyte: Analyte) -> re.Pattern[str]:
    spelled = sorted(analyte.names, key=len, reverse=True)
    words = "|".join(r"[\s-]+".join(map(re.escape, a.split())) for a in spelled)
    names = [f"(?i:{words})"] + [re.escape(a) for a in analyte.acronyms]
    return re.compile(r"\b(?:" + "|".join(names) + r")\b" + _BETWEEN + r"\s*" + _NUMBER + _UNIT_TEXT)


@lru_cache(maxsize=1)
def _patterns() -> tuple[tuple[Analyte, re.Pattern[str]], ...]:
    return tuple((a, _pattern(a)) for a in analytes())


# A word after the number that is plainly not a unit ("CK 20000 in 2019"): read as unitless.
_UNIT_LIKE = re.compile(r"[/%^]|^x?10|^(?:[munpk]?mol|[munpk]?g|[mk]?i?u|meq)(?:/|$)")
# A number that counts time or multiples is not the value: "platelets 3 days later", "CK 10 times normal".
_NOT_A_VALUE = re.compile(
    r"\s*-?\s*(?:days?|weeks?|wks?|months?|mos?|years?|yrs?|y|yo|hours?|hrs?|h|min|minutes?|times|"
    r"fold|x|percentile|centile|th|st|nd|rd)\b",
    re.IGNORECASE,
)


def _number(text: str) -> float:
    """ "20,000" → 20000; "3,5" (a decimal comma) → 3.5."""
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+", text):
        return float(text.replace(",", ""))
    return float(text.replace(",", "."))


def _fmt(x: float) -> str:
    return f"{x:,.0f}" if x >= 1000 else f"{x:g}"


def _read(value: float, cmp: str, unit: Unit) -> tuple[LabReadingKind, str] | None:
    """The reading of `value` in `unit`; None when a comparison leaves it open ("> 100")."""
    low, high = unit.low, unit.high
    if high is not None and value > high and not cmp.startswith(("<", "≤")):
        return "high", f"above {_fmt(high)} {unit.label}"
    if low is not None and value < low and not cmp.startswith((">", "≥")):
        return "low", f"below {_fmt(low)} {unit.label}"
    if cmp:
        return None
    if high is None:
        return "normal", f"at or above {_fmt(low or 0)} {unit.label}"
    return "normal", f"within {_fmt(low or 0)}–{_fmt(high)} {unit.label}"


def read_lab_values(text: str) -> Iterator[LabReading | UnreadLab]:
    """Every analyte–value pair in `text`, read against its limits, in text order."""
    matches = [(m, analyte) for analyte, pattern in _patterns() for m in pattern.finditer(text)]
    # Earliest first, then the longest name: "LDL cholesterol 250" is not also "cholesterol 250".
    matches.sort(key=lambda ma: (ma[0].start(), -ma[0].end()))
    taken_until = -1
    for m, analyte in matches:
        if m.start() < taken_until:
            continue
        item = _reading(analyte, m, text)
        if item is not None:
            taken_until = item.end
            yield item


def _reading(analyte: Analyte, m: re.Match[str], text: str) -> LabReading | UnreadLab | None:
    value = _number(m.group("num"))
    cmp = (m.group("cmp") or "").strip()
    written = (m.group("unit") or "").strip()
    end = m.end("unit") if written else m.end("num")
    known_unit = any(normalise_unit(written) in u.spellings for u in analyte.units) if written else False
    if not known_unit and _NOT_A_VALUE.match(text, m.end("num")):
        return None
    if written and not known_unit and not _UNIT_LIKE.search(normalise_unit(written)):
        written, end = "", m.end("num")  # a word, not a unit
    mention = text[m.start() : end]
    if written:
        key = normalise_unit(written)
        units = [u for u in analyte.units if key in u.spellings]
        if not units:
            known = " or ".join(u.label for u in analyte.units)
            return UnreadLab(
                mention,
                f"'{mention}' was not read: its unit is not one known for {analyte.name} ({known}).",
                m.start(),
                end,
            )
    else:
        units = [u for u in analyte.units if u.plausible[0] <= value <= u.plausible[1]]
        if not units:
            return UnreadLab(
                mention,
                f"'{mention}' was not read: the value is implausible for "
                f"{analyte.name} in {' or '.join(u.label for u in analyte.units)}.",
                m.start(),
                end,
            )
    readings = [(u, r) for u in units if (r := _read(value, cmp, u)) is not None]
    if not readings:
        return None
    if len({r[0] for _, r in readings}) > 1:
        options = " or ".join(u.label for u, _ in readings)
        return UnreadLab(
            mention,
            f"'{mention}' was not read: give its unit ({options}); the value means different things in each.",
            m.start(),
            end,
        )
    unit, (reading, limit) = readings[0]
    hpo_id = {"high": analyte.high_term, "low": analyte.low_term}.get(reading)
    return LabReading(
        analyte=analyte.name,
        value=value,
        unit=unit.label,
        reading=reading,
        limit=limit,
        mention=mention,
        hpo_id=hpo_id,
        start=m.start(),
        end=end,
    )
