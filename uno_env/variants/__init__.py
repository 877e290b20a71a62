"""The variant registry: ``find_variant(name)`` and ``list_variants()``."""

# Importing a variant module registers it; the order here is the order of list_variants().
from uno_env.variants import classic as _classic  # noqa: F401
from uno_env.variants import express as _express  # noqa: F401
from uno_env.variants import flex as _flex  # noqa: F401
from uno_env.variants import flip as _flip  # noqa: F401
from uno_env.variants.base import Option, Variant, find_variant, list_variants, register

__all__ = ["Option", "Variant", "find_variant", "list_variants", "register"]
