# The hardening tests' helpers (harness, malform, scalegen, elfpatch)
# and the slow scale test.  A package, so that its conftest.py does not
# shadow tests/conftest.py as the module "conftest".
