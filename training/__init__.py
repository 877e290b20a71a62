"""Training entry points and helpers (self-play, Stable-Baselines3 / sb3-contrib wrappers)."""

if __name__ != "uno_env.training":  # one import name per module (docs/architecture.md)
    raise ImportError(f"the folder training/ of the uno-env checkout is the package "
                      f"uno_env.training: import uno_env.training... instead of {__name__}...")
