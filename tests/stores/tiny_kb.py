"""A hand-made knowledge base of three connective-tissue diseases, small enough to reason about.

Provenance is chosen so that leaving sources out has visible effects:
- Marfan→ectopia lentis rests on PMID:1 alone (hidden when PMID:1 is left out);
- Marfan→arachnodactyly rests on PMID:1 and OMIM:154700 (survives leaving PMID:1 out);
- gene and inheritance relations cite nothing and are always visible.
"""

from __future__ import annotations

from meddiag.knowledge.model import Chunk, Document, Entity, Hyperedge, KnowledgeBase, Relation

MARFAN, LDS, HCU = "OMIM:154700", "OMIM:609192", "ORPHA:394"
ARACHNO, ECTOPIA, AORTIC, HYPERMOBILE, ROOT = (
    "HP:0001166",
    "HP:0001083",
    "HP:0002616",
    "HP:0001382",
    "HP:0000118",
)
FBN1, TGFBR2, CBS = "HGNC:3603", "HGNC:11773", "HGNC:1550"
AD, AR = "HP:0000006", "HP:0000007"


def tiny_entities() -> list[Entity]:
    return [
        Entity(
            id=MARFAN,
            type="Disease",
            name="Marfan syndrome",
            description="A disorder of fibrillin affecting the skeleton, eyes and aorta.",
            synonyms=["MFS"],
            sources=["OMIM:154700"],
        ),
        Entity(
            id=LDS,
            type="Disease",
            name="Loeys-Dietz syndrome",
            description="Aortic aneurysms with arterial tortuosity and hypertelorism.",
        ),
        Entity(id=HCU, type="Disease", name="Classic homocystinuria", synonyms=["CBS deficiency"]),
        Entity(
            id=ARACHNO,
            type="Phenotype",
            name="Arachnodactyly",
            description="Abnormally long and slender fingers and toes.",
            synonyms=["Spider fingers", "Long slender fingers"],
        ),
        Entity(id=ECTOPIA, type="Phenotype", name="Ectopia lentis", description="Dislocation of the lens."),
        Entity(id=AORTIC, type="Phenotype", name="Aortic root aneurysm", synonyms=["Dilated aortic root"]),
        Entity(id=HYPERMOBILE, type="Phenotype", name="Joint hypermobility"),
        Entity(id=ROOT, type="Phenotype", name="Phenotypic abnormality"),
        Entity(id=FBN1, type="Gene", name="FBN1"),
        Entity(id=TGFBR2, type="Gene", name="TGFBR2"),
        Entity(id=CBS, type="Gene", name="CBS"),
        Entity(id=AD, type="Inheritance", name="Autosomal dominant inheritance"),
        Entity(id=AR, type="Inheritance", name="Autosomal recessive inheritance"),
    ]


def tiny_relations() -> list[Relation]:
    def phen(disease: str, term: str, sources: list[str], freq: float | None = None) -> Relation:
        label = "" if freq is None else f"{round(freq * 100)}%"
        return Relation(
            subject=disease,
            predicate="HAS_PHENOTYPE",
            object=term,
            frequency=freq,
            frequency_label=label,
            evidence="PCS",
            sources=sources,
            source_file="phenotype.hpoa",
        )

    return [
        phen(MARFAN, ARACHNO, ["PMID:1", "OMIM:154700"], 0.9),
        phen(MARFAN, ECTOPIA, ["PMID:1"], 0.6),
        phen(MARFAN, AORTIC, ["PMID:2"], 0.8),
        phen(LDS, AORTIC, ["PMID:3"]),
        phen(LDS, HYPERMOBILE, ["PMID:3"], 0.5),
        phen(HCU, ECTOPIA, ["PMID:4"]),
        phen(HCU, ARACHNO, ["PMID:1"]),
        Relation(subject=HCU, predicate="NOT_HAS_PHENOTYPE", object=AORTIC, sources=["ORPHA:394"]),
        Relation(subject=MARFAN, predicate="ASSOCIATED_GENE", object=FBN1),
        Relation(subject=LDS, predicate="ASSOCIATED_GENE", object=TGFBR2),
        Relation(subject=HCU, predicate="ASSOCIATED_GENE", object=CBS),
        Relation(subject=MARFAN, predicate="HAS_INHERITANCE", object=AD),
        Relation(subject=LDS, predicate="HAS_INHERITANCE", object=AD),
        Relation(subject=HCU, predicate="HAS_INHERITANCE", object=AR),
        *[
            Relation(subject=t, predicate="IS_A", object=ROOT, sources=["HPO"])
            for t in (ARACHNO, ECTOPIA, AORTIC, HYPERMOBILE)
        ],
    ]


def tiny_kb() -> KnowledgeBase:
    documents = [
        Document(
            id="profile/OMIM:154700",
            title="Marfan syndrome",
            source="profile",
            text="Marfan syndrome presents with arachnodactyly, ectopia lentis and aortic root aneurysm.",
            generated=True,
            entity_ids=[MARFAN, ARACHNO, ECTOPIA, AORTIC],
            sources=["PMID:1", "PMID:2"],
        ),
        Document(
            id="hpo/HP:0001166",
            title="Arachnodactyly",
            source="hpo",
            text="Arachnodactyly: abnormally long and slender fingers and toes.",
            entity_ids=[ARACHNO],
            sources=["HPO"],
        ),
        Document(
            id="mondo/MONDO:0018954",
            title="Loeys-Dietz syndrome",
            source="mondo",
            text="Loeys-Dietz syndrome is a connective tissue disorder with aortic aneurysms.",
            entity_ids=[LDS],
            sources=["MONDO"],
        ),
    ]
    chunks = [
        Chunk(
            id=f"{d.id}#0",
            doc_id=d.id,
            title=d.title,
            source=d.source,
            position=0,
            text=d.text,
            entity_ids=d.entity_ids,
            sources=d.sources,
            generated=d.generated,
        )
        for d in documents
    ]
    chunks.append(
        Chunk(
            id="profile/OMIM:154700#1",
            doc_id="profile/OMIM:154700",
            title="Marfan syndrome",
            source="profile",
            position=1,
            text="In Marfan syndrome the lens of the eye is often dislocated (ectopia lentis).",
            entity_ids=[MARFAN, ECTOPIA],
            sources=["PMID:1"],
            generated=True,
        )
    )
    hyperedges = [
        Hyperedge(
            id="he/OMIM:154700/frequent",
            text="Marfan syndrome frequently presents with arachnodactyly and aortic root aneurysm.",
            members=[MARFAN, ARACHNO, AORTIC],
            sources=["PMID:1", "PMID:2"],
        ),
        Hyperedge(
            id="he/ORPHA:394/all",
            text="Classic homocystinuria presents with ectopia lentis and arachnodactyly.",
            members=[HCU, ECTOPIA, ARACHNO],
            sources=["PMID:4"],
        ),
    ]
    return KnowledgeBase(
        profile="test",
        versions={"hpo": "2099-01-01", "mondo": "v2099-01-01"},
        entities=tiny_entities(),
        relations=tiny_relations(),
        hyperedges=hyperedges,
        documents=documents,
        chunks=chunks,
    )
