"""A hand-made answered case, for testing rendering without an engine."""

from __future__ import annotations

from meddiag.diagnosis.onset import onset_of_class
from meddiag.schema import (
    Agreement,
    AskResult,
    Citation,
    DifferentialEntry,
    Finding,
    KGTriple,
    LabValue,
    NodeEvent,
    ParsedQuestion,
    ReasonerInfo,
    RelationalHop,
    RelationalResult,
    SemanticHop,
    SemanticResult,
    Synthesis,
    TextEvidence,
    TriplePattern,
    Verification,
)

QUESTION = "Tall boy with arachnodactyly and ectopia lentis: differential?"
SODIUM_WITHIN_RANGE = LabValue(
    analyte="sodium",
    value=140,
    unit="mmol/L",
    reading="normal",
    limit="within 135–145 mmol/L",
    mention="sodium 140",
)


def marfan_triples() -> list[KGTriple]:
    return [
        KGTriple(
            subject="Marfan syndrome",
            subject_id="OMIM:154700",
            predicate="HAS_PHENOTYPE",
            object="Arachnodactyly",
            object_id="HP:0001166",
            weight=0.9,
            provenance=["PMID:111", "OMIM:154700"],
        ),
        KGTriple(
            subject="Marfan syndrome",
            subject_id="OMIM:154700",
            predicate="ASSOCIATED_GENE",
            object="FBN1",
            object_id="HGNC:3603",
            provenance=["HPO"],
        ),
        KGTriple(
            subject="Homocystinuria <CBS>",
            subject_id="OMIM:236200",
            predicate="HAS_PHENOTYPE",
            object="Ectopia lentis",
            object_id="HP:0001083",
            provenance=["PMID:222"],
        ),
    ]


def sample_result(*, channels: str = "both") -> AskResult:
    passage = TextEvidence(
        ref_id="1",
        doc_id="profile/OMIM:154700",
        source="profile",
        title="Marfan syndrome",
        text="Marfan syndrome: arachnodactyly (very frequent), ectopia lentis (frequent).",
        provenance=["PMID:111"],
        score=0.82,
    )
    semantic = SemanticResult(
        hops=[
            SemanticHop(
                index=1,
                sub_query="Which diseases present with arachnodactyly and ectopia lentis?",
                grounded_query="Which diseases present with arachnodactyly and ectopia lentis?",
                passages=[passage],
                summary="Marfan syndrome features both findings.",
                sub_answer="Marfan syndrome",
                logic=["Passage 1 lists both findings for Marfan syndrome."],
            ),
            SemanticHop(
                index=2,
                sub_query="Which gene causes #1?",
                grounded_query="Which gene causes Marfan syndrome?",
                sub_answer="FBN1",
            ),
        ],
        verification=Verification(sufficient=True, reason="Both findings are explained."),
    )
    triples = marfan_triples()
    relational = RelationalResult(
        hops=[
            RelationalHop(
                index=1,
                triple_queries=[
                    TriplePattern(subject="?", predicate="HAS_PHENOTYPE", object="Arachnodactyly")
                ],
                resolved_queries=[
                    TriplePattern(subject="?", predicate="HAS_PHENOTYPE", object="Arachnodactyly")
                ],
                triples=[triples[0], triples[2]],
                dropped=1,
                sub_answer="Marfan syndrome; Homocystinuria",
                answer_entities=["OMIM:154700"],
            ),
            RelationalHop(
                index=2,
                triple_queries=[TriplePattern(subject="Entity#1", predicate="ASSOCIATED_GENE", object="?")],
                resolved_queries=[
                    TriplePattern(subject="Marfan syndrome", predicate="ASSOCIATED_GENE", object="?")
                ],
                triples=[triples[1]],
                sub_answer="FBN1",
            ),
        ]
    )
    synthesis = Synthesis(
        answer="Marfan syndrome is the leading diagnosis [1] [2]; homocystinuria remains possible [3].",
        differential=[
            DifferentialEntry(
                id="OMIM:154700",
                name="Marfan syndrome",
                score=0.91,
                **{"for": ["Arachnodactyly", "Ectopia lentis"]},
                channels=["semantic", "relational"],
                citations=[1, 2],
            ),
            DifferentialEntry(
                id="OMIM:236200",
                name="Homocystinuria",
                score=0.42,
                **{"for": ["Ectopia lentis"]},
                against=["Intellectual disability absent"],
                channels=["relational"],
                citations=[3],
            ),
        ],
        citations=[
            Citation(
                n=1,
                kind="passage",
                channel="semantic",
                hop=1,
                doc_id=passage.doc_id,
                text=passage.text,
                provenance=["PMID:111"],
            ),
            Citation(
                n=2,
                kind="triple",
                channel="relational",
                hop=1,
                subject="Marfan syndrome",
                predicate="HAS_PHENOTYPE",
                object="Arachnodactyly",
                provenance=["PMID:111", "OMIM:154700"],
            ),
            Citation(
                n=3,
                kind="triple",
                channel="relational",
                hop=1,
                subject="Homocystinuria <CBS>",
                predicate="HAS_PHENOTYPE",
                object="Ectopia lentis",
                provenance=["PMID:222"],
            ),
        ],
        agreement=Agreement(status="agree", detail="Both channels rank Marfan syndrome first."),
    )
    events = [
        NodeEvent(node="parse_question", channel="parent", start=0.0, end=0.01),
        NodeEvent(node="initial_retrieval", channel="parent", start=0.01, end=0.05),
        NodeEvent(node="retrieve", channel="semantic", hop=1, start=0.06, end=0.20),
        NodeEvent(node="retrieve", channel="relational", hop=1, start=0.06, end=0.15),
        NodeEvent(node="answer", channel="semantic", hop=2, start=0.20, end=0.30),
        NodeEvent(node="answer", channel="relational", hop=2, start=0.15, end=0.28, status="fallback"),
        NodeEvent(node="synthesis", channel="parent", start=0.31, end=0.35),
    ]
    return AskResult(
        question=QUESTION,
        backend="lightrag",
        channels=channels,  # type: ignore[arg-type]
        reasoner=ReasonerInfo(name="offline"),
        parsed=ParsedQuestion(
            text=QUESTION,
            kind="diagnosis",
            findings=[
                Finding(hpo_id="HP:0001166", label="Arachnodactyly"),
                Finding(hpo_id="HP:0001249", label="Intellectual disability", excluded=True),
            ],
            lab_values=[SODIUM_WITHIN_RANGE],
            onset=onset_of_class("HP:0003593"),
        ),
        semantic=semantic,
        relational=relational,
        synthesis=synthesis,
        events=events,
    )


def tied_sample_result() -> AskResult:
    """`sample_result` with its two differential rows scored exactly alike (listed by id)."""
    result = sample_result()
    first, second = result.synthesis.differential
    rows = [
        first.model_copy(update={"tied_with": [second.id]}),
        second.model_copy(update={"tied_with": [first.id]}),
    ]
    return result.model_copy(update={"synthesis": result.synthesis.model_copy(update={"differential": rows})})


def near_tie_sample_result() -> AskResult:
    """`sample_result` with its second row less than 0.01 below the first (not an exact tie)."""
    result = sample_result()
    first, second = result.synthesis.differential
    rows = [first, second.model_copy(update={"score": first.score - 0.004})]
    return result.model_copy(update={"synthesis": result.synthesis.model_copy(update={"differential": rows})})
