"""The differential's rows: diseases only, one row per disease, and "for" / "against" its own evidence."""

from __future__ import annotations

import pytest

from meddiag.knowledge.hpo import Ontology
from meddiag.knowledge.model import Entity, Relation
from meddiag.reasoning.base import RankedEntity, SubAnswer
from meddiag.reasoning.offline import OfflineReasoner
from meddiag.reasoning.resources import ReasoningResources
from meddiag.schema import RelationalResult, SemanticResult, TextEvidence
from tests.reasoning import world
from tests.reasoning.pipeline import run_pipeline

NEONATAL = "ORPHA:284979"  # a disease with no OMIM entry: its ORPHA id is its row
NEONATAL_CLASS = "MONDO:0017309"  # the MONDO class equivalent to it
LONE_CLASS = "MONDO:0099999"  # a MONDO class no disease is equivalent to
GHOST_OMIM = "OMIM:300000"  # an OMIM entry without phenotype annotations …
GHOST_ORPHA = "ORPHA:9999"  # … equivalent to an annotated ORPHA entry

MARFAN_VIGNETTE = (
    "Arachnodactyly, ectopia lentis, tall stature and aortic root aneurysm. No intellectual disability."
)


def _extra_entities() -> list[Entity]:
    return [
        Entity(id=NEONATAL, type="Disease", name="Neonatal Marfan syndrome"),
        Entity(id=NEONATAL_CLASS, type="DiseaseClass", name="neonatal Marfan syndrome"),
        Entity(id=LONE_CLASS, type="DiseaseClass", name="connective tissue disorder"),
        Entity(id=GHOST_OMIM, type="Disease", name="Ghost syndrome"),
        Entity(id=GHOST_ORPHA, type="Disease", name="Ghost syndrome"),
    ]


def _extra_relations() -> list[Relation]:
    def ph(d: str, t: str, f: float) -> Relation:
        return Relation(subject=d, predicate="HAS_PHENOTYPE", object=t, frequency=f, sources=[d])

    def eq(a: str, b: str) -> Relation:
        return Relation(subject=a, predicate="EQUIVALENT_TO", object=b, sources=["MONDO"])

    return [
        ph(NEONATAL, "HP:0001166", 0.9),
        ph(NEONATAL, "HP:0001083", 0.5),
        eq(NEONATAL, NEONATAL_CLASS),
        ph(GHOST_ORPHA, "HP:0000365", 0.9),
        eq(GHOST_OMIM, GHOST_ORPHA),
    ]


def _extra_passages() -> list[TextEvidence]:
    return [
        TextEvidence(
            ref_id="5",
            doc_id=f"mondo/{NEONATAL_CLASS}",
            title="neonatal Marfan syndrome",
            text=(
                "A severe neonatal disease with classical Marfan syndrome manifestations, "
                "arachnodactyly and ectopia lentis."
            ),
            provenance=["MONDO"],
        ),
        TextEvidence(
            ref_id="6",
            doc_id=f"mondo/{LONE_CLASS}",
            title="connective tissue disorder",
            text="A disorder of connective tissue with arachnodactyly, ectopia lentis and tall stature.",
            provenance=["MONDO"],
        ),
    ]


@pytest.fixture(scope="module")
def wide(tiny_ontology: Ontology) -> tuple[OfflineReasoner, list[Relation]]:
    """The miniature KB plus a disease known only by ORPHA and MONDO ids, and a lone MONDO class."""
    relations = [*world.relations(), *_extra_relations()]
    res = ReasoningResources.from_parts(tiny_ontology, [*world.entities(), *_extra_entities()], relations)
    return OfflineReasoner(res), relations


def _rows(run, reasoner: OfflineReasoner):
    return {e.id: e for e in reasoner.synthesise(*run).differential}


def test_for_lists_only_findings_the_disease_is_annotated_with(
    reasoner: OfflineReasoner, tiny_ontology: Ontology
) -> None:
    rows = _rows(run_pipeline(reasoner, tiny_ontology, MARFAN_VIGNETTE), reasoner)
    assert rows[world.MARFAN].for_ == [
        "Arachnodactyly",
        "Ectopia lentis",
        "Tall stature",
        "Aortic root aneurysm",
    ]
    # LDS has arachnodactyly and aortic root aneurysm; tall stature only shares "skeletal system" with it.
    assert rows[world.LDS].for_ == ["Arachnodactyly", "Aortic root aneurysm"]


EYE_FEVER = "OMIM:100003"


@pytest.fixture(scope="module")
def crowded(tiny_ontology: Ontology) -> tuple[OfflineReasoner, list[Relation], list[TextEvidence]]:
    """More diseases with eye anomalies, so that "abnormality of the eye" is a broad (low-IC) term."""

    def ph(d: str, t: str) -> Relation:
        return Relation(subject=d, predicate="HAS_PHENOTYPE", object=t, frequency=0.9, sources=[d])

    names = {
        EYE_FEVER: "Eye-fever syndrome",
        "OMIM:100004": "Eye-edema syndrome",
        "OMIM:100005": "Eye-anemia",
    }
    entities = [*world.entities(), *(Entity(id=i, type="Disease", name=n) for i, n in names.items())]
    relations = [
        *world.relations(),
        ph(EYE_FEVER, "HP:0000478"),
        ph(EYE_FEVER, "HP:0001945"),
        ph("OMIM:100004", "HP:0000478"),
        ph("OMIM:100004", "HP:0000969"),
        ph("OMIM:100005", "HP:0000478"),
        ph("OMIM:100005", "HP:0001903"),
    ]
    passage = TextEvidence(
        ref_id="7",
        doc_id=f"profile/{EYE_FEVER}",
        title="Eye-fever syndrome",
        text="Eye-fever syndrome presents with an abnormality of the eye and fever; unlike Marfan syndrome, "
        "there is no arachnodactyly.",
        provenance=[EYE_FEVER],
    )
    res = ReasoningResources.from_parts(tiny_ontology, entities, relations)
    return OfflineReasoner(res), relations, [*world.passages(), passage]


def test_a_broad_shared_ancestor_is_not_listed_as_support(crowded) -> None:
    reasoner, relations, passages = crowded
    run = run_pipeline(reasoner, reasoner.res.ontology, "Ectopia lentis and fever.", passages, relations)
    rows = _rows(run, reasoner)
    # Eye-fever syndrome has fever; "abnormality of the eye" is far broader than ectopia lentis.
    assert rows[EYE_FEVER].for_ == ["Fever"]
    assert rows[world.MARFAN].for_ == ["Ectopia lentis"]


def test_against_names_excluded_findings_and_frequent_features_the_patient_lacks(
    reasoner: OfflineReasoner, tiny_ontology: Ontology
) -> None:
    result = reasoner.synthesise(*run_pipeline(reasoner, tiny_ontology, "Arachnodactyly and ectopia lentis."))
    marfan = next(e for e in result.differential if e.id == world.MARFAN)
    assert "Aortic root aneurysm not reported (frequent in this disease)" in marfan.against
    assert "Arachnodactyly" not in " ".join(marfan.against)  # present, so never against
    assert "Frequent features of Marfan syndrome not reported in the patient" in result.answer


def test_a_mondo_class_is_never_a_row_and_its_passage_counts_for_its_disease(wide) -> None:
    reasoner, relations = wide
    passages = [*world.passages(), *_extra_passages()]
    run = run_pipeline(reasoner, reasoner.res.ontology, MARFAN_VIGNETTE, passages, relations)
    result = reasoner.synthesise(*run)
    ids = [e.id for e in result.differential]
    assert not [i for i in ids if i.startswith("MONDO:")]
    assert ids.count(NEONATAL) == 1
    neonatal = next(e for e in result.differential if e.id == NEONATAL)
    assert NEONATAL_CLASS in neonatal.aliases
    cited = {result.citations[n - 1].doc_id for n in neonatal.citations}
    assert f"mondo/{NEONATAL_CLASS}" in cited
    # The neonatal text names Marfan syndrome but speaks of the neonatal disease only.
    marfan_cited = {result.citations[n - 1].doc_id for n in result.differential[0].citations}
    assert f"mondo/{NEONATAL_CLASS}" not in marfan_cited


def test_equivalent_ids_merge_into_one_row_under_the_omim_id(wide) -> None:
    reasoner, _ = wide

    def answer(*ids: str) -> list[SubAnswer]:
        ranked = [
            RankedEntity(id=i, name=i, score=1.0 - k / 10, **{"for": ["Hearing impairment"]})
            for k, i in enumerate(ids)
        ]
        return [SubAnswer(text="", entities=ranked)]

    parsed = reasoner.parse_question("Hearing loss.")
    result = reasoner.synthesise(
        parsed,
        SemanticResult(),
        RelationalResult(),
        answer(GHOST_ORPHA, NEONATAL_CLASS, world.ORPHA_MARFAN),
        answer(GHOST_OMIM, world.MARFAN),
    )
    ids = [e.id for e in result.differential]
    assert sorted(ids) == sorted([GHOST_OMIM, NEONATAL, world.MARFAN])
    ghost = next(e for e in result.differential if e.id == GHOST_OMIM)
    assert ghost.aliases == [GHOST_ORPHA] and set(ghost.channels) == {"semantic", "relational"}
    marfan = next(e for e in result.differential if e.id == world.MARFAN)
    assert set(marfan.aliases) == {world.ORPHA_MARFAN, world.MONDO_MARFAN}


def test_row_ids_prefer_omim_then_orpha_and_drop_lone_classes(wide) -> None:
    res = wide[0].res
    assert res.canonical_disease(GHOST_ORPHA) == GHOST_OMIM
    assert res.canonical_disease(NEONATAL_CLASS) == NEONATAL
    assert res.canonical_disease(world.MONDO_MARFAN) == world.MARFAN
    assert not res.is_known_disease(LONE_CLASS) and not res.is_known_disease(NEONATAL_CLASS)


MASS_LIKE = "OMIM:100006"


def test_a_feature_recorded_at_zero_percent_counts_against_not_for(tiny_ontology: Ontology) -> None:
    def ph(t: str, f: float) -> Relation:
        return Relation(
            subject=MASS_LIKE, predicate="HAS_PHENOTYPE", object=t, frequency=f, sources=["PMID:9"]
        )

    relations = [*world.relations(), ph("HP:0001166", 1.0), ph("HP:0000098", 1.0), ph("HP:0001083", 0.0)]
    entities = [*world.entities(), Entity(id=MASS_LIKE, type="Disease", name="Mass-like syndrome")]
    passage = TextEvidence(
        ref_id="8",
        doc_id=f"profile/{MASS_LIKE}",
        title="Mass-like syndrome",
        text=(
            "Features of Mass-like syndrome that are always present (100% of patients): Arachnodactyly (4/4) "
            "and Tall stature (3/3). Features of Mass-like syndrome that are absent in the patients studied "
            "(0%): Ectopia lentis (0/3)."
        ),
        provenance=["PMID:9"],
    )
    reasoner = OfflineReasoner(ReasoningResources.from_parts(tiny_ontology, entities, relations))
    question = "Arachnodactyly and ectopia lentis."
    rel_only = _rows(run_pipeline(reasoner, tiny_ontology, question, [], relations), reasoner)
    assert rel_only[MASS_LIKE].for_ == ["Arachnodactyly"]
    assert "Ectopia lentis" in rel_only[MASS_LIKE].against
    run = run_pipeline(reasoner, tiny_ontology, question, [passage], relations)
    sem_rank = run[3][0].entities
    mass_text = next(e for e in sem_rank if e.id == MASS_LIKE)
    assert mass_text.for_ == ["Arachnodactyly"] and mass_text.against == ["Ectopia lentis"]


def test_a_female_patient_sees_why_an_x_linked_recessive_disease_was_lowered(tiny_ontology: Ontology) -> None:
    # Loeys-Dietz made X-linked recessive for this test: the woman's row says why it was lowered.
    x_linked = Relation(subject=world.LDS, predicate="HAS_INHERITANCE", object="HP:0001419", sources=["HPO"])
    res = ReasoningResources.from_parts(tiny_ontology, world.entities(), [*world.relations(), x_linked])
    reasoner = OfflineReasoner(res)
    findings = "arachnodactyly, ectopia lentis and aortic root aneurysm."
    woman = _rows(run_pipeline(reasoner, tiny_ontology, f"A 20-year-old woman with {findings}"), reasoner)
    man = _rows(run_pipeline(reasoner, tiny_ontology, f"A 20-year-old man with {findings}"), reasoner)
    reason = "X-linked recessive inheritance in a female patient (carriers seldom show it)"
    assert reason in woman[world.LDS].against
    assert reason not in man[world.LDS].against
    assert not any(reason in row.against for row in woman.values() if row.id != world.LDS)


def test_a_disease_with_no_known_gene_says_so_apart_from_the_findings(
    reasoner: OfflineReasoner, tiny_ontology: Ontology
) -> None:
    # The deafness-anaemia syndrome is the one disease of the test world without a gene link.
    run = run_pipeline(reasoner, tiny_ontology, "Hearing impairment and anemia. No short stature.")
    synthesis = reasoner.synthesise(*run)
    top = synthesis.differential[0]
    assert top.id == world.DEAF
    assert "no gene known to cause it" in top.against
    assert f"Also against {top.name}: no gene known to cause it." in synthesis.answer
    # A reason that is not a finding is not described as one.
    assert "no gene known to cause it (absent in the patient" not in synthesis.answer
    assert not any("no gene known" in a for row in synthesis.differential[1:] for a in row.against)


def test_a_disease_scored_through_its_series_stays_below_the_member_it_borrows_from(
    tiny_ontology: Ontology,
) -> None:
    """OMIM:100000 (an id sorting before Marfan's) shows nothing once PMID:99 is left out and
    is scored through Marfan, its series sibling, just below it. Rounding the ranker's scores
    would make the two tie, and the differential breaks ties by id."""
    member = "OMIM:100000"
    series = [
        Relation(subject=d, predicate="IS_A", object="MONDO:0000900", sources=["MONDO"])
        for d in (world.MARFAN, member)
    ]
    extra = [
        Relation(
            subject=member, predicate="HAS_PHENOTYPE", object="HP:0001166", frequency=0.9, sources=["PMID:99"]
        ),
        Relation(subject=member, predicate="ASSOCIATED_GENE", object="NCBIGene:99", sources=["HPO"]),
        *series,
    ]
    entities = [
        *world.entities(),
        Entity(id=member, type="Disease", name="Marfan-like series member"),
        Entity(id="MONDO:0000900", type="DiseaseClass", name="fibrillinopathy"),
    ]
    reasoner = OfflineReasoner(
        ReasoningResources.from_parts(tiny_ontology, entities, [*world.relations(), *extra])
    )
    parsed = reasoner.parse_question(MARFAN_VIGNETTE).model_copy(update={"exclude_sources": ["PMID:99"]})
    ranked = reasoner._relational.rank(parsed, None, 10)
    answer = SubAnswer(text="ranked", entities=ranked, channel="relational")
    rows = reasoner.synthesise(
        parsed, SemanticResult(hops=[]), RelationalResult(hops=[]), [], [answer]
    ).differential
    ids = [r.id for r in rows]
    assert ids.index(member) == ids.index(world.MARFAN) + 1
    row = rows[ids.index(member)]
    assert row.series.endswith(f"({world.MARFAN})") and row.series_role == "scored_by"
    assert row.series_class == "fibrillinopathy (MONDO:0000900)"


def test_a_finding_the_disease_name_states_is_named_for_it_not_against(tiny_ontology: Ontology) -> None:
    """A name-read fact has no curated frequency; it must not read as 'almost never seen'."""
    entities = [
        Entity(id=e.id, type=e.type, name="Epilepsy-hypotonia syndrome with cleft palate")
        if e.id == world.EPI
        else e
        for e in world.entities()
    ]
    reasoner = OfflineReasoner(ReasoningResources.from_parts(tiny_ontology, entities, world.relations()))
    parsed = reasoner.parse_question("A child with seizures and a cleft palate.")
    row = next(r for r in reasoner._relational.rank(parsed, None, 10) if r.id == world.EPI)
    assert "Cleft palate" in row.for_
    assert "Cleft palate" not in row.against


def test_a_finding_opposite_to_a_curated_feature_is_named_against_with_that_feature(
    reasoner: OfflineReasoner, tiny_ontology: Ontology
) -> None:
    # Marfan syndrome is curated with tall stature (90 %); this patient is short.
    rows = _rows(
        run_pipeline(reasoner, tiny_ontology, "Arachnodactyly, ectopia lentis and short stature."), reasoner
    )
    opposite = "Short stature, the opposite of Tall stature (curated in 90%)"
    assert opposite in rows[world.MARFAN].against
    assert "Short stature" not in rows[world.MARFAN].for_
    # the same patient without the short stature: nothing opposite to name
    plain = _rows(run_pipeline(reasoner, tiny_ontology, "Arachnodactyly and ectopia lentis."), reasoner)
    assert not any("the opposite of" in a for row in plain.values() for a in row.against)
