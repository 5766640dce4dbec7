"""sourcebook: keep a source-checked research record as plain files, check it, publish it."""

__version__ = "0.1.0"
