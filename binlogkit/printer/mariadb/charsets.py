"""Collation id -> (charset name, collation name, maxlen), as the server has them.

The table comes from a real MariaDB server (fixtures/gen_charsets.py) in two
generated parts: the ids below 1024 (collations_common.py), which every print
of a Query event needs, and the UCA 14.0 ids (collations_uca.py, five times
larger), loaded the first time a log names one.  `COLLATIONS` answers `get`,
`[]` and `in` over both.
"""
from binlogkit.printer.mariadb.collations_common import COLLATIONS as _COMMON

UCA_FROM = 1024


class Collations:
    """The two generated tables as one mapping, the second loaded when first asked."""

    def __init__(self, common):
        self._table = dict(common)
        self._complete = False

    def _lookup(self, cs_id):
        info = self._table.get(cs_id)
        if info is None and not self._complete and isinstance(cs_id, int) and cs_id >= UCA_FROM:
            from binlogkit.printer.mariadb.collations_uca import COLLATIONS as uca
            self._table.update(uca)
            self._complete = True
            info = self._table.get(cs_id)
        return info

    def get(self, cs_id, default=None):
        info = self._lookup(cs_id)
        return default if info is None else info

    def __getitem__(self, cs_id):
        info = self._lookup(cs_id)
        if info is None:
            raise KeyError(cs_id)
        return info

    def __contains__(self, cs_id):
        return self._lookup(cs_id) is not None


COLLATIONS = Collations(_COMMON)
