from __future__ import annotations

import pytest

from meddiag.knowledge.disease_names import readable_name


@pytest.mark.parametrize(
    ("name", "mondo_label", "shown"),
    [
        ("Marfan syndrome", "Marfan syndrome", "Marfan syndrome"),  # written normally: kept
        ("GLYCINE N-METHYLTRANSFERASE DEFICIENCY", "glycine N-methyltransferase deficiency",
         "Glycine N-methyltransferase deficiency"),  # MONDO's casing, same words
        ("OSTEOPOROSIS", None, "Osteoporosis"),
        ("DEAFNESS, Y-LINKED 2", "hearing loss, Y-linked 2", "Deafness, Y-linked 2"),  # other words: own name
        ("VITAMIN K-DEPENDENT CLOTTING FACTORS, COMBINED DEFICIENCY OF, 1", None,
         "Vitamin K-dependent clotting factors, combined deficiency of, 1"),
        ("B-CELL CLL/LYMPHOMA 2", None, "B-cell CLL/lymphoma 2"),
        ("B-CELL MALIGNANCY, LOW-GRADE", None, "B-cell malignancy, low-grade"),
        ("SLC35A1-CDG", None, "SLC35A1-CDG"),
        ("DDOST-CDG", None, "DDOST-CDG"),
        ("CHANDS", None, "CHANDS"),  # a short one-word name is likely an acronym
        ("MELAS", "MELAS", "MELAS"),
    ],
)  # fmt: skip
def test_names_in_capitals_are_written_in_sentence_case_keeping_symbols(
    name: str, mondo_label: str | None, shown: str
) -> None:
    assert readable_name(name, mondo_label) == shown
