"""The shipped YAML configs (``train/``, ``tournament/``), installed as ``uno_env.configs``.

A regular package rather than a bare folder, so that it is found the same way from a wheel,
the checkout and an editable install; :mod:`uno_env.shipped` reads it.
"""
