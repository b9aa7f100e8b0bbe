from __future__ import annotations

from meddiag.knowledge.documents import MAX_CHARS, chunk_document, chunk_text, split_sentences
from meddiag.knowledge.model import Document, KnowledgeBase
from tests.fixtures import sources as fx


def test_sentences_split_at_full_stops_before_capitals_only() -> None:
    text = "Tall stature, e.g. above the 97th centile. Lens dislocation (ectopia lentis) occurs.\n\nNew para"
    assert split_sentences(text) == [
        "Tall stature, e.g. above the 97th centile.",
        "Lens dislocation (ectopia lentis) occurs.",
        "New para",
    ]


def test_chunks_respect_the_size_limit_and_sentence_boundaries() -> None:
    sentences = [f"Sentence {i} says something about the aorta and the lens of the eye." for i in range(60)]
    chunks = chunk_text(" ".join(sentences))
    assert all(len(c) <= MAX_CHARS for c in chunks)
    assert all(c.endswith(".") for c in chunks)
    assert all(len(c) > MAX_CHARS - 80 for c in chunks[:-1])
    assert " ".join(chunks) == " ".join(sentences)


def test_an_overlong_sentence_is_cut_between_words() -> None:
    sentence = " ".join(["word"] * 600) + "."
    chunks = chunk_text(sentence, max_chars=300)
    assert all(len(c) <= 300 for c in chunks)
    assert " ".join(chunks) == sentence


def test_document_chunks_inherit_ids_and_sources() -> None:
    doc = Document(
        id="mondo/MONDO:1", title="T", source="mondo", text="A. B.", entity_ids=["MONDO:1"], sources=["MONDO"]
    )
    [chunk] = chunk_document(doc)
    assert (chunk.id, chunk.position, chunk.entity_ids, chunk.sources) == (
        "mondo/MONDO:1#0",
        0,
        ["MONDO:1"],
        ["MONDO"],
    )


def test_hpo_documents_hold_name_synonyms_definition_and_comment(full_kb: KnowledgeBase) -> None:
    docs = {d.id: d for d in full_kb.documents}
    arachno = docs[f"hpo/{fx.ARACHNODACTYLY}"]
    assert "Spider fingers" in arachno.text and "Long, slender fingers" in arachno.text
    assert "Abnormally long and slender fingers." in arachno.text
    assert arachno.sources == ["HPO"] and arachno.entity_ids == [fx.ARACHNODACTYLY]
    assert "Measured by echocardiography." in docs[f"hpo/{fx.AORTIC_ROOT}"].text
    assert f"hpo/{fx.HYPERMOBILITY}" not in docs  # nothing to say beyond its name


def test_mondo_documents_hold_label_synonyms_and_description(full_kb: KnowledgeBase) -> None:
    doc = next(d for d in full_kb.documents if d.id == f"mondo/{fx.MONDO_MARFAN}")
    assert doc.text.startswith("Marfan syndrome (MONDO:0007947). Also called: MFS; Marfan's syndrome.")
    assert doc.sources == ["MONDO"]
    assert doc.entity_ids == [fx.MONDO_MARFAN, fx.MARFAN, fx.MARFAN_ORPHA]


def test_every_chunk_points_at_its_document_and_carries_provenance(full_kb: KnowledgeBase) -> None:
    doc_ids = {d.id for d in full_kb.documents}
    entity_ids = {e.id for e in full_kb.entities}
    assert len({c.id for c in full_kb.chunks}) == len(full_kb.chunks)
    for chunk in full_kb.chunks:
        assert chunk.doc_id in doc_ids and chunk.id == f"{chunk.doc_id}#{chunk.position}"
        assert chunk.sources and set(chunk.entity_ids) <= entity_ids
