"""printer/mariadb/charsets.py: the server's collation table, in two generated parts
(fixtures/gen_charsets.py), joined; the UCA 14.0 part is loaded when first asked."""
import pytest

from binlogkit.printer.mariadb import collations_common, collations_uca
from binlogkit.printer.mariadb.charsets import COLLATIONS, UCA_FROM, Collations


def test_the_parts_split_at_uca_from():
    assert collations_common.COLLATIONS and collations_uca.COLLATIONS
    assert max(collations_common.COLLATIONS) < UCA_FROM <= min(collations_uca.COLLATIONS)


def test_lookups_over_both_parts():
    assert COLLATIONS.get(45) == ("utf8mb4", "utf8mb4_general_ci", 4)
    assert COLLATIONS[63] == ("binary", "binary", 1)
    assert COLLATIONS.get(2304) == ("utf8mb4", "utf8mb4_uca1400_ai_ci", 4)
    assert 2304 in COLLATIONS and 45 in COLLATIONS
    for missing in (0, 1023, 99999, None):
        assert COLLATIONS.get(missing) is None and COLLATIONS.get(missing, "x") == "x"
        assert missing not in COLLATIONS
        with pytest.raises(KeyError):
            COLLATIONS[missing]


def test_the_uca_part_is_loaded_when_first_asked():
    table = Collations(collations_common.COLLATIONS)
    assert table.get(8) == ("latin1", "latin1_swedish_ci", 1)
    assert table.get(300) is None and not table._complete      # below UCA_FROM: no load
    assert table.get(2304)[1] == "utf8mb4_uca1400_ai_ci" and table._complete
