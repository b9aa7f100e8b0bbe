"""A hand-made miniature knowledge base: a dozen HPO terms, four diseases, three genes.

Small enough to reason about by hand, shaped like the real one (frequencies, PMIDs,
NOT_HAS_PHENOTYPE, an ORPHA and a MONDO id equivalent to one OMIM disease).
"""

from __future__ import annotations

from pathlib import Path

from meddiag.knowledge.hpo import Ontology
from meddiag.knowledge.model import Entity, Relation
from meddiag.schema import KGTriple, TextEvidence

OBO = """format-version: 1.2
data-version: hp/releases/2025-01-01

[Term]
id: HP:0000001
name: All

[Term]
id: HP:0000118
name: Phenotypic abnormality
is_a: HP:0000001

[Term]
id: HP:0000005
name: Mode of inheritance
is_a: HP:0000001

[Term]
id: HP:0000006
name: Autosomal dominant inheritance
is_a: HP:0000005

[Term]
id: HP:0000007
name: Autosomal recessive inheritance
is_a: HP:0000005

[Term]
id: HP:0003674
name: Onset
is_a: HP:0000001

[Term]
id: HP:0003577
name: Congenital onset
is_a: HP:0003674

[Term]
id: HP:0000478
name: Abnormality of the eye
is_a: HP:0000118

[Term]
id: HP:0001083
name: Ectopia lentis
synonym: "Dislocated lens" EXACT layperson []
is_a: HP:0000478

[Term]
id: HP:0000924
name: Abnormality of the skeletal system
is_a: HP:0000118

[Term]
id: HP:0001166
name: Arachnodactyly
synonym: "Spider fingers" EXACT layperson []
synonym: "Long slender fingers" EXACT []
is_a: HP:0000924

[Term]
id: HP:0000098
name: Tall stature
is_a: HP:0000924

[Term]
id: HP:0004322
name: Short stature
synonym: "Decreased body height" EXACT []
is_a: HP:0000924

[Term]
id: HP:0001626
name: Abnormality of the cardiovascular system
is_a: HP:0000118

[Term]
id: HP:0002616
name: Aortic root aneurysm
synonym: "Aortic root dilatation" EXACT []
is_a: HP:0001626

[Term]
id: HP:0000707
name: Abnormality of the nervous system
is_a: HP:0000118

[Term]
id: HP:0001250
name: Seizure
alt_id: HP:0000998
synonym: "Seizures" EXACT []
synonym: "Fits" EXACT layperson []
is_a: HP:0000707

[Term]
id: HP:0000999
name: Obsolete convulsion
is_obsolete: true
replaced_by: HP:0001250

[Term]
id: HP:0001249
name: Intellectual disability
synonym: "Mental retardation" EXACT []
is_a: HP:0000707

[Term]
id: HP:0001252
name: Hypotonia
synonym: "Floppy baby" EXACT layperson []
is_a: HP:0000707

[Term]
id: HP:0000729
name: Autistic behavior
synonym: "ASD" EXACT []
is_a: HP:0000707

[Term]
id: HP:0000175
name: Cleft palate
is_a: HP:0000118

[Term]
id: HP:0000365
name: Hearing impairment
synonym: "Hearing loss" EXACT layperson []
is_a: HP:0000118

[Term]
id: HP:0001903
name: Anemia
is_a: HP:0000118

[Term]
id: HP:0000969
name: Edema
is_a: HP:0000118

[Term]
id: HP:0001945
name: Fever
is_a: HP:0000118
"""

MARFAN = "OMIM:154700"
LDS = "OMIM:609192"
EPI = "OMIM:100001"
DEAF = "OMIM:100002"
ORPHA_MARFAN = "ORPHA:558"
MONDO_MARFAN = "MONDO:0007947"


def ontology(tmp: Path) -> Ontology:
    path = tmp / "hp.obo"
    path.write_text(OBO, encoding="utf-8")
    return Ontology.from_obo(path)


def entities() -> list[Entity]:
    d = "Disease"
    return [
        Entity(id=MARFAN, type=d, name="Marfan syndrome", synonyms=["MFS"]),
        Entity(id=ORPHA_MARFAN, type=d, name="Marfan syndrome"),
        Entity(id=MONDO_MARFAN, type=d, name="Marfan syndrome"),
        Entity(id=LDS, type=d, name="Loeys-Dietz syndrome 1", synonyms=["Loeys-Dietz syndrome"]),
        Entity(id=EPI, type=d, name="Epilepsy-hypotonia syndrome"),
        Entity(id=DEAF, type=d, name="Deafness-anemia syndrome"),
        Entity(id="NCBIGene:2200", type="Gene", name="FBN1"),
        Entity(id="NCBIGene:7046", type="Gene", name="TGFBR1"),
        Entity(id="NCBIGene:6323", type="Gene", name="SCN1A"),
        Entity(id="HP:0000006", type="Inheritance", name="Autosomal dominant inheritance"),
        Entity(id="HP:0000007", type="Inheritance", name="Autosomal recessive inheritance"),
        Entity(id="HP:0003577", type="Onset", name="Congenital onset"),
    ]


def _ph(d: str, t: str, f: float, *sources: str, negated: bool = False) -> Relation:
    return Relation(
        subject=d,
        predicate="NOT_HAS_PHENOTYPE" if negated else "HAS_PHENOTYPE",
        object=t,
        frequency=None if negated else f,
        sources=list(sources),
        source_file="phenotype.hpoa",
    )


def relations() -> list[Relation]:
    return [
        _ph(MARFAN, "HP:0001166", 0.9, "PMID:1"),
        _ph(MARFAN, "HP:0001083", 0.6, "PMID:1", "PMID:2"),
        _ph(MARFAN, "HP:0002616", 0.9, "PMID:2"),
        _ph(MARFAN, "HP:0000098", 0.9, MARFAN),
        _ph(MARFAN, "HP:0001249", 0.0, "PMID:3", negated=True),
        _ph(ORPHA_MARFAN, "HP:0001166", 0.9, ORPHA_MARFAN),
        _ph(LDS, "HP:0002616", 0.9, "PMID:4"),
        _ph(LDS, "HP:0001166", 0.3, "PMID:4"),
        _ph(LDS, "HP:0001249", 0.1, "PMID:4"),
        _ph(LDS, "HP:0000175", 0.5, "PMID:4"),
        _ph(EPI, "HP:0001250", 0.9, "PMID:5"),
        _ph(EPI, "HP:0001252", 0.8, "PMID:5"),
        _ph(EPI, "HP:0001249", 0.9, "PMID:5"),
        _ph(EPI, "HP:0004322", 0.2, "PMID:5"),
        _ph(DEAF, "HP:0000365", 0.9, "PMID:6"),
        _ph(DEAF, "HP:0001903", 0.5, "PMID:6"),
        _ph(DEAF, "HP:0004322", 0.02, "PMID:6"),
        Relation(subject=MARFAN, predicate="EQUIVALENT_TO", object=ORPHA_MARFAN, sources=["MONDO"]),
        Relation(subject=MARFAN, predicate="EQUIVALENT_TO", object=MONDO_MARFAN, sources=["MONDO"]),
        Relation(subject=MARFAN, predicate="ASSOCIATED_GENE", object="NCBIGene:2200", sources=["HPO"]),
        Relation(subject=LDS, predicate="ASSOCIATED_GENE", object="NCBIGene:7046", sources=["HPO"]),
        Relation(subject=EPI, predicate="ASSOCIATED_GENE", object="NCBIGene:6323", sources=["HPO"]),
        Relation(subject=MARFAN, predicate="HAS_INHERITANCE", object="HP:0000006", sources=["HPO"]),
        Relation(subject=EPI, predicate="HAS_INHERITANCE", object="HP:0000007", sources=["HPO"]),
        Relation(subject=MARFAN, predicate="HAS_ONSET", object="HP:0003577", sources=["HPO"]),
    ]


def names() -> dict[str, str]:
    out = {e.id: e.name for e in entities()}
    return out


def triple(rel: Relation, onto: Ontology) -> KGTriple:
    """A retrieved triple as a backend prints it: names for display, ids and provenance alongside."""
    label = {**{t: onto.label(t) for t in onto.terms}, **names()}
    return KGTriple(
        subject=label.get(rel.subject, rel.subject),
        predicate=rel.predicate,
        object=label.get(rel.object, rel.object),
        weight=rel.frequency if rel.frequency is not None else 1.0,
        frequency=rel.frequency,
        subject_id=rel.subject,
        object_id=rel.object,
        provenance=list(rel.sources),
    )


def passages() -> list[TextEvidence]:
    return [
        TextEvidence(
            ref_id="1",
            doc_id="profile/OMIM:154700",
            title="Marfan syndrome",
            text=(
                "Marfan syndrome very frequently presents with arachnodactyly and aortic root aneurysm. "
                "Ectopia lentis is frequent. Inheritance is autosomal dominant; the gene is FBN1."
            ),
            provenance=["PMID:1", "PMID:2"],
        ),
        TextEvidence(
            ref_id="2",
            doc_id="profile/OMIM:609192",
            title="Loeys-Dietz syndrome 1",
            text="Loeys-Dietz syndrome 1 presents with aortic root aneurysm and cleft palate. The gene is TGFBR1.",
            provenance=["PMID:4"],
        ),
        TextEvidence(
            ref_id="3",
            doc_id="profile/OMIM:100001",
            title="Epilepsy-hypotonia syndrome",
            text="Epilepsy-hypotonia syndrome presents with seizures, hypotonia and intellectual disability.",
            provenance=["PMID:5"],
        ),
        TextEvidence(
            ref_id="4",
            doc_id="mondo/MONDO:0007947",
            title="Marfan syndrome",
            text="A disorder of connective tissue with tall stature and ectopia lentis.",
            provenance=["MONDO"],
        ),
    ]
