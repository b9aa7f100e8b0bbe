"""Synthesis: a fused, cited differential whose citations resolve only to evidence the hops kept."""

from __future__ import annotations

import json
import re

import pytest

from meddiag.diagnosis.fusion import fuse_scores, fused_order
from meddiag.knowledge.hpo import Ontology
from meddiag.reasoning.base import RankedEntity, SubAnswer
from meddiag.reasoning.offline import OfflineReasoner
from meddiag.schema import (
    Citation,
    ParsedQuestion,
    RelationalResult,
    SemanticResult,
    Synthesis,
)
from tests.reasoning import world
from tests.reasoning.pipeline import Run, run_pipeline

VIGNETTE = "A 14-year-old boy with spider fingers, aortic root dilatation and tall stature. No intellectual disability."


def _run(reasoner: OfflineReasoner, onto: Ontology, question: str = VIGNETTE) -> Run:
    return run_pipeline(reasoner, onto, question)


def _synthesised(reasoner: OfflineReasoner, onto: Ontology, question: str) -> tuple[Run, Synthesis]:
    """The question through both channels, and its synthesis."""
    run = _run(reasoner, onto, question)
    return run, reasoner.synthesise(*run)


def _resolves(c: Citation, semantic: SemanticResult, relational: RelationalResult) -> bool:
    if c.kind == "passage":
        return any(
            c.doc_id == p.doc_id and p.text.startswith(c.text)
            for h in semantic.hops
            if h.index == c.hop
            for p in h.passages
        )
    return any(
        (c.subject, c.predicate, c.object, c.provenance) == (t.subject, t.predicate, t.object, t.provenance)
        for h in relational.hops
        if h.index == c.hop
        for t in h.triples
    )


@pytest.fixture(scope="module")
def run(reasoner: OfflineReasoner, tiny_ontology: Ontology):
    return _run(reasoner, tiny_ontology)


@pytest.fixture(scope="module")
def synthesis(reasoner: OfflineReasoner, run) -> Synthesis:
    return reasoner.synthesise(*run)


def test_differential_puts_the_matching_disease_first(synthesis: Synthesis) -> None:
    top = synthesis.differential[0]
    assert top.id == world.MARFAN
    assert set(top.channels) == {"semantic", "relational"}
    assert {"Arachnodactyly", "Aortic root aneurysm", "Tall stature"} <= set(top.for_)
    assert "Intellectual disability" in synthesis.differential[1].against  # LDS has it, the patient does not


def test_the_fused_channel_scores_are_recorded_and_order_the_differential(synthesis: Synthesis) -> None:
    rel, sem = synthesis.channel_scores["relational"], synthesis.channel_scores["semantic"]
    assert world.MARFAN in rel and world.MARFAN in sem
    ids = [e.id for e in synthesis.differential]
    graph_rows = [d for d in ids if d in rel]
    # Text-only candidates never precede the graph's (this world has none; test_fusion covers them).
    assert ids[: len(graph_rows)] == graph_rows
    scores = [e.score for e in synthesis.differential]
    assert scores == sorted(scores, reverse=True)


def test_the_recorded_channel_scores_refuse_to_the_same_differential(
    synthesis: Synthesis, reasoner: OfflineReasoner
) -> None:
    """`bench/fusion_weights.py` re-fuses the recorded scores: rounding them would turn a series
    member's tiny gap below the disease it borrows from into a tie broken by id."""
    recorded = json.loads(synthesis.model_dump_json())["channel_scores"]
    rel, sem = recorded["relational"], recorded["semantic"]
    assert any(s != round(s, 4) for s in rel.values())
    weight, size = reasoner.params.semantic_weight, reasoner.params.differential_size
    assert fused_order(fuse_scores(rel, sem, weight), size) == [e.id for e in synthesis.differential]


def test_every_citation_resolves_to_retrieved_evidence(synthesis: Synthesis, run) -> None:
    _, semantic, relational, _, _ = run
    assert synthesis.citations
    assert [c.n for c in synthesis.citations] == list(range(1, len(synthesis.citations) + 1))
    assert all(_resolves(c, semantic, relational) for c in synthesis.citations)
    numbers = {c.n for c in synthesis.citations}
    markers = {int(n) for n in re.findall(r"\[(\d+)\]", synthesis.answer)}
    assert markers and markers <= numbers
    assert all(set(e.citations) <= numbers for e in synthesis.differential)


def test_citations_never_point_outside_the_hops(reasoner: OfflineReasoner, run) -> None:
    parsed, semantic, relational, sem_answers, rel_answers = run
    # The same answers but the hops kept nothing: nothing may be cited.
    empty_sem = SemanticResult(hops=[h.model_copy(update={"passages": []}) for h in semantic.hops])
    empty_rel = RelationalResult(hops=[h.model_copy(update={"triples": []}) for h in relational.hops])
    result = reasoner.synthesise(parsed, empty_sem, empty_rel, sem_answers, rel_answers)
    assert result.citations == []
    assert "[" not in result.answer


def test_agreement_states(reasoner: OfflineReasoner, run, synthesis: Synthesis) -> None:
    parsed, semantic, relational, _sem_answers, rel_answers = run
    assert synthesis.agreement.status == "agree"

    def ans(*ids: str) -> list[SubAnswer]:
        return [
            SubAnswer(
                text="", entities=[RankedEntity(id=i, name=i, score=1.0 - k / 10) for k, i in enumerate(ids)]
            )
        ]

    partial = reasoner.synthesise(
        parsed, semantic, relational, ans(world.LDS, world.MARFAN), ans(world.MARFAN, world.LDS)
    )
    assert partial.agreement.status == "partial"
    disagree = reasoner.synthesise(parsed, semantic, relational, ans(world.EPI), ans(world.MARFAN))
    assert disagree.agreement.status == "disagree"
    single = reasoner.synthesise(parsed, SemanticResult(), relational, [], rel_answers)
    assert single.agreement.status == "single-channel"
    assert all(c.channel == "relational" for c in single.citations)


def test_gene_question_cites_gene_triples(reasoner: OfflineReasoner, tiny_ontology: Ontology) -> None:
    parsed, semantic, relational, sem_answers, rel_answers = _run(
        reasoner, tiny_ontology, "Which genes are associated with Marfan syndrome?"
    )
    result = reasoner.synthesise(parsed, semantic, relational, sem_answers, rel_answers)
    assert "FBN1" in result.answer
    gene_cites = [c for c in result.citations if c.predicate == "ASSOCIATED_GENE"]
    assert gene_cites and gene_cites[0].object == "FBN1"
    assert all(_resolves(c, semantic, relational) for c in result.citations)


def test_no_finding_answer_says_so(reasoner: OfflineReasoner) -> None:
    parsed = ParsedQuestion(text="What is the weather like?", kind="unknown")
    result = reasoner.synthesise(parsed, SemanticResult(), RelationalResult(), [], [])
    assert result.citations == [] and result.differential == []
    assert "does not answer" in result.answer


def test_compare_question_contrasts_annotated_features(
    reasoner: OfflineReasoner, tiny_ontology: Ontology
) -> None:
    parsed, semantic, relational, sem_answers, rel_answers = _run(
        reasoner, tiny_ontology, "How do Marfan syndrome and Loeys-Dietz syndrome differ?"
    )
    result = reasoner.synthesise(parsed, semantic, relational, sem_answers, rel_answers)
    assert "Both Marfan syndrome and Loeys-Dietz syndrome 1 are annotated with" in result.answer
    only = re.search(r"Only Marfan syndrome: (.*?); only Loeys-Dietz syndrome 1: (.*?)\.", result.answer)
    assert only is not None
    assert "Tall stature" in only.group(1) and "Cleft palate" in only.group(2)
    assert "Aortic root aneurysm" not in only.group(1)  # shared, so not distinguishing
    assert all(_resolves(c, semantic, relational) for c in result.citations)


def test_findings_against_the_top_candidate_are_cited(
    reasoner: OfflineReasoner, tiny_ontology: Ontology
) -> None:
    question = "Aortic root dilatation, cleft palate and arachnodactyly; no intellectual disability."
    parsed, semantic, relational, sem_answers, rel_answers = _run(reasoner, tiny_ontology, question)
    result = reasoner.synthesise(parsed, semantic, relational, sem_answers, rel_answers)
    top = result.differential[0]
    assert top.id == world.LDS and top.against == ["Intellectual disability"]
    against = re.search(r"Against Loeys-Dietz syndrome 1: [^.]*?((?:\[\d+\])+)\.", result.answer)
    assert against is not None
    cited = [result.citations[int(n) - 1] for n in re.findall(r"\d+", against.group(1))]
    assert [(c.subject, c.predicate, c.object) for c in cited] == [
        ("Loeys-Dietz syndrome 1", "HAS_PHENOTYPE", "Intellectual disability")
    ]


_SCORED_BY = ", with no curated feature of its own visible, scored as the member of its disease series"
_SCORED_BY_NAMED = (
    ", though with no curated feature of its own visible its place comes from its disease series, "
    "scored as the member"
)
_SHRUNK = (
    ", whose own curated features match none of the findings, placed by what it borrows from the "
    "member of its disease series"
)
_SHRUNK_SUPPORTED = (
    ", though its own curated features match none of the findings, so its place comes from what it "
    "borrows from the member of its disease series"
)
_UNKNOWN = ", placed through the member of its disease series"
_UNKNOWN_SUPPORTED = ", though its place comes from its disease series, through the member"
_SERIES_CLAUSE_OPENINGS = [
    _SCORED_BY,
    _SCORED_BY_NAMED,
    _SHRUNK,
    _SHRUNK_SUPPORTED,
    _UNKNOWN,
    _UNKNOWN_SUPPORTED,
]


@pytest.mark.parametrize(
    ("role", "own", "clause"),
    [
        ("scored_by", [], _SCORED_BY),
        # What its name states may match a finding while its place is still the series member's.
        ("scored_by", ["Arachnodactyly"], _SCORED_BY_NAMED),
        ("shrunk_toward", [], _SHRUNK),
        ("shrunk_toward", ["Arachnodactyly"], _SHRUNK_SUPPORTED),
        # A row recorded before the role was kept.
        (None, [], _UNKNOWN),
        (None, ["Arachnodactyly"], _UNKNOWN_SUPPORTED),
    ],
)
def test_a_candidate_placed_by_its_series_says_how_in_the_row_and_the_answer(
    reasoner: OfflineReasoner, run, role: str | None, own: list[str], clause: str
) -> None:
    parsed, _semantic, relational, _sem_answers, _rel_answers = run
    stand_in = f"Marfan syndrome ({world.MARFAN})"
    entity = RankedEntity(
        id=world.LDS, name="LDS", score=2.0, series=stand_in, series_role=role, **{"for": own}
    )
    out = reasoner.synthesise(
        parsed, SemanticResult(), relational, [], [SubAnswer(text="", entities=[entity])]
    )
    top = out.differential[0]
    assert (top.id, top.for_, top.series, top.series_role) == (world.LDS, own, stand_in, role)
    assert f"{clause} that fits best, {stand_in}" in out.answer
    # Each wording belongs to one case only.
    assert [c for c in _SERIES_CLAUSE_OPENINGS if c in out.answer] == [clause]
    # The class the member shares with it follows the member's name.
    shared = entity.model_copy(update={"series_class": "fibrillinopathy (MONDO:0000900)"})
    out = reasoner.synthesise(
        parsed, SemanticResult(), relational, [], [SubAnswer(text="", entities=[shared])]
    )
    assert out.differential[0].series_class == "fibrillinopathy (MONDO:0000900)"
    assert (
        f"{clause} that fits best, {stand_in}, of the same MONDO class fibrillinopathy (MONDO:0000900)"
        in (out.answer)
    )


def test_rows_the_evidence_scores_exactly_alike_are_marked_tied_and_the_answer_says_so(
    reasoner: OfflineReasoner, run
) -> None:
    parsed, _semantic, relational, _sem_answers, _rel_answers = run

    def answers(lds_score: float) -> list[SubAnswer]:
        ranked = [(world.MARFAN, 2.0), (world.LDS, lds_score), (world.EPI, 1.0)]
        return [SubAnswer(text="", entities=[RankedEntity(id=i, name=i, score=s) for i, s in ranked])]

    tied = reasoner.synthesise(parsed, SemanticResult(), relational, [], answers(2.0))
    assert [e.id for e in tied.differential] == [world.MARFAN, world.LDS, world.EPI]  # by id
    assert tied.differential[0].tied_with == [world.LDS]
    assert tied.differential[1].tied_with == [world.MARFAN]
    assert tied.differential[2].tied_with == []
    assert "Loeys-Dietz syndrome 1 scores exactly the same on this evidence" in tied.answer
    # A gap however small is no tie (a profile with nothing visible sits just below its lender).
    apart = reasoner.synthesise(parsed, SemanticResult(), relational, [], answers(2.0 - 1e-6))
    assert all(not e.tied_with for e in apart.differential)
    assert "exactly the same" not in apart.answer


def test_a_runner_up_closer_than_the_table_shows_is_named_as_practically_level(
    reasoner: OfflineReasoner, run
) -> None:
    parsed, _semantic, relational, _sem_answers, _rel_answers = run

    def synthesise(lds_score: float) -> Synthesis:
        ranked = [(world.MARFAN, 2.0), (world.LDS, lds_score), (world.EPI, 1.0)]
        answers = [SubAnswer(text="", entities=[RankedEntity(id=i, name=i, score=s) for i, s in ranked])]
        return reasoner.synthesise(parsed, SemanticResult(), relational, [], answers)

    level = (
        "Loeys-Dietz syndrome 1 scores within 0.01 of Marfan syndrome: on this evidence the two are "
        "practically level"
    )
    close = synthesise(1.999)
    first, second, _ = close.differential
    assert 0 < first.score - second.score < 0.01 and not first.tied_with
    assert level in close.answer
    assert level not in synthesise(1.5).answer
    assert level not in synthesise(2.0).answer  # an exact tie is worded as such


def test_a_named_gene_puts_its_disease_first_and_the_answer_says_why(
    reasoner: OfflineReasoner, tiny_ontology: Ontology
) -> None:
    plain = reasoner.synthesise(*_run(reasoner, tiny_ontology))
    assert plain.differential[0].id == world.MARFAN
    named = reasoner.synthesise(
        *_run(reasoner, tiny_ontology, VIGNETTE + " Genetic testing found a variant in TGFBR1.")
    )
    top = named.differential[0]
    assert (top.id, top.genes) == (world.LDS, ["TGFBR1"])
    assert all(not e.genes for e in named.differential[1:])
    assert "a disease of the named gene TGFBR1" in named.answer


def test_a_features_answer_leads_with_the_most_frequent_features_and_states_how_often(
    reasoner: OfflineReasoner, tiny_ontology: Ontology
) -> None:
    (_, semantic, relational, _, _), result = _synthesised(
        reasoner, tiny_ontology, "What are the features of Marfan syndrome?"
    )
    listed = re.search(r"Annotated features of Marfan syndrome: (.*?)\.", result.answer)
    assert listed is not None
    names = [re.sub(r" \(\d+%\) \[\d+\]$", "", x) for x in listed.group(1).split(", ")]
    # 90 % (arachnodactyly, aortic root aneurysm, tall stature) before 60 % (ectopia lentis)
    assert names.index("Ectopia lentis") == 3, names
    assert "Ectopia lentis (60%)" in listed.group(1)
    assert all(_resolves(c, semantic, relational) for c in result.citations)


@pytest.mark.parametrize(
    ("question", "expected", "term"),
    [
        (
            "How is Marfan syndrome inherited?",
            "Mode of inheritance of Marfan syndrome: Autosomal dominant",
            "HP:0000006",
        ),
        (
            "At what age does Marfan syndrome start?",
            "Age of onset of Marfan syndrome: Congenital onset",
            "HP:0003577",
        ),
    ],
)
def test_inheritance_and_onset_questions_answer_from_their_triples(
    reasoner: OfflineReasoner, tiny_ontology: Ontology, question: str, expected: str, term: str
) -> None:
    (_, semantic, relational, _, rel_answers), result = _synthesised(reasoner, tiny_ontology, question)
    assert expected in result.answer
    assert result.differential == []
    assert [e.id for e in rel_answers[0].entities] == [term]
    assert all(_resolves(c, semantic, relational) for c in result.citations)


def test_the_text_channel_reads_a_mode_of_inheritance_by_its_label(
    reasoner: OfflineReasoner, tiny_ontology: Ontology
) -> None:
    # "Inheritance is autosomal dominant" in Marfan syndrome's profile: outside the phenotype branch
    (_, _, _, sem_answers, _), result = _synthesised(
        reasoner, tiny_ontology, "How is Marfan syndrome inherited?"
    )
    assert [e.id for e in sem_answers[0].entities] == [world.MARFAN, "HP:0000006"]
    assert result.agreement.status == "agree"


def test_a_genes_diseases_are_listed_from_its_triples(
    reasoner: OfflineReasoner, tiny_ontology: Ontology
) -> None:
    (parsed, semantic, relational, sem_answers, _), result = _synthesised(
        reasoner, tiny_ontology, "Which diseases are associated with FBN1?"
    )
    assert parsed.kind == "gene_diseases"
    assert re.search(r"Diseases associated with FBN1: Marfan syndrome \[\d+\]\.", result.answer)
    assert "Loeys-Dietz" not in result.answer.split("Diseases associated with FBN1:")[1].split(".")[0]
    assert [e.id for e in sem_answers[0].entities][:1] == [world.MARFAN]  # the passage naming FBN1
    assert all(_resolves(c, semantic, relational) for c in result.citations)
