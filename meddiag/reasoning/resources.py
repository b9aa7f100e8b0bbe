"""What the offline reasoner needs in memory, built once per process.

The HPO ontology, the phrase linker (HPO labels and synonyms, disease names, gene
symbols), the `PhenotypeIndex` the differential ranker scores against, and id ↔ name
tables. Everything is derived from the knowledge base's own entities and relations, so
the reasoner never knows a fact the knowledge base does not hold.
"""

from __future__ import annotations

import re
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Protocol

from meddiag.diagnosis.index import PhenotypeIndex
from meddiag.diagnosis.linking import EmbedSearch, PhraseLinker
from meddiag.diagnosis.name_findings import with_name_findings
from meddiag.knowledge.annotations import parse_gene_diseases, parse_hpoa
from meddiag.knowledge.entities import gene_entities
from meddiag.knowledge.hpo import Ontology, in_sentence
from meddiag.knowledge.model import Entity, KnowledgeBase, Relation
from meddiag.knowledge.phenotype_relations import phenotype_relations
from meddiag.knowledge.relations import gene_relations, inheritance_relations, onset_relations
from meddiag.knowledge.sources import packaged_sources

# IS_A brings disease -> MONDO class links, which the ranker uses to borrow evidence within a
# series; HAS_INHERITANCE lets it weigh an X-linked recessive disease in a female patient;
# ASSOCIATED_GENE tells it which diseases have a known molecular cause; HAS_ONSET how far a
# disease's curated onset lies from the patient's.
INDEX_PREDICATES: tuple[str, ...] = (
    "HAS_PHENOTYPE",
    "NOT_HAS_PHENOTYPE",
    "EQUIVALENT_TO",
    "HAS_ONSET",
    "IS_A",
    "HAS_INHERITANCE",
    "ASSOCIATED_GENE",
)
FACT_PREDICATES: tuple[str, ...] = ("ASSOCIATED_GENE", "HAS_INHERITANCE", "HAS_ONSET")
NAME_TYPES: tuple[str, ...] = ("Disease", "Gene", "Inheritance", "Onset")
# MONDO grouping classes are named (a row placed by its series names the class it shares)
# but never looked up by name: a question's words must not resolve to a grouping.
CLASS_TYPE = "DiseaseClass"
_NON_WORD = re.compile(r"[^a-z0-9]+")


@lru_cache(maxsize=65_536)
def name_key(name: str) -> str:
    """Case- and punctuation-insensitive key for looking an entity up by its printed name
    (remembered: triple filters compare the same few hundred names over and over)."""
    return _NON_WORD.sub(" ", name.lower()).strip()


class _GraphDump(Protocol):
    """The bulk reads a graph store offers for building in-memory indexes once per process."""

    def iter_entities(self, types: Any = None) -> Iterable[Entity]: ...
    def iter_relations(self, predicates: Any = None) -> Iterable[Relation]: ...


@dataclass
class ReasoningResources:
    """Ontology, linker, ranking index and name tables; read-only after construction (thread-safe)."""

    ontology: Ontology
    linker: PhraseLinker
    index: PhenotypeIndex
    names: dict[str, str]  # entity id -> printed name (diseases, genes, inheritance, onset, classes)
    ids_by_name: dict[str, list[str]]  # name_key(name) -> entity ids
    facts: dict[
        str, dict[str, list[str]]
    ]  # disease id -> predicate -> object ids (genes, inheritance, onset)
    timings: dict[str, float] = field(default_factory=dict)  # seconds per build stage
    disease_ids: frozenset[str] = frozenset()  # ids of Disease entities (not MONDO classes)

    def __post_init__(self) -> None:
        # One row id per equivalence group (OMIM ↔ ORPHA ↔ MONDO), computed once: a ranking
        # profile if the group has one, else the most widely cited catalogue id.
        self._row_id: dict[str, str] = {}
        for first, group in self.index.equivalents.items():
            if first in self._row_id:
                continue
            row = min(group, key=self._row_preference)
            for member in group:
                self._row_id[member] = row
        # Gene -> the diseases associated with it, for questions that name a gene.
        self._gene_diseases: dict[str, list[str]] = defaultdict(list)
        for disease_id, facts in self.facts.items():
            for gene_id in facts.get("ASSOCIATED_GENE", ()):
                self._gene_diseases[gene_id].append(disease_id)

    # ------------------------------------------------------------------ construction

    @classmethod
    def from_parts(
        cls,
        ontology: Ontology,
        entities: Iterable[Entity],
        relations: Iterable[Relation],
        *,
        embed_search: EmbedSearch | None = None,
    ) -> ReasoningResources:
        """Build from KB entities and relations (any source: a store, an assembled KB, a test)."""
        timings: dict[str, float] = {}
        t0 = time.perf_counter()
        names: dict[str, str] = {}
        ids_by_name: dict[str, list[str]] = defaultdict(list)
        disease_names: dict[str, list[str]] = {}
        genes: list[str] = []
        for e in entities:
            if e.type == CLASS_TYPE:
                names[e.id] = e.name
            if e.type not in NAME_TYPES:
                continue
            names[e.id] = e.name
            for n in (e.name, *e.synonyms):
                ids = ids_by_name[name_key(n)]
                if e.id not in ids:
                    ids.append(e.id)
            if e.type == "Disease":
                disease_names[e.id] = [e.name, *e.synonyms]
            elif e.type == "Gene":
                genes.append(e.name)
        index_rels: list[Relation] = []
        facts: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
        for r in relations:
            if r.predicate in INDEX_PREDICATES:
                index_rels.append(r)
            if r.predicate in FACT_PREDICATES:
                facts[r.subject][r.predicate].append(r.object)
        timings["read"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        linker = PhraseLinker(ontology, diseases=disease_names, genes=genes, embed_search=embed_search)
        timings["linker"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        profile_names = {k: v for k, v in names.items() if k in disease_names}
        # What a disease's name states ("Deafness, autosomal recessive 102") joins its profile
        # as weak facts (`name_findings`); read with this same linker, so name and question
        # are read alike.
        index_rels = with_name_findings(linker, index_rels, profile_names)
        timings["name findings"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        index = PhenotypeIndex(ontology, index_rels, profile_names)
        timings["index"] = time.perf_counter() - t0
        return cls(
            ontology=ontology,
            linker=linker,
            index=index,
            names=names,
            ids_by_name=dict(ids_by_name),
            facts={d: dict(p) for d, p in facts.items()},
            timings=timings,
            disease_ids=frozenset(disease_names),
        )

    @classmethod
    def from_knowledge_base(
        cls, kb: KnowledgeBase, ontology: Ontology | None = None, *, embed_search: EmbedSearch | None = None
    ) -> ReasoningResources:
        """Build from an assembled (not yet stored) `KnowledgeBase`."""
        t0 = time.perf_counter()
        onto = ontology or Ontology.from_obo(packaged_sources().hp_obo)
        parse = time.perf_counter() - t0
        res = cls.from_parts(onto, kb.entities, kb.relations, embed_search=embed_search)
        res.timings = {"ontology": parse, **res.timings}
        return res

    @classmethod
    def from_handle(cls, kb: Any, ontology: Ontology | None = None) -> ReasoningResources:
        """Build from an open knowledge base (`meddiag.knowledge.handle.KnowledgeBaseHandle`).

        Reads every entity and relation once through the graph store's bulk iterators and
        backs the linker's embedding fallback with the `entity_names` vectors.
        """
        graph = kb.graph
        if not (hasattr(graph, "iter_entities") and hasattr(graph, "iter_relations")):
            # A store without bulk reads: the same packaged HPO files the build used, kept to
            # the diseases this knowledge base holds (the demo profile is a subset).
            return cls.from_sources(ontology, keep=_present_in(graph), embed_search=entity_name_search(kb))
        dump: _GraphDump = graph
        t0 = time.perf_counter()
        onto = ontology or Ontology.from_obo(packaged_sources().hp_obo)
        parse = time.perf_counter() - t0
        t0 = time.perf_counter()
        entities = list(dump.iter_entities([*NAME_TYPES, CLASS_TYPE]))
        relations = list(dump.iter_relations(list(INDEX_PREDICATES + FACT_PREDICATES)))
        read = time.perf_counter() - t0
        res = cls.from_parts(onto, entities, relations, embed_search=entity_name_search(kb))
        res.timings = {"ontology": parse, "graph": read, **res.timings}
        return res

    @classmethod
    def from_sources(
        cls,
        ontology: Ontology | None = None,
        *,
        keep: Callable[[Iterable[str]], set[str]] | None = None,
        embed_search: EmbedSearch | None = None,
    ) -> ReasoningResources:
        """Build straight from the packaged HPO files (no MONDO synonyms); `keep` filters disease ids."""
        t0 = time.perf_counter()
        files = packaged_sources()
        onto = ontology or Ontology.from_obo(files.hp_obo)
        ann = parse_hpoa(files.phenotype_hpoa)
        pairs = parse_gene_diseases(files.genes_to_phenotype)
        kept = keep(ann.diseases) if keep is not None else set(ann.diseases)
        rows = [r for r in ann.rows if r.disease_id in kept]
        pairs = [p for p in pairs if p.disease_id in kept]
        relations = [
            *phenotype_relations(rows, onto),
            *onset_relations(rows, onto),
            *inheritance_relations(rows, onto),
            *gene_relations(pairs),
        ]
        entities = [
            Entity.model_construct(id=d, type="Disease", name=n, synonyms=[])
            for d, n in ann.diseases.items()
            if d in kept
        ]
        entities += gene_entities(pairs)
        parse = time.perf_counter() - t0
        res = cls.from_parts(onto, entities, relations, embed_search=embed_search)
        res.timings = {"sources": parse, **res.timings}
        return res

    # ------------------------------------------------------------------ lookups

    def in_sentence(self, label: str) -> str:
        """`label` as it reads inside a sentence, eponyms HPO capitalises kept ("Gowers sign")."""
        return in_sentence(label, self.ontology.proper_nouns)

    def name(self, entity_id: str) -> str:
        if entity_id in self.names:
            return self.names[entity_id]
        return self.ontology.label(entity_id)

    def lookup(self, name: str) -> list[str]:
        """Entity ids printed under `name` (diseases, genes …); HPO labels resolve through the ontology."""
        return list(self.ids_by_name.get(name_key(name), ()))

    def canonical_disease(self, disease_id: str) -> str:
        """The one id its equivalence group is shown and ranked under.

        A ranking profile stands for itself; any other id maps to its group's profile (two
        OMIM entries linked to one MONDO class share one), else to the group's OMIM, ORPHA,
        DECIPHER or MONDO id, in that order of preference.
        """
        if disease_id in self.index.profile_index:
            return disease_id
        return self._row_id.get(disease_id, disease_id)

    def is_known_disease(self, disease_id: str) -> bool:
        """A disease the differential may list: a ranking profile or a Disease entity (not a MONDO class)."""
        return disease_id in self.index.profile_index or disease_id in self.disease_ids

    def aliases(self, disease_id: str) -> list[str]:
        """The other catalogue ids of the disease a row stands for (one profile per group, so
        none of them is ranked apart)."""
        return [m for m in self.index.equivalents.get(disease_id, ()) if m != disease_id]

    def _row_preference(self, disease_id: str) -> tuple[int, int, str]:
        prefix = disease_id.split(":", 1)[0]
        rank = {"OMIM": 0, "ORPHA": 1, "DECIPHER": 2, "MONDO": 3}.get(prefix, 4)
        if disease_id in self.index.profile_index:
            return (0, rank, disease_id)
        return (1 if self.is_known_disease(disease_id) else 2, rank, disease_id)

    def ic(self, term_id: str) -> float:
        """Information content of an HPO term (0 when the index does not know it)."""
        t = self.index.term(term_id)
        return float(self.index.ic[t]) if t is not None else 0.0

    def most_specific(self, term_ids: Iterable[str], n: int | None = None) -> list[str]:
        """Terms by information content, highest first, ties by id: the wording built from
        them never depends on the order a set happens to iterate in (it varies by process)."""
        ranked = sorted(term_ids, key=lambda t: (-self.ic(t), t))
        return ranked if n is None else ranked[:n]

    def genes_of(self, disease_id: str) -> list[str]:
        return self._facts_of(disease_id, "ASSOCIATED_GENE")

    def diseases_of_genes(self, symbols: Iterable[str]) -> dict[str, list[str]]:
        """Differential rows associated with the named gene symbols -> those symbols."""
        out: dict[str, list[str]] = {}
        for symbol in symbols:
            for gene_id in self.ids_by_name.get(name_key(symbol), ()):
                for disease_id in self._gene_diseases.get(gene_id, ()):
                    named = out.setdefault(self.canonical_disease(disease_id), [])
                    if symbol not in named:
                        named.append(symbol)
        return out

    def _facts_of(self, disease_id: str, predicate: str) -> list[str]:
        out: list[str] = []
        for member in [disease_id, *self.index.equivalents.get(disease_id, ())]:
            for obj in self.facts.get(member, {}).get(predicate, ()):
                if obj not in out:
                    out.append(obj)
        return out


def entity_name_search(kb: Any, *, top_k: int = 50) -> EmbedSearch | None:
    """Nearest HPO terms for a phrase, from the knowledge base's `entity_names` vectors."""
    vectors = getattr(kb, "vectors", None)
    embedder = getattr(kb, "embedder", None)
    if vectors is None or embedder is None:
        return None
    collection = kb.collection("entity_names")

    def search(text: str) -> list[tuple[str, float]]:
        vec = embedder.embed([text])[0]
        hits = vectors.search(collection, [float(x) for x in vec], top_k, kinds=["Phenotype"])
        # A record is one name of one entity: its id is "<entity id>#<k>" unless `extra` says otherwise.
        found = [(str(h.extra.get("entity_id") or h.id.split("#", 1)[0]), float(h.score)) for h in hits]
        return [(i, s) for i, s in found if i.startswith("HP:")]

    return search


def _present_in(graph: Any) -> Callable[[Iterable[str]], set[str]]:
    """A filter keeping the disease ids the graph store holds."""

    def keep(ids: Iterable[str]) -> set[str]:
        wanted = list(ids)
        present: set[str] = set()
        for i in range(0, len(wanted), 2000):
            present.update(graph.get_many(wanted[i : i + 2000]))
        return present

    return keep
