"""`read_passage`: what a passage states, read once and shared by every step that asks."""

from __future__ import annotations

from meddiag.reasoning.offline_evidence import EvidenceReader, read_passage
from meddiag.reasoning.offline_params import OfflineParams
from meddiag.reasoning.resources import ReasoningResources
from meddiag.schema import TextEvidence
from tests.reasoning import world

TEXT = (
    "Marfan syndrome presents with arachnodactyly and tall stature. "
    "Features of Loeys-Dietz syndrome that are absent in the patients studied (0%): seizures. "
    "Patients have no intellectual disability."
)


def test_present_absent_and_named_diseases_sentence_by_sentence(resources: ReasoningResources) -> None:
    reading = read_passage(resources.linker, TEXT)
    assert reading.present == {"HP:0001166", "HP:0000098"}
    # "absent" sentences and negated findings are evidence against, never for
    assert reading.absent == {"HP:0001250", "HP:0001249"}
    assert reading.disease_ids == (world.MARFAN, world.LDS)


def test_a_passage_is_read_once(resources: ReasoningResources) -> None:
    text = TEXT + " Aortic root aneurysm is frequent."
    first = read_passage(resources.linker, text)
    assert read_passage(resources.linker, text) is first
    assert "HP:0002616" in first.present


def test_the_evidence_reader_answers_from_the_reading(resources: ReasoningResources) -> None:
    reader = EvidenceReader(resources, OfflineParams())
    passage = TextEvidence(ref_id="p1", doc_id="profile/" + world.LDS, title="Loeys-Dietz", text=TEXT)
    present, absent = reader.passage_findings(passage)
    assert reader.passage_terms(passage) == present == {"HP:0001166", "HP:0000098"}
    assert absent == {"HP:0001250", "HP:0001249"}
    # the document's own disease first, then the diseases its text names, one row each
    assert reader.passage_diseases(passage) == [world.LDS, world.MARFAN]
    assert reader.passage_subjects(passage) == [world.LDS]
