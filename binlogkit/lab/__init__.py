"""Throw-away MariaDB servers for fixtures, tests and benchmarks."""
