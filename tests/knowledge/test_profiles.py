"""Generated disease profiles: wording from facts, provenance per chunk, leaving sources out."""

from __future__ import annotations

from meddiag.knowledge.documents import MAX_CHARS, render_profile
from meddiag.knowledge.hyperedges import disease_hyperedges
from meddiag.knowledge.model import KnowledgeBase, Relation
from meddiag.knowledge.relations import DiseaseFacts, facts_by_disease
from tests.fixtures import sources as fx


def _facts(kb: KnowledgeBase, disease: str) -> DiseaseFacts:
    names = {e.id: e.name for e in kb.entities}
    return facts_by_disease(kb.relations, {disease: names[disease]}, names)[disease]


def test_profile_states_features_by_band_and_the_disease_context(full_kb: KnowledgeBase) -> None:
    chunks = [c for c in full_kb.chunks if c.doc_id == f"profile/{fx.MARFAN}"]
    text = " ".join(c.text for c in chunks)
    assert "very frequent (80–99% of patients): Tall stature and Arachnodactyly" in text
    assert "Ectopia lentis (40%)" in text
    assert "not occurring in Marfan syndrome: Seizure" in text
    assert "autosomal dominant inheritance" in text and "childhood onset" in text
    assert "FBN1" in text and "ORPHA:558" in text and "Marfan and Marfan-related disorder" in text
    assert all(c.generated and c.source == "profile" for c in chunks)
    doc = next(d for d in full_kb.documents if d.id == f"profile/{fx.MARFAN}")
    assert doc.generated and set(doc.sources) >= {"PMID:1", "PMID:2", "OMIM:154700", "MONDO"}


def test_profile_chunk_cites_exactly_the_sources_of_its_facts(full_kb: KnowledgeBase) -> None:
    chunks = render_profile(fx.LDS, _facts(full_kb, fx.LDS))
    assert set().union(*(c.sources for c in chunks)) == {"PMID:4", "HPO:genes_to_phenotype", "MONDO"}
    assert {fx.LDS, fx.AORTIC_ROOT, fx.HYPERMOBILITY, "NCBIGene:7048"} <= set(chunks[0].entity_ids)


def test_leaving_a_publication_out_drops_only_the_facts_resting_on_it_alone(full_kb: KnowledgeBase) -> None:
    facts = _facts(full_kb, fx.MARFAN)
    full = render_profile(fx.MARFAN, facts)
    hidden = render_profile(fx.MARFAN, facts, frozenset({"PMID:1"}))
    full_text = " ".join(c.text for c in full)
    hidden_text = " ".join(c.text for c in hidden)
    assert "Ectopia lentis" in full_text and "Ectopia lentis" not in hidden_text  # PMID:1 only
    very = "that are very frequent (80–99% of patients): "
    assert f"{very}Tall stature and Arachnodactyly." in full_text
    # Arachnodactyly also rests on OMIM:154700, but its band is a frequency pooled with
    # PMID:1's 3/4: it is still stated, as a feature reported without a frequency.
    assert f"{very}Tall stature." in hidden_text
    assert "that are reported without a frequency: Arachnodactyly." in hidden_text
    assert all("PMID:1" not in c.sources for c in hidden)
    assert all(fx.ECTOPIA_LENTIS not in c.entity_ids for c in hidden)
    assert {c.id for c in hidden} <= {c.id for c in full}  # a re-rendered chunk replaces its stored twin


def test_a_curated_count_pooled_with_an_excluded_source_is_not_stated() -> None:
    # one annotation row citing two papers with one count: the count is theirs together
    rel = Relation(
        subject="OMIM:1",
        predicate="HAS_PHENOTYPE",
        object="HP:0000001",
        frequency=3 / 7,
        frequency_label="3/7",
        sources=["PMID:1", "PMID:2"],
    )
    facts = DiseaseFacts("OMIM:1", "Small syndrome", (rel,), {"HP:0000001": "Feature"})
    assert "Feature (3/7)" in render_profile("OMIM:1", facts)[0].text
    (chunk,) = render_profile("OMIM:1", facts, frozenset({"PMID:1"}))
    assert chunk.text.endswith("Features of Small syndrome that are reported without a frequency: Feature.")
    assert chunk.sources == ["PMID:2"]
    assert render_profile("OMIM:1", facts, frozenset({"PMID:1", "PMID:2"})) == []


def test_a_chunk_left_without_facts_is_omitted(full_kb: KnowledgeBase) -> None:
    facts = _facts(full_kb, fx.LDS)
    everything = frozenset({"PMID:4", "HPO:genes_to_phenotype", "MONDO"})
    assert render_profile(fx.LDS, facts, everything) == []


def test_profiles_re_render_from_relations_in_any_order(full_kb: KnowledgeBase) -> None:
    facts = _facts(full_kb, fx.MARFAN)
    shuffled = DiseaseFacts(facts.disease_id, facts.name, tuple(reversed(facts.relations)), facts.labels)
    assert render_profile(fx.MARFAN, shuffled) == render_profile(fx.MARFAN, facts)


def _big_facts(n: int) -> DiseaseFacts:
    rels = []
    labels = {"OMIM:1": "Big syndrome"}
    for i in range(n):
        hp = f"HP:{i:07d}"
        labels[hp] = f"Feature number {i} of a rather long name"
        rels.append(
            Relation(
                subject="OMIM:1",
                predicate="HAS_PHENOTYPE",
                object=hp,
                frequency=[0.9, 0.5, None][i % 3],
                sources=[f"PMID:{i}"],
            )
        )
    return DiseaseFacts("OMIM:1", "Big syndrome", tuple(rels), labels)


def test_long_profiles_split_into_bounded_chunks_without_losing_a_feature() -> None:
    facts = _big_facts(150)
    chunks = render_profile("OMIM:1", facts)
    assert len(chunks) > 5
    assert all(len(c.text) <= MAX_CHARS for c in chunks)
    assert all(len(c.text) >= 500 for c in chunks[:-1])  # packed, not one sentence per chunk
    assert [c.position for c in chunks] == list(range(len(chunks)))
    mentioned = [i for c in chunks for i in c.entity_ids if i.startswith("HP:")]
    assert sorted(mentioned) == sorted(f"HP:{i:07d}" for i in range(150))  # each exactly once
    for c in chunks:  # a chunk cites the publications of the features it names, and no others
        assert sorted(c.sources) == sorted(f"PMID:{int(i[3:])}" for i in c.entity_ids if i.startswith("HP:"))
        assert c.text.count("Big syndrome") >= 1  # each chunk names its disease


def test_a_retriever_re_renders_the_stored_profile_and_hyperedges_from_the_graph(
    full_kb: KnowledgeBase,
) -> None:
    """What a graph store returns for a disease (its relations in both directions) is enough to
    rebuild exactly the stored chunks and hyperedges, so substitution by id is safe."""
    names = {e.id: e.name for e in full_kb.entities}
    diseases = [e.id for e in full_kb.entities if e.type == "Disease"]
    for disease in diseases:
        # a store may return them in any order
        touching = tuple(reversed([r for r in full_kb.relations if disease in (r.subject, r.object)]))
        facts = DiseaseFacts(disease, names[disease], touching, names)
        stored_chunks = [c for c in full_kb.chunks if c.doc_id == f"profile/{disease}"]
        stored_edges = [h for h in full_kb.hyperedges if h.id.startswith(f"he/{disease}/")]
        assert render_profile(disease, facts) == stored_chunks
        assert disease_hyperedges(facts) == stored_edges
