"""Checks on what a clinician typed, before any retrieval: refuse clearly, never crash later."""

from __future__ import annotations

import re
import unicodedata

from meddiag.errors import InputError
from meddiag.schema import ParsedQuestion, PatientInput

# Same bound as the backends' query limit: longer text is refused, never silently cut.
MAX_QUESTION_CHARS = 8_000
MAX_HOPS_LIMIT = 8
_HPO_ID = re.compile(r"^HP:\d{7}$")


def clean_question(question: str | None, patient: PatientInput | None) -> str:
    """The question with control characters removed; `InputError` when there is nothing to ask."""
    text = "".join(ch if unicodedata.category(ch)[0] != "C" else " " for ch in question or "")
    text = " ".join(text.split())
    if len(text) > MAX_QUESTION_CHARS:
        raise InputError(
            f"The question is {len(text):,} characters long; at most {MAX_QUESTION_CHARS:,} are accepted. "
            "Shorten it to the patient's findings and the question."
        )
    if not text and (
        patient is None or not (patient.observed or patient.excluded or patient.genes or patient.note)
    ):
        raise InputError("The question is empty: type the patient's findings or fill in the patient form.")
    if (
        not text
        and patient is not None
        and patient.excluded
        and not (patient.observed or patient.genes or patient.note)
    ):
        # Absent findings narrow a differential but cannot start one.
        raise InputError(
            "Only findings the patient does not have were given: add at least one finding the patient has."
        )
    return text


def check_patient(patient: PatientInput | None) -> None:
    if patient is None:
        return
    bad = [t for t in [*patient.observed, *patient.excluded] if not _HPO_ID.match(t.strip())]
    if bad:
        raise InputError(
            f"These findings are not HPO term ids (expected the form HP:0001250): {', '.join(bad[:5])}."
        )
    both = sorted(set(patient.observed) & set(patient.excluded))
    if both:
        raise InputError(f"These findings are marked both present and absent: {', '.join(both)}.")
    if patient.age_years is not None and not 0 <= patient.age_years <= 130:
        raise InputError(f"The age {patient.age_years:g} years is not a possible age.")


_SOURCE_ID = re.compile(r"^([A-Za-z][A-Za-z0-9-]*):(\S+)$")
_PMID = re.compile(r"^\s*PMID\s*:\s*0*(\d+)\s*$", re.IGNORECASE)
_CURIE_PREFIXES = {"PMID", "OMIM", "ORPHA", "MONDO", "HPO", "DECIPHER"}


def pubmed_id(reference_id: str) -> str | None:
    """A reference id written as the knowledge base cites publications ("PMID:15266616"), or
    None when it names no PubMed id. People and curation tools vary case, spacing and zero
    padding, and a spelling the knowledge base does not share would hide nothing."""
    m = _PMID.match(reference_id)
    return f"PMID:{m.group(1)}" if m else None


def source_ids(text: str) -> frozenset[str]:
    """Sources to leave out, as a clinician types them: "PMID:31021519, pmid:35190816 558".

    Separated by commas, semicolons or spaces; a bare number is a PubMed id; the usual
    prefixes are matched in any case (the knowledge base writes them in capitals).
    """
    ids: set[str] = set()
    bad: list[str] = []
    for token in re.split(r"[\s,;]+", text.strip()):
        if not token:
            continue
        if pmid := pubmed_id(f"PMID:{token}" if token.isdigit() else token):
            ids.add(pmid)
        elif m := _SOURCE_ID.match(token):
            prefix = m.group(1).upper() if m.group(1).upper() in _CURIE_PREFIXES else m.group(1)
            ids.add(f"{prefix}:{m.group(2)}")
        else:
            bad.append(token)
    if bad:
        raise InputError(
            f"Not a source id: {', '.join(bad[:5])}. Write sources as PMID:12345678, OMIM:154700 or ORPHA:558."
        )
    return frozenset(ids)


def check_max_hops(max_hops: int) -> None:
    if not 1 <= max_hops <= MAX_HOPS_LIMIT:
        raise InputError(f"The number of hops must be between 1 and {MAX_HOPS_LIMIT}, not {max_hops}.")


def understood(parsed: ParsedQuestion) -> bool:
    """Whether the question names anything the knowledge base can be searched for."""
    return bool(parsed.findings or parsed.diseases or parsed.genes)


_ASKED_ABOUT = {
    "features": "the features of {}",
    "genes": "the genes of {}",
    "inheritance": "the mode of inheritance of {}",
    "onset": "the age of onset of {}",
    "gene_diseases": "the diseases linked to {}",
    "compare": "how {} differ",
}


def asked_about(parsed: ParsedQuestion) -> str | None:
    """What a question that is not a differential asks, in words ("the mode of inheritance of
    Marfan syndrome"), for the page to show in place of the findings it has none of."""
    template = _ASKED_ABOUT.get(parsed.kind)
    names = parsed.genes if parsed.kind == "gene_diseases" else parsed.disease_mentions or parsed.diseases
    if template is None or not names:
        return None
    return template.format(" and ".join(names[:2]) if parsed.kind == "compare" else names[0])


def onset_line(parsed: ParsedQuestion) -> str | None:
    """How the onset was read, for the page and the export: "infantile onset (28 days to 1 year)"."""
    onset = parsed.onset
    if onset is None:
        return None
    if onset.low_years == onset.high_years:
        return onset.label
    if onset.high_years >= 120:  # "Adult onset" has no upper end
        return f"{onset.label} (from {_age_words(onset.low_years)})"
    return f"{onset.label} ({_age_words(onset.low_years)} to {_age_words(onset.high_years)})"


def _age_words(years: float) -> str:
    if years < 0:
        weeks = max(round((years * 365.25 + 280) / 7), 0)
        return f"{weeks} weeks of gestation" if weeks else "conception"
    if years == 0:
        return "birth"
    if years >= 1:
        return f"{years:g} year{'s' if years != 1 else ''}"
    days = round(years * 365.25)
    return f"{days} days" if days < 60 else f"{round(years * 12)} months"


def lab_value_lines(parsed: ParsedQuestion) -> list[str]:
    """How each laboratory value in the question was read, for the page and the export:
    "CK 20,000 U/L — high (above 300 U/L): Elevated circulating creatine kinase concentration"."""
    labels = {f.hpo_id: f.label for f in parsed.findings}
    lines = []
    for v in parsed.lab_values:
        if v.reading == "normal":
            lines.append(f"{v.mention} — {v.limit}")
        else:
            found = labels.get(v.hpo_id or "", "no HPO finding for it")
            lines.append(f"{v.mention} — {v.reading} ({v.limit}): {found}")
    return lines


def not_understood_answer(parsed: ParsedQuestion) -> str:
    lines = [
        "No clinical finding, disease or gene could be recognised in the question, "
        "so no diagnosis was attempted.",
        "Describe the patient's findings in English (for example: 'seizures, microcephaly and "
        "global developmental delay; no hearing loss') or use the structured patient form.",
    ]
    if parsed.warnings:
        lines.append("Not understood: " + "; ".join(parsed.warnings))
    return " ".join(lines)


def retrieval_query(parsed: ParsedQuestion) -> str:
    """The text the initial retrieval sends: the findings as understood for a diagnostic question.

    Built from the parsed findings, so a structured patient form and the equivalent free text
    send the very same query; other questions (genes of a disease, ...) go as written.
    """
    observed = [f.label for f in parsed.findings if not f.excluded]
    if parsed.kind != "diagnosis" or not observed:
        return parsed.text or ", ".join([*parsed.diseases, *parsed.genes])
    parts = ["Patient with " + ", ".join(observed)]
    if parsed.genes:
        parts.append("variants in " + ", ".join(parsed.genes))
    return "; ".join(parts)


def retrieval_seeds(parsed: ParsedQuestion) -> list[str]:
    """Entity ids the question names: observed findings and diseases."""
    return [f.hpo_id for f in parsed.findings if not f.excluded] + list(parsed.diseases)
