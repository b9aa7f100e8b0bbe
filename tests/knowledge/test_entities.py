"""Which MONDO classes the knowledge graph keeps around its linked diseases."""

from __future__ import annotations

from meddiag.knowledge.entities import select_disease_classes
from meddiag.knowledge.mondo import MondoTerm


def _term(mid: str, *ancestors: str) -> MondoTerm:
    """A class whose ancestors are listed nearest first (distance 1, 2, …)."""
    return MondoTerm(
        id=mid,
        label=mid,
        parents=list(ancestors[:1]),
        ancestors={a: i + 1 for i, a in enumerate(ancestors)},
    )


# disease (root) ← disease susceptibility ← migraine, susceptibility to ← migraine 5
# disease ← by body system ← nervous system disease ← epilepsy ← epilepsy 9
MONDO = {
    t.id: t
    for t in [
        _term("ROOT"),
        _term("SUSCEPTIBILITY", "ROOT"),
        _term("MIGRAINE_SERIES", "SUSCEPTIBILITY", "ROOT"),
        _term("MIGRAINE_5", "MIGRAINE_SERIES", "SUSCEPTIBILITY", "ROOT"),
        _term("BY_SYSTEM", "ROOT"),
        _term("NERVOUS", "BY_SYSTEM", "ROOT"),
        _term("EPILEPSY", "NERVOUS", "BY_SYSTEM", "ROOT"),
        _term("EPILEPSY_9", "EPILEPSY", "NERVOUS", "BY_SYSTEM", "ROOT"),
    ]
}


def test_a_direct_parent_is_kept_however_shallow_it_sits() -> None:
    # The migraine series has only two ancestors, yet it is migraine 5's series.
    assert select_disease_classes(["MIGRAINE_5"], MONDO) == {"MIGRAINE_5", "MIGRAINE_SERIES"}


def test_farther_ancestors_need_depth_and_nearness() -> None:
    # Epilepsy (3 ancestors) is the direct parent; the nervous system class two levels up
    # has only two ancestors and is left out, as is everything beyond max_distance.
    assert select_disease_classes(["EPILEPSY_9"], MONDO) == {"EPILEPSY_9", "EPILEPSY"}
    assert select_disease_classes(["EPILEPSY_9"], MONDO, min_depth=2) == {"EPILEPSY_9", "EPILEPSY", "NERVOUS"}
    assert select_disease_classes(["EPILEPSY_9"], MONDO, max_distance=1, min_depth=0) == {
        "EPILEPSY_9",
        "EPILEPSY",
    }


def test_unknown_classes_are_skipped() -> None:
    assert select_disease_classes(["NOT_IN_MONDO"], MONDO) == set()
