"""Build hook for the optional compiled observation encoder (everything else is in pyproject.toml).

The extension is optional: where no C compiler is available the install still succeeds and
``clans_env.encoding.ObservationEncoder`` uses its pure-Python path (same values, slower);
``clans_env.encoding.ACCELERATED`` tells which one is in use.
"""
from setuptools import Extension, setup

setup(ext_modules=[Extension("clans_env.encoding._fastobs", ["clans_env/encoding/_fastobs.c"],
                             extra_compile_args=["-O2"], optional=True)])
