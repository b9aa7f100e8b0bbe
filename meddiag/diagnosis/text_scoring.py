"""Score diseases from text passages (MONDO descriptions, disease profiles) against the patient's findings.

Where the graph is thin — a disease whose curated features were all left out, or one known
only by its description — the semantic channel's passages can still name the findings.
Each passage is compared with the finding labels by TF-IDF cosine (word uni- and bigrams,
IDF over the passages at hand, so words every passage shares count little); a disease
scores its best passage. Excluded findings are not used: a passage mentioning a feature
says nothing about whether the patient lacks it.

Measured (``python bench/rank_accuracy.py --limit 2000 --text-weights 0 0.1 0.2 0.3``:
the ranker's top 50 re-ranked with `fuse_scores` against the MONDO descriptions of those
candidates, 1,590 in-KB cases, leave-publication-out): top-1 41.9 % → 43.7 % at weight
0.1 (43.4 % at 0.2, 42.6 % at 0.3), top-10 unchanged (63.9 % → 63.7 %), MRR 0.496 → 0.505.
A small, consistent gain at the top; use a semantic weight near 0.1. Re-measured once the
ranker borrowed from phenotypic-series siblings (same sample): top-1 44.8 % → 45.2 % at
0.1 and 0.2, top-3 56.6 % → 57.5 % at 0.1, top-10 68.2 % → 68.4 %, MRR 0.526 → 0.531 —
still positive but smaller, since the siblings now rescue much of what the text did;
heavier weights hurt (top-1 43.5 % at 0.35, 34.7 % at 0.5). With the exact-term bonus in
the ranker (same sample, ``--text-weights 0 0.05 0.1 0.2``) nothing is left at the top:
top-1 47.1 / 47.0 / 47.1 / 46.9 %, top-3 58.1 → 58.6 % at 0.2, top-10 69.1 → 69.2 % at 0.1,
MRR 0.544 → 0.546. Reading each description as HPO terms (the phrase linker) and scoring
the IC-weighted share of findings it states, instead of TF-IDF, moved top-1 on all 4,171
in-KB cases by −0.1 to +0.3 points at weights 0.05–0.3: MONDO's one-paragraph definitions
name too few features to tell the ranker's candidates apart.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from sklearn.feature_extraction.text import TfidfVectorizer

from meddiag.schema import TextEvidence

DISEASE_PREFIXES: tuple[str, ...] = ("OMIM:", "ORPHA:", "DECIPHER:", "MONDO:")


def disease_of_doc(doc_id: str) -> str | None:
    """The disease a document is about: ``profile/OMIM:154700`` → ``OMIM:154700``; None otherwise."""
    _, _, rest = doc_id.partition("/")
    rest = rest.split("#", 1)[0]
    return rest if rest.startswith(DISEASE_PREFIXES) else None


def score_passages(
    finding_labels: Sequence[str],
    passages: Sequence[TextEvidence],
    *,
    disease_of: Callable[[TextEvidence], str | None] = lambda p: disease_of_doc(p.doc_id),
    equivalents: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, float]:
    """Best cosine similarity per disease between the findings and that disease's passages.

    `equivalents` maps a document's disease (e.g. a MONDO id) to the candidate ids it
    stands for (OMIM/ORPHA), so text found under one id supports the others.
    """
    labelled = [(p, d) for p in passages if (d := disease_of(p)) and p.text.strip()]
    query = " . ".join(label for label in finding_labels if label.strip())
    if not labelled or not query:
        return {}
    vectorizer = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, stop_words="english")
    matrix = vectorizer.fit_transform([p.title + " " + p.text for p, _ in labelled] + [query])
    sims = (matrix[:-1] @ matrix[-1].T).toarray().ravel()
    scores: dict[str, float] = {}
    for (_, disease), sim in zip(labelled, sims, strict=True):
        for target in [disease, *(equivalents or {}).get(disease, ())]:
            if sim > scores.get(target, -1.0):
                scores[target] = float(sim)
    return scores
