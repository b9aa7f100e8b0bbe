"""Turn an evaluation case into the questions the engine answers, and match its gold diagnosis.

`vignette` writes what a clinician would type; `structured` gives the equivalent
`PatientInput`. Both use only phenotypes, excluded phenotypes, age, sex and onset — never the
diagnosis, and the gene only when asked (`genes=True`: the scenario of a clinician who
already has a molecular finding, reported apart from the phenotype-only benchmark).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

from pydantic import BaseModel

from meddiag.eval.phenopackets import Case
from meddiag.knowledge.equivalence import equivalence_groups
from meddiag.schema import PatientInput


def age_phrase(years: float | None) -> str:
    """'6-year-old', '18-month-old', '30-day-old' or 'newborn'; empty when the age is unknown.

    Under two years clinicians count months, under one month days.
    """
    if years is None:
        return ""
    if years >= 2:
        return f"{int(years)}-year-old"
    months = int(years * 12 + 1e-6)
    if months >= 1:
        return f"{months}-month-old"
    days = round(years * 365.25)
    return f"{days}-day-old" if days >= 1 else "newborn"


def _noun(sex: str | None, years: float | None) -> str:
    adult = years is not None and years >= 18
    if sex == "female":
        return "woman" if adult else ("female patient" if years is None else "girl")
    if sex == "male":
        return "man" if adult else ("male patient" if years is None else "boy")
    if years is None or adult:
        return "patient"
    return "infant" if years < 1 else "child"


def _with_article(phrase: str) -> str:
    """'an 8-year-old boy', 'an 11-month-old girl', 'a 6-year-old girl', 'an infant'."""
    head = phrase.split("-", 1)[0]
    # "eight", "eleven", "eighteen", "eighty…" start with a vowel sound
    digits = head.startswith("8") or head in ("11", "18")
    vowel_sound = digits if head.isdigit() else phrase[:1] in "aeiou"
    return ("An " if vowel_sound else "A ") + phrase


def _join(items: Sequence[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _lower(label: str) -> str:
    """Lower-case a label's first letter unless it opens with an acronym (EEG, IgA)."""
    first = label.split(" ", 1)[0]
    if any(c.isupper() for c in first[1:]):
        return label
    return label[:1].lower() + label[1:]


def vignette(case: Case, *, genes: bool = False) -> str:
    """A clinician-style question from the case's finding labels, age, sex and onset (never ids);
    with `genes`, the genes of the case's reported variants too."""
    age = age_phrase(case.age_years)
    noun = _noun(case.sex, case.age_years)
    who = "newborn" if age == "newborn" and noun in ("infant", "child") else f"{age} {noun}".strip()
    text = f"{_with_article(who)} presents with {_join([_lower(f.label) for f in case.observed])}."
    if case.onset is not None:  # "Infantile onset.", "Onset at 3 years."
        text += f" {case.onset.label[:1].upper()}{case.onset.label[1:]}."
    if case.excluded:
        pronoun = {"female": "She", "male": "He"}.get(case.sex or "", "The patient")
        text += f" {pronoun} has " + _join([f"no {_lower(f.label)}" for f in case.excluded]) + "."
    if genes and case.genes:
        found = "a variant" if len(case.genes) == 1 else "variants"
        text += f" Genetic testing found {found} in {_join(case.genes)}."
    return text + " What is the most likely diagnosis?"


def structured(case: Case, *, genes: bool = False) -> PatientInput:
    """The same question as typed fields."""
    return PatientInput(
        observed=[f.id for f in case.observed],
        excluded=[f.id for f in case.excluded],
        age_years=case.age_years,
        sex=case.sex,
        onset=case.onset,
        genes=list(case.genes) if genes else [],
    )


class GoldMatch(BaseModel):
    """The disease ids that count as a correct answer, and whether the KB can name any of them."""

    ids: list[str]
    in_kb: bool


def equivalence_map(pairs: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    """Every id -> the other ids of its equivalence group, followed through every link (OMIM →
    MONDO → ORPHA, or a second OMIM number of the same MONDO class), as the ranker pools them."""
    return {d: sorted(g - {d}) for d, g in equivalence_groups(pairs).items()}


def gold_match(case: Case, known: Collection[str], equivalents: Mapping[str, Sequence[str]]) -> GoldMatch:
    """Gold ids widened by the KB's equivalences (OMIM ↔ MONDO ↔ ORPHA); `in_kb` if any is `known`."""
    ids: list[str] = []
    for d in case.diseases:
        for x in [d, *equivalents.get(d, ())]:
            if x not in ids:
                ids.append(x)
    return GoldMatch(ids=ids, in_kb=any(x in known for x in ids))
