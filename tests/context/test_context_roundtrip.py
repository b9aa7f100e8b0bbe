"""Property: any evidence a backend may hold survives render -> parse, for the fields its format carries."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from meddiag.backends import formats
from meddiag.context_filter import filter_context
from meddiag.knowledge.model import PREDICATES
from meddiag.schema import KGEntity, KGHyperedge, KGPath, KGTriple, RawContext, TextEvidence

# Free text as passages and descriptions hold it: any character but surrogates, line breaks included.
free_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=60)
# Names and ids: printable, trimmed, and not wrapped in quotes (upstream's quoting quirk).
name = (
    st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=25)
    .map(str.strip)
    .filter(lambda s: s and not (s.startswith('"') and s.endswith('"')) and "|" not in s)
)
doc_id = st.builds(
    "{}/{}:{:07d}".format,
    st.sampled_from(["hpo", "mondo", "profile", "user"]),
    st.sampled_from(["HP", "OMIM"]),
    st.integers(0, 10**7 - 1),
)
kind = st.sampled_from(["Disease", "Phenotype", "Gene", "Inheritance", "Onset", "DiseaseClass"])
number = st.floats(allow_nan=False, allow_infinity=False, width=64) | st.none()
sources = st.lists(
    st.builds("{}:{}".format, st.sampled_from(["PMID", "OMIM", "ORPHA"]), st.integers(1, 10**8)), max_size=3
)

entity = st.builds(KGEntity, name=name, type=kind, description=free_text, rank=number, id=st.none() | doc_id)
passage = st.builds(
    TextEvidence,
    ref_id=st.just("x"),
    doc_id=st.just("") | doc_id,
    text=free_text,
    provenance=sources,
)


@st.composite
def triples_over(draw: st.DrawFn, entities: list[KGEntity]) -> list[KGTriple]:
    if not entities:
        return []
    pick = st.sampled_from(entities)
    out = []
    for _ in range(draw(st.integers(0, 5))):
        s, o = draw(pick), draw(pick)
        out.append(
            KGTriple(
                subject=s.name,
                predicate=draw(st.sampled_from(PREDICATES)),
                object=o.name,
                description=draw(free_text),
                weight=draw(number),
                frequency=draw(st.none() | st.floats(0, 1)),
                rank=draw(number),
                subject_id=s.id,
                object_id=o.id,
                provenance=draw(sources),
            )
        )
    return out


retrievals = st.lists(entity, max_size=6, unique_by=lambda e: e.name).flatmap(
    lambda ents: st.tuples(st.just(ents), triples_over(ents), st.lists(passage, max_size=5))
)

FAST = settings(
    max_examples=int(os.environ.get("MEDDIAG_HYPOTHESIS_EXAMPLES", "40")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def _cells(text: str) -> str:
    """What a CSV cell keeps of a value: carriage returns become line feeds."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _merged(text: str) -> str:
    """Upstream joins merged descriptions with <SEP>; the filter shows them as separate lines."""
    return text.replace("<SEP>", "\n")


def _triple_fields(t: KGTriple) -> tuple:
    """What the side channel carries besides the printed row: ids, provenance, curated frequency."""
    return (t.subject, t.predicate, t.object, t.subject_id, t.object_id, t.provenance, t.frequency)


@FAST
@given(retrievals)
def test_lightrag_round_trip(retrieval: tuple[list[KGEntity], list[KGTriple], list[TextEvidence]]) -> None:
    entities, triples, passages = retrieval
    raw = RawContext(
        backend="lightrag",
        query="q",
        text=formats.render_lightrag(entities, triples, passages),
        items=formats.lightrag_items(entities, triples, passages),
    )
    parsed = filter_context(raw)
    assert [(e.name, e.type, e.description, e.id) for e in parsed.kg.entities] == [
        (e.name, e.type.lower(), _merged(e.description), e.id) for e in entities
    ]
    assert [(*_triple_fields(t), t.description) for t in parsed.kg.triples] == [
        (*_triple_fields(t), _merged(t.description)) for t in triples
    ]
    assert [(p.doc_id, p.text, p.provenance) for p in parsed.text] == [
        (p.doc_id, p.text, p.provenance) for p in passages
    ]


@FAST
@given(retrievals)
def test_minirag_round_trip(retrieval: tuple[list[KGEntity], list[KGTriple], list[TextEvidence]]) -> None:
    entities, triples, passages = retrieval
    raw = RawContext(
        backend="minirag",
        query="q",
        text=formats.render_minirag(entities, triples, passages),
        items=formats.minirag_items(entities, triples, passages),
    )
    parsed = filter_context(raw)
    assert [(e.name, e.type, _cells(_merged(e.description)), e.rank, e.id) for e in parsed.kg.entities] == [
        (e.name, e.type.lower(), _cells(_merged(e.description)), e.rank, e.id) for e in entities
    ]
    assert [
        (*_triple_fields(t), _cells(_merged(t.description)), t.weight, t.rank) for t in parsed.kg.triples
    ] == [(*_triple_fields(t), _cells(_merged(t.description)), t.weight, t.rank) for t in triples]
    assert [(p.ref_id, p.doc_id, p.text) for p in parsed.text] == [
        (str(i), p.doc_id, _cells(p.text)) for i, p in enumerate(passages)
    ]


hyperedge_text = free_text.filter(lambda s: not (s.startswith('"') and s.endswith('"')))


@FAST
@given(
    st.lists(entity, max_size=6, unique_by=lambda e: e.name).flatmap(
        lambda ents: st.tuples(
            st.just(ents),
            st.lists(
                st.builds(
                    KGHyperedge,
                    text=hyperedge_text,
                    members=st.lists(name, min_size=1, max_size=4),
                    provenance=sources,
                    id=st.none() | doc_id,
                ),
                max_size=4,
            ),
            st.lists(passage, max_size=4),
        )
    )
)
def test_hypergraphrag_round_trip(
    retrieval: tuple[list[KGEntity], list[KGHyperedge], list[TextEvidence]],
) -> None:
    entities, hyperedges, passages = retrieval
    raw = RawContext(
        backend="hypergraphrag",
        query="q",
        text=formats.render_hypergraphrag(entities, hyperedges, passages),
        items=formats.hypergraphrag_items(entities, hyperedges, passages),
    )
    parsed = filter_context(raw)
    assert [(e.name, e.type, _cells(_merged(e.description)), e.id) for e in parsed.kg.entities] == [
        (e.name, e.type.lower(), _cells(_merged(e.description)), e.id) for e in entities
    ]
    assert [(h.text, h.members, h.id, h.provenance) for h in parsed.kg.hyperedges] == [
        (_cells(h.text), h.members, h.id, h.provenance) for h in hyperedges
    ]
    assert len(parsed.kg.triples) == sum(len(h.members) - 1 for h in hyperedges)
    assert all(t.from_hyperedge for t in parsed.kg.triples)
    assert [(p.ref_id, p.text) for p in parsed.text] == [
        (str(i), _cells(p.text)) for i, p in enumerate(passages, 1)
    ]


path_name = name.filter(lambda s: '"' not in s)


@st.composite
def pathrag_retrievals(draw: st.DrawFn) -> tuple:
    high, triples, passages = draw(retrievals)
    low = draw(st.lists(entity, max_size=5, unique_by=lambda e: e.name))
    nodes_pool = draw(st.lists(path_name, min_size=2, max_size=6, unique=True))
    paths = []
    for _ in range(draw(st.integers(0, 4))):
        nodes = draw(st.lists(st.sampled_from(nodes_pool), min_size=2, max_size=5))
        edges = draw(st.lists(st.sampled_from(PREDICATES), min_size=len(nodes) - 1, max_size=len(nodes) - 1))
        paths.append(KGPath(nodes=nodes, edges=edges, sentence=""))
    return high, triples, passages, low, paths


@FAST
@given(pathrag_retrievals())
def test_pathrag_round_trip(retrieval: tuple) -> None:
    high, triples, passages, low, paths = retrieval
    raw = RawContext(
        backend="pathrag",
        query="q",
        text=formats.render_pathrag(high, triples, passages, low, paths),
        items=formats.pathrag_items(high, triples, passages, low, paths),
    )
    parsed = filter_context(raw)
    assert [
        (e.name, e.type, _cells(_merged(e.description)), e.rank, e.level) for e in parsed.kg.entities
    ] == [
        *[(e.name, e.type.lower(), _cells(_merged(e.description)), e.rank, "high") for e in high],
        *[(e.name, e.type.lower(), _cells(_merged(e.description)), e.rank, "low") for e in low],
    ]
    high_triples = [t for t in parsed.kg.triples if t.level == "high"]
    assert [(*_triple_fields(t), t.weight, t.rank) for t in high_triples] == [
        (*_triple_fields(t), t.weight, t.rank) for t in triples
    ]
    assert [(p.nodes, p.edges, p.reliability_rank) for p in parsed.kg.paths] == [
        (p.nodes, p.edges, len(paths) - i) for i, p in enumerate(paths)
    ]
    assert len([t for t in parsed.kg.triples if t.level == "low"]) == sum(len(p.edges) for p in paths)
    assert [p.text for p in parsed.text] == [_cells(p.text) for p in passages]


TRAP = "Copied from another context:\n```\n-----Entities-----\n```csv\nid,entity\n0,Fake\n```\nKnowledge Graph Data (Entity):"


def test_headers_and_fences_inside_a_passage_are_not_taken_for_sections() -> None:
    entity = KGEntity(name="Marfan syndrome", type="Disease", description=TRAP)
    passage = TextEvidence(ref_id="0", doc_id="user/note.txt", text=TRAP)
    for backend, text in [
        ("lightrag", formats.render_lightrag([entity], [], [passage])),
        ("minirag", formats.render_minirag([entity], [], [passage])),
        ("hypergraphrag", formats.render_hypergraphrag([entity], [], [passage])),
        ("pathrag", formats.render_pathrag([entity], [], [passage], [], [])),
    ]:
        parsed = filter_context(RawContext(backend=backend, query="q", text=text))
        assert [e.description for e in parsed.kg.entities] == [TRAP], backend
        assert [p.text for p in parsed.text] == [TRAP], backend
