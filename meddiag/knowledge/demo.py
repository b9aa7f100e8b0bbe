"""Choose the diseases of the demo knowledge base: small, deterministic and clinically coherent.

Starting from well-known diseases (`SEEDS`, Marfan syndrome first), each seed brings its
closest *differentials*: diseases sharing its more specific phenotypes, scored by the
inverse document frequency of the shared terms and normalised by the candidate's size, so
that a question about one seed has real competitors. Seeds take turns picking their next
neighbour until the target size is reached. Non-seed candidates must be linked to MONDO
(for descriptions) and carry at least `MIN_PHENOTYPES` annotations. Finally only the
part connected to the first seed through shared phenotypes is kept, so the demo graph is
one component. Ties are broken by id, so the selection is the same on every run.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence

# Well-known genetic syndromes a demo is likely to be asked about (OMIM ids).
SEEDS: tuple[str, ...] = (
    "OMIM:154700",  # Marfan syndrome
    "OMIM:609192",  # Loeys-Dietz syndrome 1
    "OMIM:236200",  # Homocystinuria due to CBS deficiency
    "OMIM:130050",  # Ehlers-Danlos syndrome, vascular type
    "OMIM:130000",  # Ehlers-Danlos syndrome, classic type
    "OMIM:121050",  # Congenital contractural arachnodactyly
    "OMIM:182212",  # Shprintzen-Goldberg syndrome
    "OMIM:163950",  # Noonan syndrome 1
    "OMIM:162200",  # Neurofibromatosis type 1
    "OMIM:191100",  # Tuberous sclerosis 1
    "OMIM:312750",  # Rett syndrome
    "OMIM:300624",  # Fragile X syndrome
    "OMIM:176270",  # Prader-Willi syndrome
    "OMIM:105830",  # Angelman syndrome
    "OMIM:194050",  # Williams-Beuren syndrome
    "OMIM:188400",  # DiGeorge syndrome
    "OMIM:190685",  # Down syndrome
    "OMIM:180849",  # Rubinstein-Taybi syndrome 1
    "OMIM:122470",  # Cornelia de Lange syndrome 1
    "OMIM:214800",  # CHARGE syndrome
    "OMIM:100800",  # Achondroplasia
    "OMIM:166200",  # Osteogenesis imperfecta type I
    "OMIM:219700",  # Cystic fibrosis
    "OMIM:261600",  # Phenylketonuria
    "OMIM:277900",  # Wilson disease
    "OMIM:301500",  # Fabry disease
    "OMIM:230800",  # Gaucher disease type I
    "OMIM:310200",  # Duchenne muscular dystrophy
    "OMIM:253300",  # Spinal muscular atrophy type I
    "OMIM:143100",  # Huntington disease
    "OMIM:175200",  # Peutz-Jeghers syndrome
    "OMIM:193300",  # von Hippel-Lindau syndrome
    "OMIM:607208",  # Dravet syndrome
    "OMIM:235200",  # Hemochromatosis type 1
)
TARGET_SIZE = 400
MIN_PHENOTYPES = 8
# Terms annotated to more diseases than this (intellectual disability, seizure …) do not
# make two diseases each other's differential; they are ignored when scoring neighbours.
MAX_TERM_DISEASES = 400


def _neighbours(
    seed: str,
    phenotypes: Mapping[str, set[str]],
    by_term: Mapping[str, list[str]],
    weight: Mapping[str, float],
    eligible: set[str],
) -> list[str]:
    scores: dict[str, float] = defaultdict(float)
    for term in phenotypes.get(seed, ()):
        w = weight.get(term)
        if w is None:
            continue
        for other in by_term[term]:
            if other != seed and other in eligible:
                scores[other] += w
    ranked = sorted(scores, key=lambda d: (-scores[d] / math.sqrt(len(phenotypes[d])), d))
    return ranked


def _connected_to(first: str, selected: Sequence[str], phenotypes: Mapping[str, set[str]]) -> list[str]:
    """The selected diseases reachable from `first` through shared phenotypes, in selection order."""
    by_term: dict[str, list[str]] = defaultdict(list)
    for d in selected:
        for term in phenotypes.get(d, ()):
            by_term[term].append(d)
    reached, stack = {first}, [first]
    while stack:
        for term in phenotypes.get(stack.pop(), ()):
            for other in by_term[term]:
                if other not in reached:
                    reached.add(other)
                    stack.append(other)
    return [d for d in selected if d in reached]


def select_demo_diseases(
    phenotypes: Mapping[str, set[str]],
    mondo_links: Mapping[str, str],
    *,
    seeds: Sequence[str] = SEEDS,
    target: int = TARGET_SIZE,
) -> list[str]:
    """The demo's disease ids, seeds first then in the order they were picked.

    `phenotypes` maps every annotated disease to its positive phenotype ids
    (`annotations.scan_hpoa`); `mondo_links` maps disease ids to MONDO ids.
    """
    seeds = [s for s in seeds if phenotypes.get(s)]
    if not seeds:
        raise ValueError("none of the demo seed diseases is annotated in this HPO release")
    by_term: dict[str, list[str]] = defaultdict(list)
    for disease in sorted(phenotypes):
        for term in phenotypes[disease]:
            by_term[term].append(disease)
    n = len(phenotypes)
    weight = {t: math.log(n / len(ds)) for t, ds in by_term.items() if 1 < len(ds) <= MAX_TERM_DISEASES}
    eligible = {d for d, terms in phenotypes.items() if d in mondo_links and len(terms) >= MIN_PHENOTYPES}

    selected: list[str] = []
    chosen: set[str] = set()

    def take(disease: str) -> None:
        if disease not in chosen:
            chosen.add(disease)
            selected.append(disease)

    for seed in seeds:
        take(seed)
    # The same disease under its other catalogue id (OMIM ↔ ORPHA) shows the EQUIVALENT_TO links.
    by_mondo: dict[str, list[str]] = defaultdict(list)
    for disease, mid in sorted(mondo_links.items()):
        by_mondo[mid].append(disease)
    for seed in seeds:
        for twin in by_mondo.get(mondo_links.get(seed, ""), []):
            if twin in phenotypes and len(selected) < target:
                take(twin)

    queues = {s: _neighbours(s, phenotypes, by_term, weight, eligible) for s in seeds}
    cursor = dict.fromkeys(seeds, 0)
    while len(selected) < target and any(cursor[s] < len(queues[s]) for s in seeds):
        for seed in seeds:
            queue = queues[seed]
            while cursor[seed] < len(queue) and queue[cursor[seed]] in chosen:
                cursor[seed] += 1
            if cursor[seed] < len(queue) and len(selected) < target:
                take(queue[cursor[seed]])
                cursor[seed] += 1
    return _connected_to(seeds[0], selected, phenotypes)
