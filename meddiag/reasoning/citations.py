"""The numbered citation list of a synthesis; only evidence a hop kept can be registered."""

from __future__ import annotations

from meddiag.schema import Citation, KGTriple, TextEvidence


class CitationLedger:
    """Numbers citations in order of first use; citing the same evidence twice reuses its number."""

    def __init__(self) -> None:
        self.items: list[Citation] = []
        self._by_key: dict[tuple[str, ...], int] = {}

    def passage(self, hop: int, p: TextEvidence) -> int:
        key = ("passage", str(hop), p.doc_id or p.ref_id)
        if key not in self._by_key:
            n = len(self.items) + 1
            self._by_key[key] = n
            self.items.append(
                Citation(
                    n=n,
                    kind="passage",
                    channel="semantic",
                    hop=hop,
                    doc_id=p.doc_id or p.ref_id,
                    text=p.text[:400],
                    provenance=list(p.provenance),
                )
            )
        return self._by_key[key]

    def triple(self, hop: int, t: KGTriple) -> int:
        key = ("triple", str(hop), t.key)
        if key not in self._by_key:
            n = len(self.items) + 1
            self._by_key[key] = n
            self.items.append(
                Citation(
                    n=n,
                    kind="triple",
                    channel="relational",
                    hop=hop,
                    subject=t.subject,
                    predicate=t.predicate,
                    object=t.object,
                    provenance=list(t.provenance),
                )
            )
        return self._by_key[key]
