"""A tiny HPO-like ontology and annotation set, small enough to check by hand.

    All
    └── Phenotypic abnormality (HP:0000118)
        ├── Abnormality of the eye (HP:0000478): Cataract, Nystagmus
        ├── Abnormality of the nervous system (HP:0000707)
        │   ├── Seizure (HP:0001250) └── Bilateral tonic-clonic seizure (HP:0002069)
        │   ├── Intellectual disability (HP:0001249)
        │   └── Ataxia (HP:0001251)   (never annotated)
        └── Abnormality of head or neck (HP:0000152): Macrocephaly

Diseases: OMIM:1 eye-brain, OMIM:2 big head, OMIM:3 seizures (+ ORPHA:10, equivalent
through MONDO:0000010 and annotated with cataract).
"""

from __future__ import annotations

import pytest

from meddiag.diagnosis.index import PhenotypeIndex
from meddiag.knowledge.hpo import Ontology, Term
from meddiag.knowledge.model import Relation

CATARACT = "HP:0000518"
NYSTAGMUS = "HP:0000639"
EYE = "HP:0000478"
NERVOUS = "HP:0000707"
SEIZURE = "HP:0001250"
GTC_SEIZURE = "HP:0002069"
ID = "HP:0001249"
ATAXIA = "HP:0001251"
HEAD = "HP:0000152"
MACROCEPHALY = "HP:0000256"
ROOT = "HP:0000118"


def _terms() -> list[Term]:
    spec = [
        ("HP:0000001", "All", []),
        (ROOT, "Phenotypic abnormality", ["HP:0000001"]),
        (EYE, "Abnormality of the eye", [ROOT]),
        (CATARACT, "Cataract", [EYE]),
        (NYSTAGMUS, "Nystagmus", [EYE]),
        (NERVOUS, "Abnormality of the nervous system", [ROOT]),
        (SEIZURE, "Seizure", [NERVOUS]),
        (GTC_SEIZURE, "Bilateral tonic-clonic seizure", [SEIZURE]),
        (ID, "Intellectual disability", [NERVOUS]),
        (ATAXIA, "Ataxia", [NERVOUS]),
        (HEAD, "Abnormality of head or neck", [ROOT]),
        (MACROCEPHALY, "Macrocephaly", [HEAD]),
    ]
    terms = [Term(id=i, name=n, parents=p) for i, n, p in spec]
    terms.append(Term(id="HP:0009999", name="old seizure term", obsolete=True, replaced_by=SEIZURE))
    return terms


def has(disease: str, term: str, freq: float | None, *sources: str) -> Relation:
    return Relation(
        subject=disease, predicate="HAS_PHENOTYPE", object=term, frequency=freq, sources=list(sources)
    )


def relations() -> list[Relation]:
    return [
        has("OMIM:1", CATARACT, 0.9, "OMIM:1"),
        has("OMIM:1", SEIZURE, 0.5, "PMID:1"),
        has("OMIM:1", ID, 0.9, "PMID:1", "PMID:2"),
        has("OMIM:2", MACROCEPHALY, 1.0, "OMIM:2"),
        has("OMIM:2", ID, None, "OMIM:2"),
        has("OMIM:3", GTC_SEIZURE, 0.9, "PMID:3"),
        has("OMIM:3", NYSTAGMUS, 0.2, "OMIM:3"),
        Relation(subject="OMIM:3", predicate="NOT_HAS_PHENOTYPE", object=ID, sources=["OMIM:3"]),
        has("ORPHA:10", CATARACT, 0.1, "ORPHA:10"),
        Relation(subject="OMIM:3", predicate="EQUIVALENT_TO", object="MONDO:0000010", sources=["MONDO"]),
        Relation(subject="ORPHA:10", predicate="EQUIVALENT_TO", object="MONDO:0000010", sources=["MONDO"]),
    ]


NAMES = {"OMIM:1": "Eye-brain syndrome", "OMIM:2": "Big head syndrome", "OMIM:3": "Seizure disorder"}


@pytest.fixture(scope="session")
def tiny_ontology() -> Ontology:
    return Ontology(_terms(), "test")


@pytest.fixture(scope="session")
def tiny_index(tiny_ontology: Ontology) -> PhenotypeIndex:
    return PhenotypeIndex(tiny_ontology, relations(), NAMES)


@pytest.fixture(scope="session")
def tiny_unpooled(tiny_ontology: Ontology) -> PhenotypeIndex:
    return PhenotypeIndex(tiny_ontology, relations(), NAMES, pool_equivalents=False)
