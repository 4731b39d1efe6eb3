"""The whole suite's hypothesis settings: bounded by work (each test's ``max_examples``),
never by the wall clock. A loaded machine (two cores shared by several runs) makes
generating or running an example slow; that is no failure, so neither a deadline per
example nor the ``too_slow`` health check (a measure of seconds) applies."""

from hypothesis import HealthCheck, settings

settings.register_profile("rummyhall", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("rummyhall")
