"""Mutation testing of the pure modules (``make mutation``): does the suite notice when a rule is broken?

mutmut mutates the inside of functions; the rules kept at module level (patterns, limits, tables) are broken
by the hand-made mutants of ``mutants.py``. Each module is run against the tests that reach it (``modules.py``),
in a copy of the tree, so the checkout is never changed. Not part of ``make test``: it takes minutes a module.
"""
