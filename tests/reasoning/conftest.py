from __future__ import annotations

import pytest

from meddiag.knowledge.hpo import Ontology
from meddiag.reasoning.offline import OfflineReasoner
from meddiag.reasoning.resources import ReasoningResources
from tests.reasoning import world


@pytest.fixture(scope="session")
def tiny_ontology(tmp_path_factory: pytest.TempPathFactory) -> Ontology:
    return world.ontology(tmp_path_factory.mktemp("hpo"))


@pytest.fixture(scope="session")
def resources(tiny_ontology: Ontology) -> ReasoningResources:
    return ReasoningResources.from_parts(tiny_ontology, world.entities(), world.relations())


@pytest.fixture(scope="session")
def reasoner(resources: ReasoningResources) -> OfflineReasoner:
    return OfflineReasoner(resources)
