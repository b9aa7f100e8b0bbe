"""A hand-made knowledge base of four connective-tissue diseases for the backend tests.

Profiles and hyperedges are generated with the project's own renderers, so their ids and
wording are what a real build produces. Provenance is chosen so that leaving PMID:1 out
has a known effect:
- Marfan → ectopia lentis rests on PMID:1 alone (must disappear, also from generated text);
- Marfan → arachnodactyly rests on PMID:1 and OMIM:154700 (must stay);
- homocystinuria → arachnodactyly rests on PMID:1 alone (must disappear).
"""

from __future__ import annotations

from meddiag.knowledge.documents import chunk_document, hpo_document, profile_document
from meddiag.knowledge.hpo import Term
from meddiag.knowledge.hyperedges import disease_hyperedges
from meddiag.knowledge.model import Entity, KnowledgeBase, Relation
from meddiag.knowledge.relations import facts_by_disease

MARFAN, LDS, HCU, CCA = "OMIM:154700", "OMIM:609192", "OMIM:236200", "OMIM:121050"
ARACHNO, SLENDER, ECTOPIA, AORTIC, TALL = "HP:0001166", "HP:0001238", "HP:0001083", "HP:0002616", "HP:0000098"
HYPERMOBILE, HYPERTELORISM, ID, CONTRACTURES = "HP:0001382", "HP:0000316", "HP:0001249", "HP:0002803"
FBN1, TGFBR2, CBS, FBN2 = "NCBIGene:2200", "NCBIGene:7048", "NCBIGene:875", "NCBIGene:2201"
AD, AR = "HP:0000006", "HP:0000007"

DISEASES = {
    MARFAN: "Marfan syndrome",
    LDS: "Loeys-Dietz syndrome 1",
    HCU: "Homocystinuria due to cystathionine beta-synthase deficiency",
    CCA: "Congenital contractural arachnodactyly",
}
PHENOTYPES = {
    ARACHNO: (
        "Arachnodactyly",
        ["Long slender fingers", "Spider fingers"],
        "Abnormally long and slender fingers.",
    ),
    SLENDER: ("Slender finger", ["Thin fingers"], "Fingers that are thinner than usual."),
    ECTOPIA: ("Ectopia lentis", ["Dislocated lens"], "Displacement of the lens of the eye."),
    AORTIC: ("Aortic root aneurysm", ["Dilated aortic root"], "Widening of the aortic root."),
    TALL: ("Tall stature", ["Tall"], "A height above the 97th centile."),
    HYPERMOBILE: ("Joint hypermobility", ["Loose joints"], "Joints that move beyond the normal range."),
    HYPERTELORISM: ("Hypertelorism", ["Widely spaced eyes"], "Interpupillary distance above normal."),
    ID: ("Intellectual disability", ["Mental retardation"], "Subnormal intellectual functioning."),
    CONTRACTURES: ("Multiple joint contractures", ["Stiff joints"], "Contractures of several joints."),
}


def _phen(disease: str, term: str, sources: list[str], freq: float | None = None) -> Relation:
    return Relation(
        subject=disease,
        predicate="HAS_PHENOTYPE",
        object=term,
        frequency=freq,
        frequency_label="" if freq is None else f"{round(freq * 100)}%",
        evidence="PCS",
        sources=sources,
        source_file="phenotype.hpoa",
    )


def hand_relations() -> list[Relation]:
    return [
        _phen(MARFAN, ARACHNO, ["PMID:1", "OMIM:154700"], 0.9),
        _phen(MARFAN, ECTOPIA, ["PMID:1"], 0.6),
        _phen(MARFAN, AORTIC, ["PMID:2", "OMIM:154700"], 0.85),
        _phen(MARFAN, TALL, ["OMIM:154700"], 0.9),
        _phen(LDS, AORTIC, ["PMID:3"], 0.9),
        _phen(LDS, HYPERTELORISM, ["PMID:3"], 0.7),
        _phen(LDS, HYPERMOBILE, ["PMID:3"], 0.5),
        _phen(LDS, ARACHNO, ["PMID:3"], 0.3),
        _phen(HCU, ECTOPIA, ["PMID:4"], 0.9),
        _phen(HCU, ID, ["PMID:4"], 0.6),
        _phen(HCU, TALL, ["PMID:4"]),
        _phen(HCU, ARACHNO, ["PMID:1"]),
        _phen(CCA, ARACHNO, ["PMID:5"], 0.9),
        _phen(CCA, CONTRACTURES, ["PMID:5"], 0.9),
        Relation(subject=HCU, predicate="NOT_HAS_PHENOTYPE", object=AORTIC, sources=["PMID:4"]),
        Relation(subject=MARFAN, predicate="ASSOCIATED_GENE", object=FBN1, sources=["HPO"]),
        Relation(subject=LDS, predicate="ASSOCIATED_GENE", object=TGFBR2, sources=["HPO"]),
        Relation(subject=HCU, predicate="ASSOCIATED_GENE", object=CBS, sources=["HPO"]),
        Relation(subject=CCA, predicate="ASSOCIATED_GENE", object=FBN2, sources=["HPO"]),
        Relation(subject=MARFAN, predicate="HAS_INHERITANCE", object=AD, sources=["OMIM:154700"]),
        Relation(subject=LDS, predicate="HAS_INHERITANCE", object=AD, sources=["PMID:3"]),
        Relation(subject=HCU, predicate="HAS_INHERITANCE", object=AR, sources=["PMID:4"]),
        Relation(subject=ARACHNO, predicate="IS_A", object=SLENDER, sources=["HPO"]),
    ]


def hand_entities() -> list[Entity]:
    out = [Entity(id=i, type="Disease", name=n, sources=[i]) for i, n in DISEASES.items()]
    out += [
        Entity(id=i, type="Phenotype", name=n, synonyms=s, description=d, sources=["HPO"])
        for i, (n, s, d) in PHENOTYPES.items()
    ]
    out += [
        Entity(id=i, type="Gene", name=n, sources=["HPO"])
        for i, n in ((FBN1, "FBN1"), (TGFBR2, "TGFBR2"), (CBS, "CBS"), (FBN2, "FBN2"))
    ]
    out += [
        Entity(id=AD, type="Inheritance", name="Autosomal dominant inheritance", sources=["HPO"]),
        Entity(id=AR, type="Inheritance", name="Autosomal recessive inheritance", sources=["HPO"]),
    ]
    return out


def hand_kb() -> KnowledgeBase:
    entities, relations = hand_entities(), hand_relations()
    labels = {e.id: e.name for e in entities}
    facts = facts_by_disease(relations, DISEASES, labels)
    documents, chunks, hyperedges = [], [], []
    for disease_id in DISEASES:
        made = profile_document(disease_id, facts[disease_id])
        assert made is not None
        documents.append(made[0])
        chunks += made[1]
        hyperedges += disease_hyperedges(facts[disease_id])
    for term_id, (name, synonyms, definition) in PHENOTYPES.items():
        doc = hpo_document(Term(id=term_id, name=name, definition=definition, synonyms=synonyms))
        documents.append(doc)
        chunks += chunk_document(doc)
    return KnowledgeBase(
        profile="test",
        entities=entities,
        relations=relations,
        hyperedges=hyperedges,
        documents=documents,
        chunks=chunks,
    )
