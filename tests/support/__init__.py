"""What the tests share that is not a fixture: independent decoders (``*_reference``), models and
archives the tests build, helpers that read Blender's data, the fuzz cases. Fixtures live in
``tests/conftest.py``; no test module imports another test module (``tests/house/test_suite_layout.py``).

Modules here import each other relatively, so ``tools/fuzz_campaign.py`` can use them as
``tests.support`` with only the checkout on ``sys.path``."""
