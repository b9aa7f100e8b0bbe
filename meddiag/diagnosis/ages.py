"""The patient's age read from free text: "6-year-old", "aged 45", "2y 3m", "17F", "P6Y3M".

The number and unit patterns are shared with `onset.py`, which reads when the illness
began; what it reads is masked before the age is looked for, so "onset at 3 months" in a
6-year-old's vignette is never taken for her age.
"""

from __future__ import annotations

import re

NUMBER_WORDS = {
    w: i
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
            "twenty",
        ]
    )
}
NUM = r"(\d+(?:\.\d+)?|" + "|".join(NUMBER_WORDS) + r")"
UNIT_YEARS = {"year": 1.0, "yr": 1.0, "y": 1.0, "month": 1 / 12, "mo": 1 / 12, "week": 7 / 365.25}
UNIT_YEARS |= {"wk": 7 / 365.25, "day": 1 / 365.25, "d": 1 / 365.25}
_AGE_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(NUM + r"[\s-]*(year|yr|y|month|mo|week|wk|day|d)s?[\s-]*(?:old|of age)\b", re.IGNORECASE),
    re.compile(r"\baged?[:\s]+" + NUM + r"(?:[\s-]*(year|yr|y|month|mo|week|wk|day|d)s?)?\b", re.IGNORECASE),
)
_ISO_AGE = re.compile(r"\bP(?=\d)(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?\b")
# Clinical shorthand: "2y 3m", "2y3m", "4 yo", "4y/o", "7 yrs", "18 mos". A bare "3m" is left
# alone unless it follows the years: on its own it may as well be a length.
_SHORT_AGE = re.compile(
    r"\b(\d+)(?:y|\s*(?:yo|y/o|yrs?))(?![a-z])(?:\s*(\d+)\s*(?:m|mos?)\b)?|\b(\d+)\s*mos?\b", re.IGNORECASE
)
_NEWBORN = re.compile(r"\b(newborn|neonate|new-born)\b", re.IGNORECASE)
# Age and sex in one token, as case notes write them: "17F", "45M" (capitals only).
AGE_SEX = re.compile(r"\b(\d{1,3})([FM])\b")


def parse_age(text: str) -> float | None:
    """Age in years from "6-year-old", "3 months old", "aged 45", "2y 3m", "4 yo", "18 mos",
    "17F", "newborn" or ISO 8601 "P6Y3M"."""
    best: tuple[int, float] | None = None
    for pattern in _AGE_PATTERNS:
        for m in pattern.finditer(text):
            raw, unit = m.group(1).lower(), (m.group(2) or "year").lower()
            value = float(NUMBER_WORDS[raw]) if raw in NUMBER_WORDS else float(raw)
            years = value * UNIT_YEARS[unit]
            if best is None or m.start() < best[0]:
                best = (m.start(), years)
    for m in _SHORT_AGE.finditer(text):
        years_part, months_part, months_only = m.groups()
        years = int(months_only) / 12 if months_only else int(years_part) + int(months_part or 0) / 12
        if best is None or m.start() < best[0]:
            best = (m.start(), years)
    for m in AGE_SEX.finditer(text):
        if best is None or m.start() < best[0]:
            best = (m.start(), float(m.group(1)))
    for m in _ISO_AGE.finditer(text):
        y, mo, w, d = (int(g) if g else 0 for g in m.groups())
        years = y + mo / 12 + w * 7 / 365.25 + d / 365.25
        if best is None or m.start() < best[0]:
            best = (m.start(), years)
    newborn = _NEWBORN.search(text)
    if newborn and (best is None or newborn.start() < best[0]):
        best = (newborn.start(), 0.0)
    return round(best[1], 4) if best else None
