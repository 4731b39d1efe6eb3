"""The whole suite's hypothesis settings: bounded by work (each test's ``max_examples``),
never by the wall clock. A loaded machine (two cores shared by several runs) makes
generating or running an example slow; that is no failure, so neither a deadline per
example nor the ``too_slow`` health check (a measure of seconds) applies; and the
``--expect-compiled`` flag of CI's compiled run."""

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("rummyhall", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("rummyhall")


def pytest_addoption(parser: pytest.Parser) -> None:
    # CI's compiled run (.ci/run): tests/cli/test_compiled.py then asserts that the
    # compiled rules modules are the ones in use, not a silent fallback to pure Python.
    parser.addoption("--expect-compiled", action="store_true",
                     help="fail unless the compiled rules modules (rummyhall compile) load")
