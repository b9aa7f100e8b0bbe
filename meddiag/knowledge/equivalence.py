"""Which catalogue ids name one disease: the connected groups of the KB's EQUIVALENT_TO links.

A disease's OMIM, ORPHA and DECIPHER ids are linked to the MONDO class they read as
(`knowledge/mondo.py`), so one group holds every id of that class, two OMIM numbers of it
included. The ranker pools a group into one profile and evaluation matches gold through it.
"""

from __future__ import annotations

from collections.abc import Iterable

import networkx as nx


def equivalence_groups(pairs: Iterable[tuple[str, str]]) -> dict[str, set[str]]:
    """Every linked id -> all ids of its group (itself included)."""
    graph: nx.Graph[str] = nx.Graph()
    graph.add_edges_from(pairs)
    return {x: group for group in nx.connected_components(graph) for x in group}
