"""One backend instance serves the engine's two channels at once: no per-query state."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from meddiag.backends.base import Backend

QUESTIONS = [
    ("Arachnodactyly, ectopia lentis and tall stature", "relational"),
    ("Hypertelorism and aortic root aneurysm", "semantic"),
    ("Which genes are associated with Marfan syndrome?", "mix"),
    ("Multiple joint contractures and arachnodactyly", "relational"),
]


def test_parallel_calls_answer_as_sequential_ones(backend: Backend) -> None:
    expected = [backend.retrieve(q, mode=m).text for q, m in QUESTIONS]  # type: ignore[arg-type]
    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(lambda qm: backend.retrieve(qm[0], mode=qm[1]).text, QUESTIONS * 3))
    assert got == expected * 3
