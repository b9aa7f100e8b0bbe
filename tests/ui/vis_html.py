"""Reading the nodes and edges back out of a pyvis page."""

from __future__ import annotations

import json
import re

_DATASET = re.compile(r"(nodes|edges) = new vis\.DataSet\((\[.*?\])\);", re.S)


def vis_data(page: str) -> dict[str, list[dict]]:
    found = {name: json.loads(body) for name, body in _DATASET.findall(page)}
    assert set(found) == {"nodes", "edges"}, "the page holds no vis-network data sets"
    return found


def vis_node_labels(page: str) -> list[str]:
    return [n["label"] for n in vis_data(page)["nodes"]]
