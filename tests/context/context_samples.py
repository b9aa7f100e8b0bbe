"""A small rare-disease retrieval, as a backend would hand it to the renderers."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from meddiag.backends.formats import predicate_words
from meddiag.schema import KGEntity, KGHyperedge, KGPath, KGTriple, TextEvidence

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "contexts"


@dataclass(frozen=True)
class Retrieval:
    entities: list[KGEntity]
    triples: list[KGTriple]
    hyperedges: list[KGHyperedge]
    passages: list[TextEvidence]
    paths: list[KGPath]


def _triple(
    subject: KGEntity, predicate: str, obj: KGEntity, frequency: str, weight: float, sources: list[str]
) -> KGTriple:
    words = predicate_words(predicate)
    return KGTriple(
        subject=subject.name,
        predicate=predicate,
        object=obj.name,
        description=f"{subject.name} {words} {obj.name}"
        + (f" (frequency: {frequency})" if frequency else ""),
        weight=weight,
        rank=(subject.rank or 0) + (obj.rank or 0),
        subject_id=subject.id,
        object_id=obj.id,
        provenance=sources,
    )


def marfan_retrieval() -> Retrieval:
    marfan = KGEntity(
        name="Marfan syndrome",
        type="Disease",
        description="A disorder of fibrous connective tissue, autosomal dominant; skeletal, ocular and "
        'cardiovascular features ("marfanoid habitus").',
        rank=31,
        id="OMIM:154700",
    )
    homocystinuria = KGEntity(
        name="Homocystinuria due to cystathionine beta-synthase deficiency",
        type="Disease",
        description="An inborn error of methionine metabolism, autosomal recessive.",
        rank=27,
        id="OMIM:236200",
    )
    arachnodactyly = KGEntity(
        name="Arachnodactyly",
        type="Phenotype",
        description="Abnormally long and slender fingers (spider fingers).",
        rank=412,
        id="HP:0001166",
    )
    ectopia = KGEntity(
        name="Ectopia lentis",
        type="Phenotype",
        description="Dislocation or malposition of the crystalline lens of the eye.",
        rank=96,
        id="HP:0001083",
    )
    fbn1 = KGEntity(name="FBN1", type="Gene", description="Fibrillin 1.", rank=9, id="HGNC:3603")
    dominant = KGEntity(
        name="Autosomal dominant inheritance",
        type="Inheritance",
        description="A mode of inheritance observed for traits related to a gene on an autosome.",
        rank=4210,
        id="HP:0000006",
    )
    triples = [
        _triple(marfan, "HAS_PHENOTYPE", arachnodactyly, "very frequent", 0.9, ["PMID:1852208"]),
        _triple(marfan, "HAS_PHENOTYPE", ectopia, "frequent, 50%", 0.5, ["OMIM:154700"]),
        _triple(marfan, "ASSOCIATED_GENE", fbn1, "", 1.0, ["OMIM:154700"]),
        _triple(marfan, "HAS_INHERITANCE", dominant, "", 1.0, ["OMIM:154700", "HPO"]),
        _triple(homocystinuria, "HAS_PHENOTYPE", ectopia, "", 0.8, ["ORPHA:394"]),
    ]
    hyperedges = [
        KGHyperedge(
            text="Marfan syndrome presents, very frequently, with arachnodactyly and ectopia lentis.",
            members=["Marfan syndrome", "Arachnodactyly", "Ectopia lentis"],
            provenance=["PMID:1852208", "OMIM:154700"],
            id="he:OMIM:154700:very-frequent",
        ),
        KGHyperedge(
            text="Homocystinuria presents with ectopia lentis.",
            members=["Homocystinuria due to cystathionine beta-synthase deficiency", "Ectopia lentis"],
            provenance=["ORPHA:394"],
            id="he:OMIM:236200:frequent",
        ),
    ]
    passages = [
        TextEvidence(
            ref_id="profile/OMIM:154700#0",
            doc_id="profile/OMIM:154700",
            text="Marfan syndrome (OMIM:154700) is inherited as autosomal dominant.\n"
            "Very frequent features: arachnodactyly, tall stature, aortic root aneurysm.",
            provenance=["OMIM:154700"],
        ),
        TextEvidence(
            ref_id="hpo/HP:0001083#0",
            doc_id="hpo/HP:0001083",
            text='Ectopia lentis: "Dislocation or malposition of the crystalline lens", seen in Marfan '
            "syndrome and homocystinuria.",
            provenance=["HPO"],
        ),
        TextEvidence(
            ref_id="profile/OMIM:154700#1",
            doc_id="profile/OMIM:154700",
            text="Frequent features: ectopia lentis (50%), myopia, pectus excavatum.",
            provenance=["OMIM:154700", "PMID:1852208"],
        ),
        TextEvidence(ref_id="note#0", doc_id="", text="A clinician's note without a source document."),
    ]
    paths = [
        KGPath(
            nodes=["Arachnodactyly", "Marfan syndrome", "FBN1"],
            edges=["HAS_PHENOTYPE", "ASSOCIATED_GENE"],
            sentence="",
        ),
        KGPath(
            nodes=[
                "Marfan syndrome",
                "Ectopia lentis",
                "Homocystinuria due to cystathionine beta-synthase deficiency",
            ],
            edges=["HAS_PHENOTYPE", "HAS_PHENOTYPE"],
            sentence="",
        ),
        KGPath(nodes=["Marfan syndrome", "Arachnodactyly"], edges=["HAS_PHENOTYPE"], sentence=""),
    ]
    entities = [marfan, homocystinuria, arachnodactyly, ectopia, fbn1, dominant]
    return Retrieval(entities, triples, hyperedges, passages, paths)
