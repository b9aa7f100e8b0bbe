"""Each offline step on hand-made evidence from the miniature knowledge base in `world.py`."""

from __future__ import annotations

from dataclasses import replace

import pytest

from meddiag.knowledge.hpo import Ontology
from meddiag.reasoning.base import RankedEntity, SubAnswer
from meddiag.reasoning.offline import OfflineReasoner
from meddiag.schema import KGEvidence, KGTriple, ParsedQuestion, TextEvidence, TriplePattern, Verification
from tests.reasoning import world

VIGNETTE = "A 14-year-old boy with spider fingers, aortic root dilatation and tall stature. No intellectual disability."


def _parsed(reasoner: OfflineReasoner, text: str = VIGNETTE, **changes: object) -> ParsedQuestion:
    return reasoner.parse_question(text).model_copy(update=changes)


def _answer(*ids_names: tuple[str, str]) -> SubAnswer:
    return SubAnswer(
        text="…",
        entities=[RankedEntity(id=i, name=n, score=1.0 - k / 10) for k, (i, n) in enumerate(ids_names)],
    )


def _marfan_fact(label: str, hpo_id: str, predicate: str = "HAS_PHENOTYPE", **fields: object) -> KGTriple:
    """A Marfan syndrome phenotype triple as a backend prints it."""
    return KGTriple(
        subject="Marfan syndrome",
        predicate=predicate,
        object=label,
        subject_id=world.MARFAN,
        object_id=hpo_id,
        **fields,  # type: ignore[arg-type]
    )


def test_parse_question_links_lay_synonyms_negation_age_and_sex(reasoner: OfflineReasoner) -> None:
    parsed = _parsed(reasoner)
    assert [(f.hpo_id, f.excluded) for f in parsed.findings] == [
        ("HP:0001166", False),
        ("HP:0002616", False),
        ("HP:0000098", False),
        ("HP:0001249", True),
    ]
    assert (parsed.kind, parsed.age_years, parsed.sex) == ("diagnosis", 14.0, "male")


def test_semantic_plan_names_findings_then_points_back(reasoner: OfflineReasoner) -> None:
    plan = reasoner.plan_semantic(_parsed(reasoner), [])
    assert "arachnodactyly" in plan[0] and "intellectual" not in plan[0]
    assert all("#1" in q for q in plan[1:])


def test_plans_for_genes_features_and_compare_questions(reasoner: OfflineReasoner) -> None:
    genes = reasoner.plan_semantic(_parsed(reasoner, "Which genes are associated with Marfan syndrome?"), [])
    assert genes[0] == "Which genes are associated with Marfan syndrome?" and "#1" in genes[1]
    compare = _parsed(reasoner, "How do Marfan syndrome and Loeys-Dietz syndrome differ?")
    assert compare.kind == "compare"
    assert reasoner.plan_semantic(compare, [])[-1] == "Which features distinguish #1 from #2?"
    rel = reasoner.plan_relational(compare, KGEvidence())
    assert [p[0].subject for p in rel] == [world.MARFAN, world.LDS]


def test_ground_resolves_references_and_marks_unresolved(reasoner: OfflineReasoner) -> None:
    answers = {
        1: _answer((world.MARFAN, "Marfan syndrome"), (world.LDS, "Loeys-Dietz syndrome 1")),
        2: SubAnswer(text="none"),
    }
    grounded, unresolved = reasoner.ground("Features of #1; genes of #2 and #3?", answers)
    assert grounded.startswith("Features of Marfan syndrome or Loeys-Dietz syndrome 1;")
    assert "#2" in grounded and "#3" in grounded  # kept visible, not dropped
    assert unresolved == ["#2", "#3"]


def test_filter_passages_keeps_relevant_and_drops_excluded_sources(reasoner: OfflineReasoner) -> None:
    parsed = _parsed(reasoner, exclude_sources=["PMID:4"])
    kept = reasoner.filter_passages("Which diseases present with arachnodactyly?", world.passages(), parsed)
    docs = [p.doc_id for p in kept]
    assert docs[0] == "profile/OMIM:154700"
    assert "profile/OMIM:609192" not in docs  # rests only on the excluded PMID:4
    assert "profile/OMIM:100001" not in docs  # about seizures: irrelevant to this patient


def test_summary_is_extracted_from_the_passages_with_doc_ids(reasoner: OfflineReasoner) -> None:
    passages = world.passages()[:2]
    summary = reasoner.summarise_passages("Which diseases present with arachnodactyly?", passages)
    assert "[profile/OMIM:154700]" in summary
    sentences = [s.rsplit(" [", 1)[0] for s in summary.split("] ") if s]
    assert all(any(s.strip() in p.text for p in passages) for s in sentences)


def test_semantic_answer_ranks_diseases_by_covered_findings(reasoner: OfflineReasoner) -> None:
    parsed = _parsed(reasoner)
    answer = reasoner.answer_semantic("Which diseases present with …?", "", world.passages(), parsed)
    assert [e.id for e in answer.entities[:2]] == [world.MARFAN, world.LDS]  # MONDO passage pooled into OMIM
    assert set(answer.entities[0].for_) == {"Arachnodactyly", "Aortic root aneurysm", "Tall stature"}
    assert answer.channel == "semantic"


def test_relational_plan_uses_entity_placeholders(reasoner: OfflineReasoner) -> None:
    hops = reasoner.plan_relational(_parsed(reasoner), KGEvidence())
    assert {p.subject for p in hops[0]} == {"Entity#1"}
    assert {p.object for p in hops[0]} == {"HP:0001166", "HP:0002616", "HP:0000098"}
    assert any(p.predicate == "NOT_HAS_PHENOTYPE" and p.object == "HP:0001249" for p in hops[1])
    assert {p.subject for p in hops[2]} == {"Entity#2"}


def test_resolve_binds_answered_hops_and_reports_empty_ones(reasoner: OfflineReasoner) -> None:
    patterns = [
        TriplePattern(subject="Entity#1", predicate="ASSOCIATED_GENE", object="?"),
        TriplePattern(subject="Entity#2", predicate="HAS_ONSET", object="?"),
        TriplePattern(subject="Entity#3", predicate="HAS_PHENOTYPE", object="HP:0001166"),
    ]
    bindings = {1: _answer((world.MARFAN, "Marfan syndrome"), (world.LDS, "LDS")), 2: SubAnswer(text="none")}
    resolved, unresolved = reasoner.resolve(patterns, bindings)
    assert [p.subject for p in resolved] == [world.MARFAN, world.LDS, "Entity#2", "Entity#3"]
    assert unresolved == ["Entity#2"]  # answered but empty; Entity#3 is this hop's own unknown


def test_filter_triples_by_pattern_hierarchy_frequency_and_sources(
    reasoner: OfflineReasoner, tiny_ontology: Ontology
) -> None:
    triples = [world.triple(r, tiny_ontology) for r in world.relations()]
    generic = _marfan_fact(
        "Abnormality of the skeletal system",
        "HP:0000924",
        "has phenotype",  # as upstream prints the predicate
        weight=0.9,
        frequency=0.9,
        provenance=["PMID:1"],
    )
    patterns = [
        TriplePattern(subject="Entity#1", predicate="HAS_PHENOTYPE", object="HP:0000924"),  # skeletal
        TriplePattern(subject="Entity#1", predicate="HAS_PHENOTYPE", object="HP:0004322"),  # short stature
    ]
    parsed = _parsed(reasoner, exclude_sources=["PMID:1"])
    kept, dropped = reasoner.filter_triples(patterns, [*triples, generic], parsed)
    keys = {(t.subject_id, t.object_id) for t in kept}
    assert (world.MARFAN, "HP:0000098") in keys  # tall stature is under the skeletal pattern
    assert (world.LDS, "HP:0001166") in keys
    assert (world.MARFAN, "HP:0001166") not in keys  # rests only on excluded PMID:1
    assert (world.EPI, "HP:0004322") in keys
    assert (world.DEAF, "HP:0004322") not in keys  # 2 %: too rare to count
    assert all(t.predicate == "HAS_PHENOTYPE" for t in kept)
    assert dropped == len(triples) + 1 - len(kept)


def test_relational_answer_ranks_by_phenotype_similarity(
    reasoner: OfflineReasoner, tiny_ontology: Ontology
) -> None:
    parsed = _parsed(reasoner)
    triples = [world.triple(r, tiny_ontology) for r in world.relations() if r.predicate == "HAS_PHENOTYPE"]
    patterns = reasoner.plan_relational(parsed, KGEvidence())[0]
    kept, _ = reasoner.filter_triples(patterns, triples, parsed)
    answer = reasoner.answer_relational(patterns, kept, parsed)
    assert [e.id for e in answer.entities][:2] == [world.MARFAN, world.LDS]
    assert "Intellectual disability" in answer.entities[1].against
    # Below them only what the examined-and-absent intellectual disability puts there, saying so.
    for e in answer.entities[2:]:
        assert e.for_ == [] and "Intellectual disability" in e.against
        assert "examined and reported absent" in e.caveats[0]
    assert answer.channel == "relational"


def test_exclude_sources_reaches_the_ranking(reasoner: OfflineReasoner) -> None:
    parsed = _parsed(reasoner, "spider fingers and aortic root dilatation")
    without = _parsed(
        reasoner, "spider fingers and aortic root dilatation", exclude_sources=["PMID:1", "PMID:2"]
    )
    patterns = reasoner.plan_relational(parsed, KGEvidence())[0]
    before = {e.id: e for e in reasoner.answer_relational(patterns, [], parsed).entities}
    after = {e.id: e for e in reasoner.answer_relational(patterns, [], without).entities}
    assert "Aortic root aneurysm" in before[world.MARFAN].for_
    assert "Aortic root aneurysm" not in after.get(world.MARFAN, RankedEntity(id="", name="", score=0)).for_


def test_verify_wants_support_and_a_margin(reasoner: OfflineReasoner) -> None:
    parsed = _parsed(reasoner)
    strong = SubAnswer(
        text="",
        entities=[
            RankedEntity(id=world.MARFAN, name="Marfan syndrome", score=1.0, **{"for": ["A", "B", "C"]}),
            RankedEntity(id=world.LDS, name="LDS", score=0.5, **{"for": ["A"]}),
        ],
    )
    tied = SubAnswer(
        text="",
        entities=[
            RankedEntity(id=world.MARFAN, name="Marfan syndrome", score=1.0, **{"for": ["A", "B"]}),
            RankedEntity(id=world.LDS, name="LDS", score=0.999, **{"for": ["A", "B"]}),
        ],
    )
    assert reasoner.verify(parsed, [strong]).sufficient
    verdict = reasoner.verify(parsed, [tied])
    assert not verdict.sufficient and "tied" in verdict.reason
    assert not reasoner.verify(parsed, []).sufficient


def test_expand_writes_text_or_patterns_per_channel(reasoner: OfflineReasoner) -> None:
    parsed = _parsed(reasoner)
    insufficient = Verification(sufficient=False, reason="tied")
    entities = [
        RankedEntity(id=world.MARFAN, name="Marfan syndrome", score=1.0),
        RankedEntity(id=world.LDS, name="LDS", score=1.0),
    ]
    semantic = reasoner.expand(
        parsed, [SubAnswer(text="", entities=entities, channel="semantic")], insufficient
    )
    relational = reasoner.expand(
        parsed, [SubAnswer(text="", entities=entities, channel="relational")], insufficient
    )
    assert semantic[0] == "Which features distinguish Marfan syndrome from LDS?" and len(semantic) <= 2
    assert relational == [f"({world.MARFAN}, HAS_PHENOTYPE, ?); ({world.LDS}, HAS_PHENOTYPE, ?)"]
    assert reasoner.expand(parsed, [], Verification(sufficient=True, reason="ok")) == []


def test_ground_uses_only_the_leading_kind_of_entity(reasoner: OfflineReasoner) -> None:
    features = SubAnswer(
        text="…",
        entities=[
            RankedEntity(id=world.MARFAN, name="Marfan syndrome", score=0),
            RankedEntity(id="HP:0001166", name="Arachnodactyly", score=2),
        ],
    )
    assert reasoner.ground("Genes of #1?", {1: features}) == ("Genes of Marfan syndrome?", [])


def test_gene_hop_two_answers_the_diseases_sharing_the_gene(
    reasoner: OfflineReasoner, tiny_ontology: Ontology
) -> None:
    parsed = _parsed(reasoner, "Which genes are associated with Marfan syndrome?")
    triples = [world.triple(r, tiny_ontology) for r in world.relations()]
    hop1, hop2 = reasoner.plan_relational(parsed, KGEvidence())
    kept, _ = reasoner.filter_triples(hop1, triples, parsed)
    first = reasoner.answer_relational(hop1, kept, parsed)
    assert [e.id for e in first.entities] == ["NCBIGene:2200"]
    resolved, unresolved = reasoner.resolve(hop2, {1: first})
    assert (
        resolved == [TriplePattern(subject="?", predicate="ASSOCIATED_GENE", object="NCBIGene:2200")]
        and not unresolved
    )
    kept, _ = reasoner.filter_triples(resolved, triples, parsed)
    second = reasoner.answer_relational(resolved, kept, parsed)
    assert [e.id for e in second.entities] == [world.MARFAN]


def test_disease_questions_prefer_passages_that_name_a_disease(reasoner: OfflineReasoner) -> None:
    definition = TextEvidence(
        ref_id="9",
        doc_id="hpo/HP:0001166",
        title="Arachnodactyly",
        text="Arachnodactyly: abnormally long and slender fingers. Aortic root aneurysm and tall stature are separate terms.",
    )
    passages = [definition, *world.passages()]
    kept = reasoner.filter_passages(
        "Which diseases present with arachnodactyly?", passages, _parsed(reasoner)
    )
    docs = [p.doc_id for p in kept]
    assert docs.index("profile/OMIM:154700") < docs.index("hpo/HP:0001166")
    answer = reasoner.answer_semantic(
        "Which diseases present with arachnodactyly?", "", kept[:1], _parsed(reasoner)
    )
    assert answer.entities and answer.entities[0].id == world.MARFAN


def test_a_candidate_scored_through_its_series_is_kept_and_says_so(
    reasoner: OfflineReasoner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """All of LDS's own facts hidden: the ranker scores it as its series member Marfan. The
    relational channel keeps it (no finding of its own explains it) and names that member;
    a candidate with neither a matching finding nor a series is still dropped."""
    from meddiag.diagnosis import ranking

    def ranked(*args: object, **kwargs: object) -> list[ranking.RankedDisease]:
        return [
            ranking.RankedDisease(
                id=world.LDS,
                name="LDS",
                score=2.0,
                rank=1,
                series=world.MARFAN,
                series_role="scored_by",
                series_class=world.MONDO_MARFAN,
            ),
            ranking.RankedDisease(id=world.EPI, name="EPI", score=1.0, rank=2),
        ]

    monkeypatch.setattr(ranking, "rank_diseases", ranked)
    entities = reasoner._relational.rank(_parsed(reasoner), None, 10)
    assert [e.id for e in entities] == [world.LDS]
    assert entities[0].for_ == [] and entities[0].series == f"Marfan syndrome ({world.MARFAN})"
    assert entities[0].series_role == "scored_by"
    assert entities[0].series_class == f"Marfan syndrome ({world.MONDO_MARFAN})"  # named like the member
    # A class the knowledge base has no name for is shown by its id alone, not as "id (id)".
    unnamed = "MONDO:0000800"
    ranked_unnamed = [replace(r, series_class=unnamed) if r.series else r for r in ranked()]
    monkeypatch.setattr(ranking, "rank_diseases", lambda *a, **k: ranked_unnamed)
    assert reasoner._relational.rank(_parsed(reasoner), None, 10)[0].series_class == unnamed


def test_a_candidate_ranked_on_features_examined_and_absent_is_kept_and_says_so(
    reasoner: OfflineReasoner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No reported finding matches LDS, but the case reports its features examined and absent,
    which the ranker counts as a sign the diagnosis was considered: the relational channel
    keeps the ranker's order and says what the place rests on."""
    from meddiag.diagnosis import ranking

    examined = ranking.FindingConflict(
        finding="HP:0002616",
        finding_label="Aortic root aneurysm",
        disease_term="HP:0002616",
        frequency=0.8,
        kind="excluded_but_expected",
        sources=("PMID:4",),
    )

    def ranked(*args: object, **kwargs: object) -> list[ranking.RankedDisease]:
        return [
            ranking.RankedDisease(id=world.LDS, name="LDS", score=2.0, rank=1, against=(examined,)),
            ranking.RankedDisease(id=world.EPI, name="EPI", score=1.0, rank=2),
        ]

    monkeypatch.setattr(ranking, "rank_diseases", ranked)
    entities = reasoner._relational.rank(_parsed(reasoner), None, 10)
    assert [e.id for e in entities] == [world.LDS]
    assert entities[0].for_ == [] and entities[0].against == ["Aortic root aneurysm"]
    assert entities[0].caveats and "examined and reported absent" in entities[0].caveats[0]


def test_a_features_answer_orders_by_curated_frequency(
    reasoner: OfflineReasoner, tiny_ontology: Ontology
) -> None:
    parsed = _parsed(reasoner, "What are the features of Marfan syndrome?")
    triples = [world.triple(r, tiny_ontology) for r in world.relations()]
    # upstream's edge weight when nothing is known is 1.0: not a frequency
    unstated = _marfan_fact("Intellectual disability", "HP:0001249", weight=1.0)
    patterns = [TriplePattern(subject=world.MARFAN, predicate="HAS_PHENOTYPE", object="?")]
    kept, _ = reasoner.filter_triples(patterns, [unstated, *triples], parsed)
    answer = reasoner.answer_relational(patterns, kept, parsed)
    scores = [e.score for e in answer.entities]
    assert scores == sorted(scores, reverse=True)
    ids = [e.id for e in answer.entities]
    # 90 % features, then 60 %, then one without a frequency (counted as half the patients),
    # although upstream's weight 1.0 would have put it first
    assert set(ids[:3]) == {"HP:0001166", "HP:0002616", "HP:0000098"}
    assert ids[3:] == ["HP:0001083", "HP:0001249"]


def test_features_and_genes_come_only_from_passages_about_the_named_disease(
    reasoner: OfflineReasoner,
) -> None:
    parsed = _parsed(reasoner, "What are the features of Loeys-Dietz syndrome 1?")
    passages = world.passages()  # Marfan's profile first: its features must not be lent
    features = reasoner.answer_semantic(
        "What are the characteristic features of Loeys-Dietz syndrome 1?", "", passages, parsed
    )
    named = [e.id for e in features.entities]
    assert named[0] == world.LDS
    assert "HP:0012300" not in named and "HP:0001166" not in named  # Marfan's lens and fingers
    assert {"HP:0002616", "HP:0000175"} <= set(named)  # aortic root aneurysm, cleft palate
    genes = reasoner.answer_semantic(
        "Which genes are associated with Loeys-Dietz syndrome 1?", "", passages, parsed
    )
    assert [e.name for e in genes.entities] == ["TGFBR1"]
