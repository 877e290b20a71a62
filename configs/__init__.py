"""The shipped YAML configs (``train/``, ``tournament/``), installed as ``uno_env.configs``.

A regular package rather than a bare folder, so that it is found the same way from a wheel,
the checkout and an editable install; :mod:`uno_env.shipped` reads it.
"""

if __name__ != "uno_env.configs":  # one import name per module (docs/architecture.md)
    raise ImportError(f"the folder configs/ of the uno-env checkout is the package "
                      f"uno_env.configs: import uno_env.configs... instead of {__name__}...")
