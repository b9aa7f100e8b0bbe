from __future__ import annotations

import networkx as nx
import pytest

from meddiag.knowledge.assemble import assemble_kb
from meddiag.knowledge.demo import select_demo_diseases
from meddiag.knowledge.model import KnowledgeBase
from meddiag.knowledge.sources import SourceFiles, packaged_sources
from tests.fixtures import sources as fx


def _world() -> tuple[dict[str, set[str]], dict[str, str]]:
    """Two seeds with their own neighbourhoods, an island, a hub term, and unlinked look-alikes."""
    p: dict[str, set[str]] = {}
    shared_a = {f"HP:A{i}" for i in range(8)}
    shared_b = {f"HP:B{i}" for i in range(8)}
    p["OMIM:1"] = shared_a | {"HP:X"}
    p["OMIM:2"] = shared_b | {"HP:X"}
    for k in range(12):  # neighbours of seed 1, the first sharing the most
        p[f"OMIM:1{k:02d}"] = set(list(sorted(shared_a))[: 8 - k % 6]) | {f"HP:U{k}", f"HP:V{k}", "HP:HUB"}
    for k in range(12):
        p[f"OMIM:2{k:02d}"] = set(list(sorted(shared_b))[: 8 - k % 6]) | {f"HP:W{k}", f"HP:Z{k}", "HP:HUB"}
    p["OMIM:900"] = {f"HP:I{i}" for i in range(10)}  # an island: shares nothing
    p["OMIM:901"] = shared_a | {"HP:Q"}  # a perfect match but not linked to MONDO
    links = {d: f"MONDO:{d[5:]}" for d in p if d != "OMIM:901"}
    return p, links


def _connected(selected: list[str], phenotypes: dict[str, set[str]]) -> bool:
    g = nx.Graph()
    g.add_nodes_from(selected)
    for d in selected:
        g.add_edges_from((d, t) for t in phenotypes[d])
    return nx.is_connected(g)


def test_demo_selection_is_deterministic_connected_and_bounded() -> None:
    phenotypes, links = _world()
    chosen = select_demo_diseases(phenotypes, links, seeds=["OMIM:1", "OMIM:2", "OMIM:900"], target=15)
    again = select_demo_diseases(
        dict(reversed(list(phenotypes.items()))), links, seeds=["OMIM:1", "OMIM:2", "OMIM:900"], target=15
    )
    assert chosen == again
    assert chosen[:2] == ["OMIM:1", "OMIM:2"]
    assert "OMIM:900" not in chosen  # the island seed is not connected to the first seed
    assert "OMIM:901" not in chosen  # no MONDO link
    assert len(chosen) == 14  # 15 picked, the island dropped
    assert _connected(chosen, phenotypes)
    # seeds take turns: both neighbourhoods are represented
    assert sum(d.startswith("OMIM:1") and len(d) == 8 for d in chosen) >= 5
    assert sum(d.startswith("OMIM:2") and len(d) == 8 for d in chosen) >= 5


def test_demo_selection_needs_an_annotated_seed() -> None:
    phenotypes, links = _world()
    with pytest.raises(ValueError):
        select_demo_diseases(phenotypes, links, seeds=["OMIM:404"])


def test_tiny_demo_keeps_seeds_their_twins_and_the_phenotype_ancestors(sources: SourceFiles) -> None:
    kb = assemble_kb(sources, "demo")
    ids = {e.id for e in kb.entities}
    assert {fx.MARFAN, fx.MARFAN_ORPHA, fx.LDS, fx.HCU} <= ids
    assert fx.DECIPHER not in ids  # not a seed and too poorly annotated
    assert {"HP:0000118", "HP:0000924", "HP:0000478"} <= ids  # ancestors of used terms
    assert {r.subject for r in kb.relations if r.predicate == "HAS_PHENOTYPE"} <= ids
    assert kb.profile == "demo"


@pytest.mark.slow
def test_packaged_demo_is_small_connected_and_linked() -> None:
    kb: KnowledgeBase = assemble_kb(packaged_sources(), "demo")
    diseases = [e for e in kb.entities if e.type == "Disease"]
    assert 300 <= len(diseases) <= 500
    assert {"OMIM:154700", "ORPHA:558", "OMIM:609192"} <= {d.id for d in diseases}
    assert sum(1 for d in diseases if any(x.startswith("MONDO:") for x in d.xrefs)) >= 0.9 * len(diseases)
    phenotypes: dict[str, set[str]] = {d.id: set() for d in diseases}
    for r in kb.relations:
        if r.predicate == "HAS_PHENOTYPE":
            phenotypes[r.subject].add(r.object)
    assert _connected(list(phenotypes), phenotypes)
    # a meaningful differential: Marfan shares features with many other demo diseases
    marfan = phenotypes["OMIM:154700"]
    assert sum(1 for d, terms in phenotypes.items() if d != "OMIM:154700" and len(terms & marfan) >= 5) >= 20
    assert len(kb.chunks) < 10_000
