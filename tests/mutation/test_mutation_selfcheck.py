"""``lanes mutation --self-check``'s planted fault of its own logic (the numbered check 5).

The other checks run real mutmut (tests/mutation/test_mutation_integration.py
drives the same planted project); this one needs no mutmut.
"""

from __future__ import annotations

from lanes.mutation.selfcheck import planted_key_fault


def test_the_self_check_catches_keys_that_hash_the_line_index_inside_the_function() -> None:
    fault = planted_key_fault()
    assert fault["fault"].startswith("mutant keys that hash the changed line's index")
    assert (fault["expected"], fault["real"], fault["planted"]) == (
        "same key",
        "same key",
        "the key changed",
    )
    assert fault["caught"]
