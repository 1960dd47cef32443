"""The ``clans`` command line (``clans_cli.main:main``): tournaments, benchmarks, training."""
