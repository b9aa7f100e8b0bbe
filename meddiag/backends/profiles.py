"""Disease profiles rendered from the graph's visible facts: the text a disease node carries.

A generated profile states a disease's facts in words; rendering it from the graph (not
reading the stored chunk) leaves out whatever rests only on excluded sources. Backends use
it to follow a graph node to its text (MiniRAG's chunk nodes, HyperGraphRAG's source
chunks) and to give a question about a named disease (or gene) that disease's own text (or
its diseases' texts), which a dense search for the whole question can miss when a rare
name carries little of its vector.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from meddiag.backends.exclusion import disease_facts
from meddiag.knowledge.documents import render_profile
from meddiag.knowledge.model import Chunk

if TYPE_CHECKING:
    from meddiag.backends.base import QueryScope, ScoredChunk


def disease_profile(scope: QueryScope, disease_id: str) -> list[Chunk]:
    """The disease's profile chunks without the excluded facts, once per retrieval."""
    key = ("profile", disease_id)
    if key not in scope.cache:
        scope.cache[key] = render_profile(disease_id, disease_facts(scope, disease_id), scope.exclude)
    chunks: list[Chunk] = scope.cache[key]
    return chunks


def named_disease_profiles(scope: QueryScope, limit: int) -> list[ScoredChunk]:
    """Profile chunks of the diseases a question asks *about*, in profile order (most frequent
    features first): the diseases it names (seeds first), or, when it names only genes, the
    passage of each of their diseases that states the gene.

    Empty when the question asks *for* diseases from findings (answer type Disease): a disease
    named in a list of findings is a candidate to weigh, not the subject of the question.
    """
    from meddiag.backends.base import ScoredChunk

    req = scope.request
    ids = list(dict.fromkeys([*req.seeds, *req.keywords.entity_ids]))
    # Findings (HPO ids) are never the subject of such a question, so a vignette's retrieval,
    # the hot path, is settled here without an entity lookup.
    named = [i for i in ids if not i.startswith("HP:")]
    findings = len(named) < len(ids)
    if not named or (findings and req.keywords.answer_type in (None, "Disease")):
        return []
    found = list(scope.entities(named).values())
    if found and not findings and all(e.type == "Gene" for e in found):
        return _gene_disease_chunks(scope, [e.id for e in found], limit)
    if req.keywords.answer_type in (None, "Disease"):
        return []
    out: list[ScoredChunk] = []
    for entity in found:
        if entity.type != "Disease":
            continue
        out += [ScoredChunk(c, 1.0) for c in disease_profile(scope, entity.id)]
        if len(out) >= limit:
            break
    return out[:limit]


def _gene_disease_chunks(scope: QueryScope, genes: list[str], limit: int) -> list[ScoredChunk]:
    """For each disease linked to the genes (visible links only), its profile chunk naming the gene."""
    from meddiag.backends.base import ScoredChunk

    out: list[ScoredChunk] = []
    for gene in genes:
        for rel in scope.relations(gene, ("ASSOCIATED_GENE",)):
            if rel.object != gene:
                continue
            stating = [c for c in disease_profile(scope, rel.subject) if gene in c.entity_ids]
            out += [ScoredChunk(c, 1.0) for c in stating[:1]]
            if len(out) >= limit:
                return out
    return out


def named_first(scope: QueryScope, chunks: Sequence[ScoredChunk], limit: int) -> list[ScoredChunk]:
    """`chunks` after the profile chunks of what the question asks about
    (`named_disease_profiles`), each chunk once: a question about a named disease reads that
    disease's own text first."""
    out: dict[str, ScoredChunk] = {}
    for c in [*named_disease_profiles(scope, limit), *chunks]:
        out.setdefault(c.chunk.id, c)
    return list(out.values())
