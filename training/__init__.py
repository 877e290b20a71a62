"""Training entry points and helpers (self-play, Stable-Baselines3 / sb3-contrib wrappers)."""
