"""When the illness began: HPO onset classes as age ranges, onsets read from text, and how
far a patient's onset lies from a disease's curated ones.

Ages are in years, negative before birth (conception is about -0.75). HPO defines its onset
classes by age (Infantile onset: 28 days to one year; Juvenile onset: 5 to 15 years; Young
adult onset: 16 to 40 years ...), so a patient's onset, stated as a class or as an age,
and a disease's HAS_ONSET facts compare as ranges. Distance is measured on a logarithmic
scale of months (`onset_gap`): a month between birth and infancy matters as much as years
between childhood and adulthood.
"""

from __future__ import annotations

import re

import numpy as np

from meddiag.diagnosis.ages import NUM, NUMBER_WORDS, UNIT_YEARS
from meddiag.schema import Onset

_DAY = 1 / 365.25
_GESTATION_YEARS = 280 * _DAY  # conception to term: an onset at week w of gestation is w·7 − 280 days
_NEVER = 130.0  # the open end of "Adult onset"

# HPO onset class -> (label, first age, last age) in years, from HPO's definitions.
ONSET_CLASSES: dict[str, tuple[str, float, float]] = {
    "HP:0030674": ("antenatal onset", -_GESTATION_YEARS, 0.0),
    "HP:0011460": ("embryonal onset", -_GESTATION_YEARS, -(280 - 56) * _DAY),  # first 8 weeks
    "HP:0011461": ("fetal onset", -(280 - 56) * _DAY, 0.0),
    "HP:0034199": ("late first trimester onset", -(280 - 77) * _DAY, -(280 - 98) * _DAY),  # weeks 11-14
    "HP:0034198": ("second trimester onset", -(280 - 98) * _DAY, -(280 - 196) * _DAY),  # weeks 14-28
    "HP:0034197": ("third trimester onset", -(280 - 196) * _DAY, 0.0),  # week 28 to birth
    "HP:0003577": ("congenital onset", 0.0, 0.0),
    "HP:0003623": ("neonatal onset", 0.0, 28 * _DAY),
    "HP:0410280": ("pediatric onset", 0.0, 16.0),
    "HP:0003593": ("infantile onset", 28 * _DAY, 1.0),
    "HP:0011463": ("childhood onset", 1.0, 5.0),
    "HP:0003621": ("juvenile onset", 5.0, 16.0),
    "HP:0003581": ("adult onset", 16.0, _NEVER),
    "HP:0011462": ("young adult onset", 16.0, 40.0),
    "HP:0025708": ("early young adult onset", 16.0, 19.0),
    "HP:0025709": ("intermediate young adult onset", 19.0, 25.0),
    "HP:0025710": ("late young adult onset", 25.0, 40.0),
    "HP:0003596": ("middle age onset", 40.0, 60.0),
    "HP:0003584": ("late onset", 60.0, _NEVER),
}


def onset_of_class(hpo_id: str) -> Onset | None:
    """The range of an HPO onset class; None for a term that names no age (Puerperal onset)."""
    found = ONSET_CLASSES.get(hpo_id)
    if found is None:
        return None
    label, low, high = found
    return Onset(low_years=low, high_years=high, label=label, hpo_id=hpo_id)


def onset_at(years: float) -> Onset:
    """An onset at one age, labelled as a clinician writes it (and `parse_onset` reads it back):
    "onset at 3 years", "onset at 18 months", "onset at 10 days", "onset at birth",
    "onset at 20 weeks of gestation"."""
    if years < 0:
        weeks = max(round((years * 365.25 + 280) / 7), 0)
        label = f"onset at {weeks} weeks of gestation"
    elif years >= 2:
        label = f"onset at {years:.4g} years" if years != int(years) else f"onset at {int(years)} years"
    elif (months := int(years * 12 + 1e-6)) >= 1:
        label = f"onset at {months} month{'s' if months > 1 else ''}"
    elif (days := round(years * 365.25)) >= 1:
        label = f"onset at {days} day{'s' if days > 1 else ''}"
    else:
        label = "onset at birth"
    years = min(max(years, -_GESTATION_YEARS), _NEVER)
    return Onset(low_years=years, high_years=years, label=label)


def _months_log(years: np.ndarray | float) -> np.ndarray:
    a = np.asarray(years, dtype=np.float64)
    return np.sign(a) * np.log1p(12 * np.abs(a))


def onset_gap(patient: Onset, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """How far the patient's onset range lies outside each disease onset range [low, high],
    in natural-log months (0 where they overlap): infantile vs congenital ≈ 0.65, childhood
    vs congenital ≈ 2.6, adult vs childhood ≈ 1.2."""
    p_low, p_high = _months_log(patient.low_years), _months_log(patient.high_years)
    return np.maximum(0.0, np.maximum(_months_log(low) - p_high, p_low - _months_log(high)))


# ---------------------------------------------------------------------------- reading text

# Words naming an onset class, longest first so that "young adult" is not read as "adult".
_CLASS_WORDS: tuple[tuple[str, str], ...] = (
    (r"early young adult", "HP:0025708"),
    (r"intermediate young adult", "HP:0025709"),
    (r"late young adult", "HP:0025710"),
    (r"young adult(?:hood)?", "HP:0011462"),
    (r"late first trimester", "HP:0034199"),
    (r"second trimester", "HP:0034198"),
    (r"third trimester", "HP:0034197"),
    (r"embryonal|embryonic", "HP:0011460"),
    (r"fetal|foetal|fetal period|fetal life", "HP:0011461"),
    (r"antenatal|prenatal", "HP:0030674"),
    (r"congenital|birth", "HP:0003577"),
    (r"neonatal(?: period)?|newborn(?: period)?", "HP:0003623"),
    (r"infantile|infancy", "HP:0003593"),
    (r"(?:early )?childhood", "HP:0011463"),
    (r"juvenile|adolescen(?:ce|t)|teenage|teens", "HP:0003621"),
    (r"p(?:a)?ediatric", "HP:0410280"),
    (r"middle[- ]age(?:d)?|midlife", "HP:0003596"),
    # "late" alone: "late onset" is HPO's onset after 60, "late childhood" is childhood
    (r"late(?![\s-]+(?:child|infan|adolescen|juvenile|teen|young|first))|old age|elderly", "HP:0003584"),
    (r"adult(?:hood)?", "HP:0003581"),
)
_CLASS = "|".join(f"(?:{words})" for words, _ in _CLASS_WORDS)
# "late childhood", "early infancy": a qualifier of a period that does not change its class
_QUALIFIED = r"(?:(?:early|late)\s+(?=child|infan|adolescen|juvenile|teen))?"
_CLASS_OF = [(re.compile(rf"^(?:{words})$", re.IGNORECASE), hpo_id) for words, hpo_id in _CLASS_WORDS]
_BEGAN = r"(?:onset|began|begun|started|appeared|arose|manifested|(?:first )?noticed)"
_UNIT = r"(year|yr|y|month|mo|week|wk|day|d)s?"

# "infantile onset", "adult-onset"
_CLASS_ONSET = re.compile(rf"\b({_CLASS})[\s-]+onset\b", re.IGNORECASE)
# "onset in infancy", "onset was congenital", "began during childhood", "onset at birth"
_ONSET_IN_CLASS = re.compile(
    rf"\b{_BEGAN}\s+(?:was\s+|is\s+|occurred\s+)?(?:(?:in|during|at|from|since)\s+)?(?:the\s+)?{_QUALIFIED}({_CLASS})\b",
    re.IGNORECASE,
)
_SINCE_BIRTH = re.compile(r"\b(?:since|from|present at)\s+birth\b", re.IGNORECASE)
# "hypotonia since infancy", "from early childhood": nouns only ("from late" names no onset)
_SINCE_PERIOD = re.compile(
    r"\b(?:since|from)\s+(?:the\s+)?(?:(?:early|late)\s+)?"
    r"(infancy|childhood|adolescence|(?:young\s+)?adulthood|(?:neonatal|newborn)\s+period|fetal\s+life)\b",
    re.IGNORECASE,
)
# "onset of seizures at 3 months", "onset of symptoms in infancy": a preposition is required
_ONSET_OF = r"onset\s+of(?:\s+[\w'-]+){1,5}?"
_ONSET_OF_CLASS = re.compile(
    rf"\b{_ONSET_OF}\s+(?:in|during|at|from|since)\s+(?:the\s+)?{_QUALIFIED}({_CLASS})\b",
    re.IGNORECASE,
)
# "since the age of 2 years", "since age 3"
_SINCE_AGE = re.compile(
    rf"\bsince\s+(?:the\s+)?age\s+(?:of\s+)?{NUM}(?:[\s-]*(year|yr|y|month|mo|week|wk|day|d)s?)?\b",
    re.IGNORECASE,
)
# "onset at 20 weeks of gestation"
_GESTATION = re.compile(
    rf"\b{_BEGAN}\s+(?:was\s+)?(?:at|from|in)\s+{NUM}\s*(?:weeks?|wks?)\s+(?:of\s+)?(?:gestation|pregnancy)\b",
    re.IGNORECASE,
)
# "onset at 3 years", "began at the age of 6 months", "age at onset: 2 years"
_AT_AGE = re.compile(
    rf"\b(?:(?:{_BEGAN}|{_ONSET_OF})\s+(?:was\s+)?(?:at|from|around|by)|age\s+(?:at|of)\s+onset(?:\s+was|:)?)\s+"
    rf"(?:the\s+)?(?:age\s+(?:of\s+)?)?{NUM}(?:[\s-]*{_UNIT})?(?:\s+(?:of\s+age|old))?\b",
    re.IGNORECASE,
)


def _number(raw: str) -> float:
    raw = raw.lower()
    return float(NUMBER_WORDS[raw]) if raw in NUMBER_WORDS else float(raw)


def _class_onset(words: str) -> Onset | None:
    words = " ".join(words.split())
    for pattern, hpo_id in _CLASS_OF:
        if pattern.match(words):
            return onset_of_class(hpo_id)
    return None


def parse_onset(text: str) -> tuple[Onset | None, list[tuple[int, int]]]:
    """The earliest onset the text states, and the spans of every onset phrase (so that the
    age reader can skip them). None when no phrase names one."""
    found: list[tuple[int, int, Onset]] = []

    def add(m: re.Match[str], onset: Onset | None) -> None:
        if onset is not None and not any(s < m.end() and m.start() < e for s, e, _ in found):
            found.append((m.start(), m.end(), onset))

    for m in _GESTATION.finditer(text):
        weeks = _number(m.group(1))
        add(m, onset_at((weeks * 7 - 280) * _DAY))
    for pattern in (_AT_AGE, _SINCE_AGE):
        for m in pattern.finditer(text):
            unit = (m.group(2) or "year").lower()
            add(m, onset_at(_number(m.group(1)) * UNIT_YEARS[unit]))
    for pattern in (_CLASS_ONSET, _ONSET_IN_CLASS, _ONSET_OF_CLASS, _SINCE_PERIOD):
        for m in pattern.finditer(text):
            add(m, _class_onset(m.group(1)))
    for m in _SINCE_BIRTH.finditer(text):
        add(m, onset_of_class("HP:0003577"))
    if not found:
        return None, []
    earliest = min(found, key=lambda f: (f[2].low_years, f[2].high_years, f[0]))[2]
    return earliest, sorted((s, e) for s, e, _ in found)


# Phrases that say only when ("Infantile onset.", "since birth", "onset was in childhood"), as
# against "onset of seizures at 3 months", which also names what began.
_WHEN_ONLY = (_GESTATION, _SINCE_AGE, _CLASS_ONSET, _ONSET_IN_CLASS, _SINCE_PERIOD, _SINCE_BIRTH)


def when_only_spans(text: str) -> list[tuple[int, int]]:
    """Spans of the onset phrases that name no finding: the question reader keeps their words
    from the embedding fallback, which otherwise took "Infantile onset" for Atopic dermatitis
    (synonym "Infantile eczema") and "Neonatal onset" for Neonatal hypotonia."""
    return sorted({m.span() for pattern in _WHEN_ONLY for m in pattern.finditer(text)})


def without_spans(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with the spans blanked (same length, so positions still agree)."""
    chars = list(text)
    for s, e in spans:
        chars[s:e] = " " * (e - s)
    return "".join(chars)
