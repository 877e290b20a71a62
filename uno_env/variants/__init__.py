"""The variant registry: ``find_variant(name)`` and ``list_variants()``."""

from uno_env.variants import classic as _classic  # noqa: F401  (registers)
from uno_env.variants.base import Option, Variant, find_variant, list_variants, register

__all__ = ["Option", "Variant", "find_variant", "list_variants", "register"]
