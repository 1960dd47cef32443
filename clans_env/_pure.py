"""Import a package's Python sources where compiled modules of the same name sit beside them.

An editable install builds the mypyc-compiled engine (``setup.py``) next to its ``.py`` files, and
Python's import system prefers an extension module to a source file of the same name; this finder,
put first on ``sys.meta_path``, answers for the package and its submodules with source files only.
"""
from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys


class _SourcesOnly(importlib.abc.MetaPathFinder):
    def __init__(self, package: str):
        self.package = package

    def find_spec(self, name, path, target=None):
        if name != self.package and not name.startswith(self.package + "."):
            return None
        if path is None:        # the package itself: look beside its parent package
            path = sys.modules[name.rpartition(".")[0]].__path__
        loaders = (importlib.machinery.SourceFileLoader, importlib.machinery.SOURCE_SUFFIXES)
        for entry in path:
            spec = importlib.machinery.FileFinder(entry, loaders).find_spec(name, target)
            if spec is not None:
                return spec
        return None


def prefer_sources(package: str) -> None:
    """From now on, ``package`` and its submodules load from their ``.py`` files (call before importing it)."""
    if not any(isinstance(f, _SourcesOnly) and f.package == package for f in sys.meta_path):
        sys.meta_path.insert(0, _SourcesOnly(package))
