"""Free text → the pieces of a `ParsedQuestion`: HPO findings (with negation), age, sex,
onset, gene symbols, named diseases and the kind of question.

Findings are found by longest-match scanning of the text's word n-grams against a phrase
index of HPO labels and synonyms (lay synonyms included, a little clinical shorthand:
`shorthand.py`, and other wordings of the names: `name_variants.py`). Words are folded before both
indexing and scanning — lower case, accents and punctuation removed, cheap plural and
British-spelling folding ("seizures" → "seizure", "oedema" → "edema") — so the two sides
always agree. Acronym synonyms ("ASD", "ODD") only match when written in capitals, since
in lower case they are ordinary words. Text that no phrase covers can fall back to an
injected embedding search (the knowledge base's `entity_names` vectors in the product).

The question is treated as data from start to end: nothing in it changes what the linker
does, and text that looks like instructions only earns a warning.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from meddiag.diagnosis.ages import AGE_SEX, parse_age
from meddiag.diagnosis.experiencer import RELATIVES, relative_positions
from meddiag.diagnosis.lab_values import LabReading, UnreadLab, read_lab_values
from meddiag.diagnosis.name_overlap import NameOverlap
from meddiag.diagnosis.name_variants import (
    count_variants,
    immunoglobulin_variants,
    located_variants,
    proportion_variants,
    uninverted,
)
from meddiag.diagnosis.negation import Token, negated_positions
from meddiag.diagnosis.onset import parse_onset, when_only_spans, without_spans
from meddiag.diagnosis.shorthand import SHORTHAND
from meddiag.errors import InputError
from meddiag.knowledge.hpo import Ontology
from meddiag.schema import Finding, LabValue, ParsedQuestion, PatientInput, QuestionKind, Sex

MAX_QUESTION_CHARS = 20_000
MAX_PHRASE_TOKENS = 16

EmbedSearch = Callable[[str], list[tuple[str, float]]]

_WORD = re.compile(r"\w+", re.UNICODE)
_HPO_ID = re.compile(r"\bHP:\d{7}\b", re.IGNORECASE)
_HARD_BREAK = re.compile(r"[.;:!?\n\u2022]")
_SOFT_BREAK = re.compile(r"[,()\[\]/]")
_COLON_ONLY = re.compile(r"\s*:\s*")
_INNER_COLON = re.compile(r"\w\s*:\s*\w")  # a colon between two words of a name


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


# Single words that are too common in ordinary prose to stand for a phenotype on their own.
_AMBIGUOUS_SINGLE = frozenset({"cutting", "hopping", "jumping", "corn", "falls", "trance", "inertia"})
# Words that carry no clinical content: a fragment made only of these is not sent to embedding search
# ("since infancy", "onset at 4 months" describe when, not what; "after fasting", "worse during
# illness" the circumstances of a finding named elsewhere; "progressive", "bilateral" alone qualify
# a finding the phrase index already read).
_NON_CLINICAL = (
    frozenset(
        _words(
            """a an the and or of in on at to for from by as is are was were be been being this that these
    those it its he she his her him they their them patient patients child children case proband
    boy girl man woman male female son daughter infant baby newborn neonate toddler adult adolescent
    year years yr yrs month months week weeks day days old aged age presents presented presenting
    history family mother father parents sibling brother sister also very mild severe some several
    noted found seen observed reported has have had with without no not denies negative showed shows
    who which what when where how why does do did can could would should may might diagnosis differential
    likely possible most disease diseases syndrome condition please ignore previous instructions
    differ differs difference differences distinguish distinguishes compare comparison versus vs
    gene genes genetic associated association features feature symptoms symptom signs sign
    characteristic characteristics manifestations phenotype phenotypes cause causes caused between
    like unlike similar than since onset began begin begins started start starts beginning until ago
    after before during early late birth infancy childhood adolescence adulthood
    fasting exercise exertion meal meals eating feeding feeds illness worse better worsening triggered
    provoked precipitated puberty young teenage teenager elderly person individual subject
    later now then currently recently subsequently initially eventually show shows showed shown
    reveal reveals revealed demonstrate demonstrates demonstrated
    progressive progressively slowly rapidly recurrent intermittent episodic chronic acute
    congenital bilateral unilateral generalized marked moderate profound"""
        )
    )
    | RELATIVES
)
# A fragment stating that something is normal ("MRI normal", "unremarkable EEG") describes no
# abnormality, so it is not guessed at however close its vectors come to some HPO term.
_NORMALITY = frozenset(_words("normal normally unremarkable healthy unaffected"))
# Words giving a measured finding's direction. The name vectors hardly tell "decreased" from
# "increased", so an approximate match never turns one into the other.
_LOWER_WORDS = frozenset(_words("decreased reduced low lower diminished"))
_HIGHER_WORDS = frozenset(_words("increased elevated high higher raised"))


def _direction(words: Iterable[str]) -> int:
    """-1 for a lowered finding, 1 for a raised one, 0 for neither (or both)."""
    present = {w.lower() for w in words}
    down, up = bool(present & _LOWER_WORDS), bool(present & _HIGHER_WORDS)
    return 0 if down == up else -1 if down else 1


_ENGLISH = frozenset(
    _words(
        """a an the and or of in on at to for from by with without as is are was were be been has have had
    he she his her him they their who which what when where how why this that these those it its no not
    nor but also very what's which's presents presented presenting patient year years old month months
    boy girl man woman child infant newborn denies showed shows history family could might likely
    diagnosis differential genes gene associated features symptoms differ difference between"""
    )
)
_INSTRUCTION_LIKE = re.compile(
    r"ignore (all |any )?(the )?(previous|prior|above|earlier) (instructions|prompts?|rules)"
    r"|disregard (all |any )?(the )?(previous|prior|above|earlier)"
    r"|system prompt|you are now|act as (a|an) |new instructions|jailbreak|developer mode",
    re.IGNORECASE,
)

_FEMALE_NOUNS = frozenset({"girl", "woman", "female", "daughter", "lady", "women", "girls"})
_MALE_NOUNS = frozenset({"boy", "man", "male", "son", "gentleman", "men", "boys"})
_FEMALE_PRONOUNS = frozenset({"she", "her", "hers", "herself"})
_MALE_PRONOUNS = frozenset({"he", "him", "his", "himself"})

_COMPARE_CUE = re.compile(
    r"\b(differs?|difference|differences|distinguish(?:es|ing)?|differentiat(?:e|es|ing)|versus|vs"
    r"|compared?|comparing|comparison)\b"
)
# Words reporting a variant: a gene named beside one (`reported_variants`) ranks its diseases first.
_VARIANT_CUE = re.compile(
    r"\b(variants?|mutations?|mutated|pathogenic|(compound )?heterozygous|homozygous|hemizygous|de novo"
    r"|frameshift|missense|nonsense|splice|truncating|deletions?|duplications?|genetic testing|sequencing"
    r"|exome|genome)\b",
    re.IGNORECASE,
)
VARIANT_REACH = 15  # characters between a gene symbol and a variant word ("a variant in the gene TGFBR2")
_SENTENCE_END = re.compile(r"[.;!?\n]+(?:\s|$)")
_GENES_CUE = re.compile(r"\b(genes?|genetic (cause|basis)|mutations? in|variants? in|causal|causative)\b")
_FEATURES_CUE = re.compile(
    r"\b(features?|symptoms?|signs?|phenotypes?|manifestations?|characteristics?|findings|"
    r"clinical picture|presentation|look like)\b"
)
_DIAGNOSIS_CUE = re.compile(r"\b(diagnos\w*|differential|what (could|might) (this|it) be)\b")
_INHERITANCE_CUE = re.compile(
    r"\b(inherit\w*|transmitted|transmission|autosomal|x-linked|recessive|dominant)\b"
)
_ONSET_CUE = re.compile(
    r"\b(onset|age at|start|starts|begin|begins|appear|appears|first (signs?|symptoms?))\b"
)

_ID_PREFIX_ORDER = {"OMIM": 0, "ORPHA": 1, "MONDO": 2, "DECIPHER": 3}


# Plurals the suffix rules below cannot fold ("calves" is not "calve").
_IRREGULAR_PLURALS = {"calves": "calf", "feet": "foot", "teeth": "tooth", "halves": "half"}
# Spellings in common use that the rules below do not bring together (after "ae" → "e"): HPO
# labels HP:0011410 "Caesarian section", clinicians write "caesarean" or "cesarean".
_VARIANT_SPELLINGS = {"cesarian": "cesarean"}


@lru_cache(maxsize=65536)
def fold_word(word: str) -> str:
    """Lower-case, strip accents, fold plurals and British spellings, so index and text agree."""
    w = word.lower()
    if w in _IRREGULAR_PLURALS:
        return _IRREGULAR_PLURALS[w]
    if not w.isascii():
        w = "".join(c for c in unicodedata.normalize("NFKD", w) if not unicodedata.combining(c))
    if len(w) > 4:
        if "ae" in w:
            w = w.replace("ae", "e")  # anaemia, haemorrhage, paediatric, leukaemia
        if w.startswith(("oe", "foe")) or "rrhoe" in w:
            # oedema, foetal, diarrhoea
            w = w.replace("oe", "e", 1) if not w.startswith("foe") else "fe" + w[3:]
        if len(w) > 5 and w.endswith("our"):
            w = w[:-3] + "or"  # tumour, behaviour, colour
        w = _VARIANT_SPELLINGS.get(w, w)
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        if w.endswith("ies") and len(w) > 4:
            w = w[:-3] + "y"
        elif w.endswith(("xes", "ches", "shes", "sses")):
            w = w[:-2]
        else:
            w = w[:-1]
    return w


def tokenize(text: str) -> list[Token]:
    """Words of `text` with their positions and the breaks (punctuation) before each."""
    tokens: list[Token] = []
    prev_end = 0
    for m in _WORD.finditer(text):
        start, end = m.span()
        gap = text[prev_end:start] if tokens else ""
        plain = not gap or gap == " "
        raw = m.group(0)
        tokens.append(
            Token(
                fold_word(raw),
                raw.lower(),
                raw,
                start,
                end,
                not plain and bool(_HARD_BREAK.search(gap)),
                # a slash inside a compound ("anti-CD3/CD28-induced") joins, with spaces it separates
                not plain and gap != "/" and bool(_SOFT_BREAK.search(gap)),
                not plain and bool(_COLON_ONLY.fullmatch(gap)),
            )
        )
        prev_end = end
    return tokens


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the sentences of `text`: they end at ``. ; ! ?`` or a line break
    followed by a space or the end (so "3.5 kg" stays whole), and a ":" does not end one."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _SENTENCE_END.finditer(text):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(text)))
    return [(s, e) for s, e in spans if text[s:e].strip()]


def _instruction_tokens(text: str, tokens: Sequence[Token]) -> set[int]:
    """Positions of the tokens in sentences that read like instructions to the system."""
    flagged = [(s, e) for s, e in sentence_spans(text) if _INSTRUCTION_LIKE.search(text[s:e])]
    return {k for k, tok in enumerate(tokens) if any(s <= tok.start < e for s, e in flagged)}


def phrase_key(text: str) -> tuple[str, ...]:
    return tuple(fold_word(m.group(0)) for m in _WORD.finditer(text))


@dataclass(frozen=True)
class PhraseEntry:
    """One indexed phrase: which id it stands for and how it was matched."""

    kind: str  # "phenotype" | "disease"
    id: str
    match: str  # "exact" | "synonym"
    label: str
    required_raw: tuple[str, ...] | None = None  # acronyms: exact capitals required


@dataclass
class Span:
    """A matched phrase in the text."""

    start: int  # token positions [start, end)
    end: int
    entries: list[PhraseEntry]


@dataclass
class LinkedText:
    """What scanning found, before it is turned into a `ParsedQuestion`."""

    findings: list[Finding] = field(default_factory=list)
    disease_ids: list[str] = field(default_factory=list)
    disease_mentions: list[str] = field(default_factory=list)
    genes: list[str] = field(default_factory=list)
    lab_values: list[LabValue] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    covered_tokens: int = 0
    tokens: int = 0


def _is_acronym(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    return bool(letters) and len(text) <= 6 and all(c.isupper() for c in letters) and " " not in text


def _entry_rank(e: PhraseEntry) -> tuple[int, int, str]:
    prefix = e.id.split(":", 1)[0]
    return (0 if e.match == "exact" else 1, _ID_PREFIX_ORDER.get(prefix, 9), e.id)


_NON_CLINICAL_FOLDED = frozenset(fold_word(w) for w in _NON_CLINICAL)


class PhraseLinker:
    """Links findings, diseases and genes in free text; build once per process (~1 s on full HPO)."""

    def __init__(
        self,
        ontology: Ontology,
        *,
        diseases: Mapping[str, Sequence[str]] | None = None,
        genes: Iterable[str] = (),
        embed_search: EmbedSearch | None = None,
        embed_threshold: float = 0.8,
        lexical_weight: float = 0.5,
        cover_threshold: float = 0.7,
        rare_names: int = 50,
        word_share: float = 0.7,
    ) -> None:
        self.ontology = ontology
        self.embed_search = embed_search
        self.embed_threshold = embed_threshold
        # A name holding every word of the fragment is taken from this similarity up, and
        # before any name that misses one of its words.
        self.cover_threshold = cover_threshold
        # The share of the name overlap (0-1) added to a fallback hit's vector similarity.
        self.lexical_weight = lexical_weight
        # A word used by at most `rare_names` phenotype names is one of a fragment's telling
        # words; a term found by those words (not by its vector) needs `word_share` of the
        # fragment's weighted words.
        self.rare_names = rare_names
        self.word_share = word_share
        self._phrases: dict[tuple[str, ...], list[PhraseEntry]] = {}
        self._punctuated: set[tuple[str, ...]] = set()  # phrases written with a comma or bracket
        self._colon: set[tuple[str, ...]] = set()  # phrases written with a colon between two words
        self.disease_names: dict[str, str] = {}
        for tid in ontology.phenotype_ids:
            term = ontology.terms[tid]
            self._add(term.name, PhraseEntry("phenotype", tid, "exact", term.name))
            for syn in term.synonyms:
                self._add(syn, PhraseEntry("phenotype", tid, "synonym", term.name))
        for written, tid in SHORTHAND.items():
            if tid in ontology.phenotype_ids:
                self._add(written, PhraseEntry("phenotype", tid, "synonym", ontology.terms[tid].name))
        self._add_variants(ontology)
        for did, names in (diseases or {}).items():
            if not names:
                continue
            self.disease_names[did] = names[0]
            for k, name in enumerate(names):
                if _is_acronym(name):
                    continue  # disease acronyms collide with too many words and genes
                self._add(name, PhraseEntry("disease", did, "exact" if k == 0 else "synonym", names[0]))
        for entries in self._phrases.values():
            entries.sort(key=_entry_rank)
        # per kind: first word -> longest phrase of that kind starting with it
        self._first: dict[str, dict[str, int]] = {"phenotype": {}, "disease": {}}
        for phrase, entries in self._phrases.items():
            for kind in {e.kind for e in entries}:
                first = self._first[kind]
                first[phrase[0]] = max(first.get(phrase[0], 0), len(phrase))
        self._vocabulary = frozenset(w for phrase in self._phrases for w in phrase)
        self._name_overlap = NameOverlap(
            ontology,
            (p for p, entries in self._phrases.items() if any(e.kind == "phenotype" for e in entries)),
            phrase_key,
        )
        self.genes = frozenset(g for g in genes if len(g) >= 2 and any(c.isalpha() for c in g))
        self._genes_upper = frozenset(g.upper() for g in self.genes)

    def _add_variants(self, ontology: Ontology) -> None:
        """Prose-order and plainer wordings of the curated names and shorthand (`name_variants`),
        added after them: a variant that one of them already uses, or that two terms would
        share, is left out."""
        found: dict[tuple[str, ...], tuple[str, set[str]]] = {}  # key -> (a wording, terms producing it)
        for tid in ontology.phenotype_ids:
            term = ontology.terms[tid]
            for name in (term.name, *term.synonyms):
                inverted = uninverted(name)
                for variant in [
                    *([inverted] if inverted else []),
                    *count_variants(name),
                    *located_variants(name),
                    *proportion_variants(name),
                    *immunoglobulin_variants(name),
                ]:
                    key = phrase_key(variant)
                    if key and key not in self._phrases:
                        found.setdefault(key, (variant, set()))[1].add(tid)
        for variant, tids in found.values():
            if len(tids) == 1:
                (tid,) = tids
                self._add(variant, PhraseEntry("phenotype", tid, "synonym", ontology.terms[tid].name))

    def _add(self, text: str, entry: PhraseEntry) -> None:
        key = phrase_key(text)
        if not key or len(key) > MAX_PHRASE_TOKENS:
            return
        if len(key) == 1 and (
            key[0] in _AMBIGUOUS_SINGLE or key[0] in _NON_CLINICAL_FOLDED or key[0].isdigit()
        ):
            return
        if _is_acronym(text):
            entry = PhraseEntry(entry.kind, entry.id, entry.match, entry.label, tuple(text.split()))
        elif entry.kind == "disease" and len(key) == 1 and len(key[0]) < 5:
            return
        if _SOFT_BREAK.search(text) and entry.match == "exact":
            # Only curated labels: punctuated synonyms are often inverted forms ("Hypotonia,
            # generalized") that would glue two items of a comma-separated list together.
            self._punctuated.add(key)
        if _INNER_COLON.search(text):
            self._colon.add(key)
        bucket = self._phrases.setdefault(key, [])
        if all(e.id != entry.id or e.kind != entry.kind for e in bucket):
            bucket.append(entry)

    # ------------------------------------------------------------------ scanning

    def _spans(self, tokens: Sequence[Token], skip: set[int], kind: str) -> list[Span]:
        """Longest matches of one kind; phenotypes and diseases are scanned separately so that a
        long disease name never hides the findings inside it."""
        spans: list[Span] = []
        norms = [t.norm for t in tokens]
        first = self._first[kind]
        i, n = 0, len(tokens)
        while i < n:
            longest = first.get(norms[i], 0)
            if i in skip or not longest:
                i += 1
                continue
            limit = i + 1
            while (
                limit < n
                and limit - i < longest
                and limit not in skip
                and (not tokens[limit].boundary_before or tokens[limit].colon_before)
            ):
                limit += 1
            found: Span | None = None
            for end in range(limit, i, -1):
                key = tuple(norms[i:end])
                entries = self._phrases.get(key)
                if not entries:
                    continue
                # A comma or bracket inside the span only counts when the indexed phrase has one
                # there too ("Intellectual disability, mild"); otherwise it separates findings.
                if key not in self._punctuated and any(t.comma_before for t in tokens[i + 1 : end]):
                    continue
                # Likewise a colon, a sentence break unless the name has one there.
                if key not in self._colon and any(t.colon_before for t in tokens[i + 1 : end]):
                    continue
                raw = tuple(t.raw for t in tokens[i:end])
                usable = [
                    e for e in entries if e.kind == kind and (e.required_raw is None or e.required_raw == raw)
                ]
                if usable:
                    found = Span(i, end, usable)
                    break
            if found is None:
                i += 1
                continue
            spans.append(found)
            i = found.end
        return spans

    def link(
        self, text: str, tokens: Sequence[Token] | None = None, *, approximate: bool = False
    ) -> LinkedText:
        """Scan `text` once: findings (negation-aware), disease mentions, gene symbols.

        `approximate` also sends uncovered fragments to the embedding search: meant for the
        question (a handful of fragments), not for retrieved passages (hundreds of searches).
        """
        out = LinkedText()
        tokens = tokenize(text) if tokens is None else tokens
        out.tokens = len(tokens)
        id_tokens: set[int] = set()
        id_mentions: list[tuple[int, str]] = []
        for m in _HPO_ID.finditer(text):
            first = next((k for k, t in enumerate(tokens) if t.start >= m.start()), None)
            if first is None:
                continue
            id_tokens.update(k for k, t in enumerate(tokens) if m.start() <= t.start < m.end())
            id_mentions.append((first, m.group(0).upper()))
        # Numbers read against reference limits (the question only): their words are not read
        # again by the phrase index or the embedding search ("glucose 30 mg/dL" is not "Glucose
        # intolerance"), whether or not the value could be read.
        labs = [
            ([k for k, t in enumerate(tokens) if item.start <= t.start < item.end], item)
            for item in (read_lab_values(text) if approximate else ())
        ]
        for positions, _ in labs:
            id_tokens.update(positions)
        spans = self._spans(tokens, id_tokens, "phenotype")
        disease_spans = self._spans(tokens, id_tokens, "disease")
        covered = set(id_tokens)
        for s in [*spans, *disease_spans]:
            covered.update(range(s.start, s.end))
        out.covered_tokens = len(covered)
        negated = negated_positions(tokens, covered)
        relatives = relative_positions(tokens, covered)

        findings: list[tuple[int, Finding]] = []
        for pos, hid in id_mentions:
            if pos in relatives:
                out.warnings.append(_relative_warning(hid, relatives[pos]))
                continue
            current = self.ontology.resolve(hid)
            if current is None:
                out.warnings.append(f"{hid} is not a current HPO term and was ignored.")
                continue
            label = self.ontology.label(current)
            findings.append(
                (pos, Finding(hpo_id=current, label=label, excluded=pos in negated, mention=hid, match="id"))
            )
        for positions, item in labs:
            if isinstance(item, UnreadLab):
                out.warnings.append(item.reason)
            elif positions[0] in relatives:
                out.warnings.append(_relative_warning(item.mention, relatives[positions[0]]))
            else:
                value, finding = self._lab_value(item)
                out.lab_values.append(value)
                if finding is not None:
                    findings.append((positions[0], finding))
        for s in disease_spans:
            out.disease_ids.append(s.entries[0].id)
            out.disease_mentions.append(text[tokens[s.start].start : tokens[s.end - 1].end])
        for s in spans:
            mention = text[tokens[s.start].start : tokens[s.end - 1].end]
            if s.start in relatives:
                out.warnings.append(_relative_warning(mention, relatives[s.start]))
                continue
            if s.entries:
                e = s.entries[0]
                others = [x for x in s.entries[1:] if x.match == e.match]
                if others:
                    out.warnings.append(
                        f"'{mention}' may mean {e.label} or {others[0].label}; {e.label} was used."
                    )
                findings.append(
                    (
                        s.start,
                        Finding(
                            hpo_id=e.id,
                            label=e.label,
                            excluded=any(k in negated for k in range(s.start, s.end)),
                            mention=mention,
                            match="exact" if e.match == "exact" else "synonym",
                            confidence=(1.0 if e.match == "exact" else 0.95) * (0.5 if others else 1.0),
                        ),
                    )
                )
        if approximate and self.embed_search is not None:
            # Words of a sentence that reads like instructions to the system are not guessed at:
            # "print your system prompt" is not a clinical finding however close its vectors come.
            # Nor are the words of a phrase that says only when the illness began.
            when = when_only_spans(text)
            skip = covered | _instruction_tokens(text, tokens) | set(relatives)
            skip |= {k for k, t in enumerate(tokens) if any(s <= t.start < e for s, e in when)}
            findings.extend(self._embedding_findings(text, tokens, skip, negated, out.warnings))
        findings.sort(key=lambda pf: pf[0])
        out.findings = _dedupe(findings, out.warnings)
        for k, tok in enumerate(tokens):
            if (
                k not in covered
                and tok.raw in self.genes
                and tok.raw not in out.genes
                and not tok.raw.islower()
            ):
                out.genes.append(tok.raw)
        return out

    def _lab_value(self, item: LabReading) -> tuple[LabValue, Finding | None]:
        """The value as the question reports it, and the finding it becomes when abnormal."""
        current = self.ontology.resolve(item.hpo_id) if item.hpo_id else None
        value = LabValue.model_validate(item.model_dump(exclude={"start", "end"}) | {"hpo_id": current})
        if current is None:
            return value, None
        return value, Finding(
            hpo_id=current, label=self.ontology.label(current), mention=item.mention, match="lab"
        )

    def _embedding_findings(
        self, text: str, tokens: Sequence[Token], covered: set[int], negated: set[int], warnings: list[str]
    ) -> list[tuple[int, Finding]]:
        """Approximate matches for uncovered fragments that still carry clinical words."""
        assert self.embed_search is not None
        out: list[tuple[int, Finding]] = []
        fragment: list[int] = []

        def flush() -> None:
            content = [  # "8yo", "17F", "3" carry an age or a count, not a finding
                k
                for k in fragment
                if tokens[k].lower not in _NON_CLINICAL and not tokens[k].lower[:1].isdigit()
            ]
            states_normal = any(tokens[k].lower in _NORMALITY for k in fragment)
            if (
                any(len(tokens[k].lower) >= 3 for k in content)  # not a stray "L" or "a"
                and len(fragment) <= 8
                and not states_normal
                and tokens[content[0]].raw not in self.genes
            ):
                first, last = fragment[0], fragment[-1]
                phrase = text[tokens[first].start : tokens[last].end]
                words = [tokens[k].norm for k in content]
                best = self._closest_term(phrase, [tokens[k].lower for k in fragment], words)
                if best is not None:
                    current, score, kind = best
                    label = self.ontology.label(current)
                    why = (
                        f"similarity {score:.2f}"
                        if kind == "embedding"
                        else "it shares the phrase's rarest words"
                    )
                    warnings.append(
                        f"'{phrase}' was matched approximately to the HPO term '{label}' ({why}); please check it."
                    )
                    out.append(
                        (
                            first,
                            Finding(
                                hpo_id=current,
                                label=label,
                                excluded=any(k in negated for k in fragment),
                                mention=phrase,
                                match=kind,
                                confidence=round(float(score), 3),
                            ),
                        )
                    )
            fragment.clear()

        for k, tok in enumerate(tokens):
            is_break = tok.boundary_before or tok.comma_before
            connector = tok.lower in {"and", "or", "with", "without", "but", "no", "not", "denies", "nor"}
            if k in covered or connector or (is_break and fragment):
                flush()
            if k not in covered and not connector:
                fragment.append(k)
        flush()
        return out

    def _closest_term(
        self, phrase: str, lowered: Sequence[str], words: Sequence[str]
    ) -> tuple[str, float, Literal["embedding", "fuzzy"]] | None:
        """The HPO term an uncovered fragment most likely names: its nearest name vectors, and
        the terms whose names hold the fragment's rarest words (which the vectors can lose:
        "absent circulating isohemagglutinin" lies nearest to Absent circulating B cells).
        Returns the term, a confidence and how it was found; None when nothing is close."""
        assert self.embed_search is not None
        direction = _direction(lowered)
        numbers = {w for w in lowered if w.isdigit()}
        hits = [
            (current, score, "embedding")
            for hid, score in self.embed_search(phrase)
            if (current := self.ontology.resolve(hid)) in self.ontology.phenotype_ids
            and score >= self.cover_threshold
        ]
        # One word alone is too little to go on: on the dev vignettes, single words read this
        # way were mostly wrong ("on OCT" as Abnormal retinal morphology on macular OCT).
        telling = (
            set(self._name_overlap.holding_rare(words, self.rare_names)) if len(set(words)) > 1 else set()
        )
        near = {t for t, _, _ in hits}
        hits += [(t, 0.0, "fuzzy") for t in sorted(telling - near)]
        hits = [h for h in hits if self._agrees(h[0], direction, numbers)]
        names = {t: self._name_overlap.measure(t, words) for t, _, _ in hits}
        # Below `embed_threshold` only a name holding every word of the fragment is taken, and
        # a term sharing no word (or stem) with it is a guess too far: on the dev vignettes
        # these were all wrong ("8yo" → Oocyte maturation arrest, "later" → Peg-shaped
        # maxillary lateral incisors). A term found by its words needs most of them.
        hits = [
            h
            for h in hits
            if names[h[0]].share > 0
            and (
                names[h[0]].covers
                or (h[2] == "embedding" and h[1] >= self.embed_threshold)
                or (h[0] in telling and names[h[0]].share >= self.word_share)
            )
        ]
        if not hits:
            return None
        # A name holding all the fragment's words comes first ("calf pseudohypertrophy" is Calf
        # muscle pseudohypertrophy, though the vectors put Labial pseudohypertrophy far
        # closer); then one holding its rarest words; then, among close vectors, a term whose
        # name shares the fragment's telling words gains.
        current, score, kind = max(
            hits,
            key=lambda h: (
                names[h[0]].covers,
                h[0] in telling,
                (h[1] or self.cover_threshold) + self.lexical_weight * names[h[0]].share,
            ),
        )
        if kind == "fuzzy":
            score = names[current].share
        return current, score, "fuzzy" if kind == "fuzzy" else "embedding"

    def _agrees(self, term_id: str, direction: int, numbers: set[str]) -> bool:
        """Whether an approximate match keeps the fragment's direction and numbers: the name
        vectors hardly tell "decreased" from "increased" or growth factor 1 from 2."""
        words = self.ontology.label(term_id).split()
        if direction and _direction(words) == -direction:
            return False
        named = {w for w in words if w.isdigit()}
        return not (numbers and named and numbers != named)

    # ------------------------------------------------------------------ the question

    def parse_question(self, question: str, patient: PatientInput | None = None) -> ParsedQuestion:
        """The full `ParsedQuestion` for free text, optionally merged with structured input."""
        text = question or ""
        if len(text) > MAX_QUESTION_CHARS:
            raise InputError(
                f"The question is {len(text):,} characters long; please shorten it to at most "
                f"{MAX_QUESTION_CHARS:,} characters (the key findings, age and sex are enough)."
            )
        if not text.strip() and (
            patient is None or not (patient.observed or patient.excluded or patient.note)
        ):
            raise InputError("The question is empty: describe the patient's findings or ask about a disease.")
        if patient is not None and patient.note.strip():
            text = f"{text}\n{patient.note}".strip()
        tokens = tokenize(text)
        linked = self.link(text, tokens, approximate=True)
        warnings = list(linked.warnings)
        findings = linked.findings
        onset, onset_spans = parse_onset(text)
        age = parse_age(without_spans(text, onset_spans))  # "onset at 3 months" is not the age
        sex = parse_sex(tokens)
        genes = list(linked.genes)
        lab_values = list(linked.lab_values)
        if patient is not None:
            findings = _dedupe(
                [(0, f) for f in self._structured_findings(patient, warnings, lab_values)]
                + [(1, f) for f in findings],
                warnings,
            )
            age = patient.age_years if patient.age_years is not None else age
            onset = patient.onset if patient.onset is not None else onset
            sex = patient.sex if patient.sex is not None else sex
            genes = list(dict.fromkeys([*patient.genes, *genes]))
            warnings.extend(
                f"{g} is not a gene the knowledge base links to a disease, so it does not change the ranking."
                for g in patient.genes
                if g.upper() not in self._genes_upper
            )
        variant_genes = list(
            dict.fromkeys(
                [*(patient.genes if patient is not None else []), *reported_variants(text, linked.genes)]
            )
        )
        kind = question_kind(text, findings, linked.disease_ids, genes, linked.disease_mentions)
        diseases = list(dict.fromkeys(linked.disease_ids))
        if kind == "diagnosis":
            diseases = []  # a disease name inside a vignette is history, not the subject of the question
        if _INSTRUCTION_LIKE.search(text):
            warnings.append(
                "Part of the question reads like instructions to the system; it was treated as patient "
                "text only and not followed."
            )
        if self._looks_non_english(text):
            warnings.append(
                "The question does not look like English; only recognisable English medical terms and "
                "HPO ids were used."
            )
        if not findings and kind in ("diagnosis", "unknown"):
            warnings.append(
                "No recognisable clinical finding: describe the patient's signs and symptoms "
                "(e.g. 'seizures', 'short stature') or give HPO ids such as HP:0001250."
            )
        return ParsedQuestion(
            text=question.strip() if question and question.strip() else text or "Structured patient input",
            kind=kind,
            findings=findings,
            age_years=age,
            sex=sex,
            onset=onset,
            genes=genes,
            variant_genes=variant_genes,
            diseases=diseases,
            disease_mentions=list(dict.fromkeys(linked.disease_mentions)) if diseases else [],
            lab_values=lab_values,
            warnings=warnings,
        )

    def _structured_findings(
        self, patient: PatientInput, warnings: list[str], lab_values: list[LabValue]
    ) -> list[Finding]:
        out: list[Finding] = []
        for items, excluded in ((patient.observed, False), (patient.excluded, True)):
            for item in items:
                item = item.strip()
                if _HPO_ID.fullmatch(item):
                    current = self.ontology.resolve(item.upper())
                    if current is None:
                        warnings.append(f"{item} is not a current HPO term and was ignored.")
                        continue
                    label = self.ontology.label(current)
                    out.append(
                        Finding(hpo_id=current, label=label, excluded=excluded, mention=item, match="id")
                    )
                    continue
                scanned = self.link(item, approximate=True)
                lab_values.extend(scanned.lab_values)  # a value typed in the form: "CK 20,000 U/L"
                warnings.extend(scanned.warnings)  # an approximate match, a value without its unit
                linked = scanned.findings
                if not linked and not scanned.lab_values and not scanned.warnings:
                    warnings.append(f"'{item}' could not be linked to an HPO term and was ignored.")
                out.extend(f.model_copy(update={"excluded": excluded}) for f in linked)
        return out

    def _looks_non_english(self, text: str) -> bool:
        words = [w for w in _WORD.findall(text) if w.isalpha()]
        if len(words) < 4:
            return False
        non_ascii = sum(1 for w in words if not w.isascii())
        known = sum(1 for w in words if w.lower() in _ENGLISH or fold_word(w) in self._vocabulary)
        return non_ascii / len(words) > 0.3 or known / len(words) < 0.5

    def label(self, entity_id: str) -> str:
        """A readable name for an HPO term or a disease id (the id itself when unknown)."""
        if entity_id in self.disease_names:
            return self.disease_names[entity_id]
        return self.ontology.label(entity_id)


def _relative_warning(mention: str, who: str) -> str:
    if who == "family history":
        return f"'{mention}' was read as family history and left out of the patient's findings."
    return f"'{mention}' seems to describe the patient's {who}, so it was left out of the patient's findings."


def _dedupe(findings: list[tuple[int, Finding]], warnings: list[str]) -> list[Finding]:
    """One finding per HPO term; the first mention wins and a contradiction is reported."""
    seen: dict[str, Finding] = {}
    for _, f in findings:
        prior = seen.get(f.hpo_id)
        if prior is None:
            seen[f.hpo_id] = f
        elif prior.excluded != f.excluded:
            warnings.append(
                f"'{f.label}' is both reported and denied in the question; it was kept as "
                f"{'absent' if prior.excluded else 'present'} (first mention)."
            )
    return list(seen.values())


def reported_variants(text: str, genes: Sequence[str]) -> list[str]:
    """The genes named beside a variant ("a de novo variant in STXBP1", "FBN1 mutation", "variants
    in COL1A1 and COL1A2"): within `VARIANT_REACH` characters of a variant word in the same
    sentence, or of a gene already found so (a list of genes)."""
    named = set(genes)
    found: list[str] = []
    for start, end in sentence_spans(text):
        sentence = text[start:end]
        reach = [m.span() for m in _VARIANT_CUE.finditer(sentence)]
        if not reach:
            continue
        # Words as the linker reads them, so a mention here is a mention there.
        mentions = [(t.start, t.end, t.raw) for t in tokenize(sentence) if t.raw in named]
        grew = True
        while grew:
            grew = False
            for start, end, g in mentions:
                near = any(start - e <= VARIANT_REACH and s0 - end <= VARIANT_REACH for s0, e in reach)
                if near and (start, end) not in reach:
                    reach.append((start, end))
                    found.append(g)
                    grew = True
    return list(dict.fromkeys(found))


def parse_sex(tokens: Sequence[Token]) -> Sex | None:
    """Sex from the first sex noun ("girl", "man"); else from pronouns when they all agree."""
    for tok in tokens:
        w = tok.raw.lower()
        if (short := AGE_SEX.fullmatch(tok.raw)) is not None:
            return "female" if short.group(2) == "F" else "male"
        if w in _FEMALE_NOUNS:
            return "female"
        if w in _MALE_NOUNS:
            return "male"
    female = sum(1 for t in tokens if t.raw.lower() in _FEMALE_PRONOUNS)
    male = sum(1 for t in tokens if t.raw.lower() in _MALE_PRONOUNS)
    if female and not male:
        return "female"
    if male and not female:
        return "male"
    return None


def question_kind(
    text: str,
    findings: Sequence[Finding],
    disease_ids: Sequence[str],
    genes: Sequence[str] = (),
    disease_mentions: Sequence[str] = (),
) -> QuestionKind:
    """diagnosis / genes / features / inheritance / onset / gene_diseases / compare / unknown,
    from cue words and what was linked."""
    low = text.lower()
    distinct = list(dict.fromkeys(disease_ids))
    has_findings = any(not f.excluded for f in findings)
    # "muscular dystrophy" in "Duchenne muscular dystrophy" is the disease's name, not the patient's
    names = [m.lower() for m in disease_mentions]
    own_findings = any(
        not f.excluded and not any(f.mention and f.mention.lower() in n for n in names) for f in findings
    )
    if distinct:
        if len(distinct) >= 2 and _COMPARE_CUE.search(low):
            return "compare"
        diagnosis_cue = bool(_DIAGNOSIS_CUE.search(low))
        # Findings and a request for a diagnosis: a gene or a disease named on the way ("a
        # variant in STXBP1 was found", a finding that is also a disease's name) is part of the case.
        if _GENES_CUE.search(low) and not (diagnosis_cue and has_findings):
            return "genes"
        if not own_findings and not diagnosis_cue:  # "onset" in a vignette describes the patient
            if _INHERITANCE_CUE.search(low):
                return "inheritance"
            if _ONSET_CUE.search(low):
                return "onset"
        if _FEATURES_CUE.search(low) and not diagnosis_cue:
            return "features"
    if has_findings:
        return "diagnosis"
    if distinct and _COMPARE_CUE.search(low):
        return "compare"
    if genes and not distinct:  # only a gene: the diseases it is linked to
        return "gene_diseases"
    return "unknown"
