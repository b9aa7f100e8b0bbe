"""Clinical shorthand that HPO's labels and synonyms do not cover.

Clinicians write "tall", "salty sweat" or "high CK" where HPO says "Tall stature",
"Elevated sweat chloride" and "Elevated circulating creatine kinase concentration". These
phrases are added to the linker's index as synonyms; longest-match scanning still prefers
a longer HPO phrase that contains them ("tall chin" stays its own term). Kept short and
unambiguous on purpose: a phrase that could mean two findings does not belong here.
"""

from __future__ import annotations

from types import MappingProxyType

SHORTHAND = MappingProxyType(
    {
        "tall": "HP:0000098",  # Tall stature
        "very tall": "HP:0000098",
        "salty sweat": "HP:0012236",  # Elevated sweat chloride
        "salty skin": "HP:0012236",
        "high CK": "HP:0003236",  # Elevated circulating creatine kinase concentration
        "raised CK": "HP:0003236",
        "elevated CK": "HP:0003236",
        "high creatine kinase": "HP:0003236",
        "raised creatine kinase": "HP:0003236",
    }
)
