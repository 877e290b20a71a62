"""Tournaments, replays and playing against the agents."""

if __name__ != "uno_env.tournament":  # one import name per module (docs/architecture.md)
    raise ImportError(f"the folder tournament/ of the uno-env checkout is the package "
                      f"uno_env.tournament: import uno_env.tournament... instead of {__name__}...")
