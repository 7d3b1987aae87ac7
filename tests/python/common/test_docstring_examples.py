"""The Examples sections of the public API run and print what they say
(doctest), so the documentation cannot drift from the code. Examples marked
``# doctest: +SKIP`` are illustrations that need data or time."""

from __future__ import annotations

import doctest
import inspect

import pytest

import vcgmm


def _public_objects():
    for name in vcgmm.__all__:
        obj = getattr(vcgmm, name)
        yield name, obj
        if inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if not attr.startswith("_") and callable(member) and member.__doc__:
                    yield f"{name}.{attr}", member


@pytest.mark.parametrize("name, obj", list(_public_objects()), ids=lambda v: v if isinstance(v, str) else "")
def test_examples_run(name, obj):
    finder = doctest.DocTestFinder(recurse=False)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(obj, name, globs={}):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed"


def test_every_public_name_has_examples():
    missing = [name for name in vcgmm.__all__
               if "Examples" not in (inspect.getdoc(getattr(vcgmm, name)) or "")]
    assert not missing, f"no Examples section: {missing}"
