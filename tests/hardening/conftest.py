# Marks used by the hardening tests.


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "slow: takes minutes; run by `make test-scale` only")
