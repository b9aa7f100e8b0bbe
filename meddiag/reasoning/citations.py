"""The numbered citation list of a synthesis; only evidence a hop kept can be registered."""

from __future__ import annotations

from collections.abc import Callable

from meddiag.schema import Citation, KGTriple, TextEvidence


class CitationLedger:
    """Numbers citations in order of first use; citing the same evidence twice reuses its number."""

    def __init__(self) -> None:
        self.items: list[Citation] = []
        self._by_key: dict[tuple[str, ...], int] = {}

    def _cite(self, key: tuple[str, ...], make: Callable[[int], Citation]) -> int:
        """The number of `key`'s citation, adding it (numbered in order of first use) if new."""
        if key not in self._by_key:
            n = len(self.items) + 1
            self._by_key[key] = n
            self.items.append(make(n))
        return self._by_key[key]

    def passage(self, hop: int, p: TextEvidence) -> int:
        return self._cite(
            ("passage", str(hop), p.doc_id or p.ref_id),
            lambda n: Citation(
                n=n,
                kind="passage",
                channel="semantic",
                hop=hop,
                doc_id=p.doc_id or p.ref_id,
                text=p.text[:400],
                provenance=list(p.provenance),
            ),
        )

    def triple(self, hop: int, t: KGTriple) -> int:
        return self._cite(
            ("triple", str(hop), t.key),
            lambda n: Citation(
                n=n,
                kind="triple",
                channel="relational",
                hop=hop,
                subject=t.subject,
                predicate=t.predicate,
                object=t.object,
                provenance=list(t.provenance),
            ),
        )
