"""The Neo4j graph store (official `neo4j` driver), for a team's shared, browsable graph.

Every value travels as a query parameter. The only text put into a query is a relationship
type, taken from the closed list of predicates of the knowledge model, and a path length,
an integer we bound ourselves. Writes are batched with `UNWIND`; no APOC is needed.
Entities are `(:Entity {id, type, name, ...})` nodes; each relation is a relationship typed by
its predicate, holding the predicate's data and its `sources`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Iterator, Sequence
from itertools import islice
from typing import Any

from neo4j import Driver, GraphDatabase, RoutingControl
from neo4j.exceptions import AuthError, ConfigurationError, DriverError, Neo4jError, ServiceUnavailable

from meddiag.errors import StoreUnavailable
from meddiag.knowledge.model import PREDICATES, Entity, Relation
from meddiag.stores.local_graph import bounded_bfs, check_direction, rank_names

WRITE_BATCH = 2000
DELETE_BATCH = 10_000
READ_PAGE = 5000
MAX_PATH_HOPS = 6
RELATION_PROPS = ("frequency", "frequency_label", "evidence", "sources", "source_file")

# A relation is visible unless it rests only on excluded sources (same rule as `visible`).
VISIBLE = "(size($ex) = 0 OR size(coalesce({r}.sources, [])) = 0 OR any(x IN {r}.sources WHERE NOT x IN $ex))"
RELATION_ROW = "{{s: startNode({r}).id, p: type({r}), o: endNode({r}).id, props: properties({r})}}"


def _predicate(name: str) -> str:
    """A predicate checked against the model's closed list before it becomes a relationship type."""
    if name not in PREDICATES:
        raise ValueError(f"unknown predicate {name!r}")
    return name


def _entity(props: dict[str, Any]) -> Entity:
    return Entity.model_validate({k: v for k, v in props.items() if k in Entity.model_fields})


def _relation(row: dict[str, Any]) -> Relation:
    props = {k: v for k, v in row["props"].items() if k in RELATION_PROPS and v is not None}
    return Relation(subject=row["s"], predicate=row["p"], object=row["o"], **props)


def _batches(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    iterator = iter(items)
    while batch := list(islice(iterator, size)):
        yield batch


class Neo4jGraphStore:
    """`GraphStore` over a Neo4j (or Bolt-compatible) server."""

    def __init__(
        self, uri: str, user: str, password: str, database: str = "neo4j", *, timeout_s: float = 5.0
    ) -> None:
        self.uri = uri
        self.database = database
        try:
            self._driver: Driver = GraphDatabase.driver(
                uri,
                auth=(user, password),
                connection_timeout=timeout_s,
                connection_acquisition_timeout=timeout_s * 2,
                max_transaction_retry_time=timeout_s,
            )
            self._driver.verify_connectivity()
        except (
            ServiceUnavailable,
            AuthError,
            ConfigurationError,
            DriverError,
            Neo4jError,
            ValueError,
        ) as err:
            raise StoreUnavailable(
                "Neo4j",
                f"cannot connect to {uri} as {user!r} ({err}); check MEDDIAG_NEO4J_URI/_USER/_PASSWORD",
            ) from err
        self._run("CREATE INDEX meddiag_entity_id IF NOT EXISTS FOR (n:Entity) ON (n.id)")

    def _run(self, query: str, *, read: bool = False, **params: Any) -> list[dict[str, Any]]:
        try:
            records, _, _ = self._driver.execute_query(
                query,
                parameters_=params,
                database_=self.database,
                routing_=RoutingControl.READ if read else RoutingControl.WRITE,
            )
        except (Neo4jError, DriverError) as err:
            raise StoreUnavailable("Neo4j", f"a graph query failed on {self.uri}: {err}") from err
        return [record.data() for record in records]

    # ------------------------------------------------------------------ writing

    def upsert_entities(self, entities: Iterable[Entity]) -> int:
        n = 0
        for batch in _batches(entities, WRITE_BATCH):
            rows = [{"id": e.id, "props": e.model_dump()} for e in batch]
            self._run("UNWIND $rows AS r MERGE (n:Entity {id: r.id}) SET n += r.props", rows=rows)
            n += len(batch)
        return n

    def upsert_relations(self, relations: Iterable[Relation]) -> int:
        """Add or replace relations (one per subject, predicate, object); both ends must exist."""
        n = 0
        for batch in _batches(relations, WRITE_BATCH):
            by_predicate: dict[str, list[dict[str, Any]]] = defaultdict(list)
            for r in batch:
                props = r.model_dump(include=set(RELATION_PROPS))
                by_predicate[_predicate(r.predicate)].append({"s": r.subject, "o": r.object, "props": props})
            for predicate, rows in by_predicate.items():
                query = (
                    "UNWIND $rows AS r MATCH (a:Entity {id: r.s}) MATCH (b:Entity {id: r.o}) "
                    f"MERGE (a)-[e:{predicate}]->(b) SET e += r.props RETURN count(e) AS n"
                )
                n += self._run(query, rows=rows)[0]["n"]
        return n

    def clear(self) -> None:
        # Deleting in slices keeps each transaction small on a full-size graph.
        while True:
            deleted = self._run(
                "MATCH (n:Entity) WITH n LIMIT $n DETACH DELETE n RETURN count(*) AS c", n=DELETE_BATCH
            )
            if not deleted or deleted[0]["c"] == 0:
                return

    def close(self) -> None:
        self._driver.close()

    # ------------------------------------------------------------------ reading

    def get(self, entity_id: str) -> Entity | None:
        return self.get_many([entity_id]).get(entity_id)

    def get_many(self, entity_ids: Iterable[str]) -> dict[str, Entity]:
        ids = list(dict.fromkeys(entity_ids))
        if not ids:
            return {}
        rows = self._run(
            "MATCH (n:Entity) WHERE n.id IN $ids RETURN properties(n) AS props", read=True, ids=ids
        )
        found = {row["props"]["id"]: _entity(row["props"]) for row in rows}
        return {i: found[i] for i in ids if i in found}

    def iter_entities(self, types: Sequence[str] | None = None) -> Iterator[Entity]:
        """Every entity (of `types`), read in pages ordered by id."""
        after = ""
        while True:
            rows = self._run(
                "MATCH (n:Entity) WHERE n.id > $after AND ($types IS NULL OR n.type IN $types) "
                "RETURN properties(n) AS props ORDER BY n.id LIMIT $n",
                read=True,
                after=after,
                types=list(types) if types else None,
                n=READ_PAGE,
            )
            yield from (_entity(r["props"]) for r in rows)
            if len(rows) < READ_PAGE:
                return
            after = rows[-1]["props"]["id"]

    def iter_relations(self, predicates: Sequence[str] | None = None) -> Iterator[Relation]:
        """Every relation (with one of `predicates`), read subject by subject in pages."""
        after = ""
        while True:
            subjects = self._run(
                "MATCH (n:Entity) WHERE n.id > $after RETURN n.id AS id ORDER BY n.id LIMIT $n",
                read=True,
                after=after,
                n=READ_PAGE,
            )
            if not subjects:
                return
            ids = [r["id"] for r in subjects]
            rows = self._run(
                "MATCH (a:Entity)-[e]->(:Entity) WHERE a.id IN $ids AND ($preds IS NULL OR type(e) IN $preds) "
                f"RETURN {RELATION_ROW.format(r='e')} AS rel",
                read=True,
                ids=ids,
                preds=list(predicates) if predicates else None,
            )
            yield from (_relation(r["rel"]) for r in rows)
            after = ids[-1]

    def entities_named(self, names: Sequence[str]) -> dict[str, list[Entity]]:
        wanted: dict[str, list[str]] = {}
        for name in names:
            if key := name.strip().lower():
                wanted.setdefault(key, []).append(name)
        if not wanted:
            return {}
        rows = self._run(
            "UNWIND $names AS q MATCH (n:Entity) "
            "WHERE toLower(trim(n.name)) = q OR any(s IN coalesce(n.synonyms, []) WHERE toLower(trim(s)) = q) "
            "RETURN q, properties(n) AS props ORDER BY n.id",
            read=True,
            names=list(wanted),
        )
        out: dict[str, list[Entity]] = {}
        for row in rows:
            for name in wanted[row["q"]]:
                out.setdefault(name, []).append(_entity(row["props"]))
        return out

    def search_names(self, text: str, *, types: Sequence[str] | None = None, limit: int = 20) -> list[Entity]:
        needle = text.strip().lower()
        if not needle or limit <= 0:
            return []
        rows = self._run(
            "MATCH (n:Entity) WHERE ($types IS NULL OR n.type IN $types) AND "
            "(toLower(n.name) CONTAINS $q OR any(s IN coalesce(n.synonyms, []) WHERE toLower(s) CONTAINS $q)) "
            "RETURN properties(n) AS props LIMIT $cap",
            read=True,
            types=list(types) if types else None,
            q=needle,
            cap=max(2000, limit * 50),
        )
        return rank_names((_entity(r["props"]) for r in rows), needle, types, limit)

    def relations(
        self,
        entity_id: str,
        *,
        predicates: Sequence[str] | None = None,
        direction: str = "both",
        exclude_sources: frozenset[str] = frozenset(),
        limit: int | None = None,
        neighbours: Collection[str] | None = None,
    ) -> list[Relation]:
        check_direction(direction)
        pattern = {"out": "-[e]->", "in": "<-[e]-", "both": "-[e]-"}[direction]
        rows = self._run(
            f"MATCH (n:Entity {{id: $id}}){pattern}(m:Entity) "
            f"WHERE ($preds IS NULL OR type(e) IN $preds) AND ($others IS NULL OR m.id IN $others) "
            f"AND {VISIBLE.format(r='e')} "
            f"RETURN DISTINCT elementId(e) AS eid, {RELATION_ROW.format(r='e')} AS rel",
            read=True,
            id=entity_id,
            preds=list(predicates) if predicates else None,
            others=sorted(neighbours) if neighbours is not None else None,
            ex=sorted(exclude_sources),
        )
        relations = [_relation(row["rel"]) for row in rows]
        if direction == "both":  # outgoing first, like the local store
            relations.sort(key=lambda r: r.subject != entity_id)
        return relations[:limit] if limit is not None else relations

    def degree(self, entity_id: str) -> int:
        rows = self._run(
            "MATCH (n:Entity {id: $id}) OPTIONAL MATCH (n)-[e]-() RETURN count(DISTINCT e) AS d",
            read=True,
            id=entity_id,
        )
        return int(rows[0]["d"]) if rows else 0

    def neighbourhood(
        self,
        entity_id: str,
        *,
        depth: int = 1,
        max_nodes: int = 50,
        types: Sequence[str] | None = None,
        exclude_sources: frozenset[str] = frozenset(),
    ) -> tuple[list[Entity], list[Relation]]:
        if self.get(entity_id) is None:
            return [], []
        ex = sorted(exclude_sources)

        def ring(frontier: list[str], seen: set[str]) -> dict[str, list[str]]:
            rows = self._run(
                "UNWIND $frontier AS fid MATCH (n:Entity {id: fid})-[e]-(m:Entity) "
                f"WHERE NOT m.id IN $seen AND ($types IS NULL OR m.type IN $types) AND {VISIBLE.format(r='e')} "
                "RETURN DISTINCT fid, m.id AS mid",
                read=True,
                frontier=frontier,
                seen=sorted(seen),
                types=list(types) if types else None,
                ex=ex,
            )
            found: dict[str, list[str]] = defaultdict(list)
            for row in rows:
                found[row["fid"]].append(row["mid"])
            return {node: sorted(set(ids)) for node, ids in found.items()}

        kept = bounded_bfs(entity_id, depth, max_nodes, ring)
        rows = self._run(
            "MATCH (a:Entity)-[e]->(b:Entity) WHERE a.id IN $ids AND b.id IN $ids AND "
            f"{VISIBLE.format(r='e')} RETURN {RELATION_ROW.format(r='e')} AS rel",
            read=True,
            ids=kept,
            ex=ex,
        )
        entities = self.get_many(kept)
        return [entities[i] for i in kept if i in entities], [_relation(row["rel"]) for row in rows]

    def paths(
        self,
        source: str,
        target: str,
        *,
        max_hops: int = 3,
        limit: int = 10,
        exclude_sources: frozenset[str] = frozenset(),
    ) -> list[list[Relation]]:
        if source == target or limit <= 0:
            return []
        found: list[list[Relation]] = []
        for length in range(1, min(int(max_hops), MAX_PATH_HOPS) + 1):
            rows = self._run(
                f"MATCH p = (a:Entity {{id: $s}})-[*{length}..{length}]-(b:Entity {{id: $t}}) "
                "WHERE all(i IN range(0, size(nodes(p)) - 2) WHERE NOT nodes(p)[i] IN nodes(p)[i + 1..]) "
                f"AND all(r IN relationships(p) WHERE {VISIBLE.format(r='r')}) "
                f"RETURN [r IN relationships(p) | {RELATION_ROW.format(r='r')}] AS rels LIMIT $n",
                read=True,
                s=source,
                t=target,
                ex=sorted(exclude_sources),
                n=limit - len(found),
            )
            found.extend([_relation(r) for r in row["rels"]] for row in rows)
            if len(found) >= limit:
                break
        return found[:limit]

    def counts(self) -> dict[str, dict[str, int]]:
        entities = self._run("MATCH (n:Entity) RETURN n.type AS k, count(*) AS c", read=True)
        relations = self._run("MATCH (:Entity)-[e]->(:Entity) RETURN type(e) AS k, count(*) AS c", read=True)
        return {
            "entities": {r["k"]: int(r["c"]) for r in sorted(entities, key=lambda r: r["k"])},
            "relations": {r["k"]: int(r["c"]) for r in sorted(relations, key=lambda r: r["k"])},
        }
