"""Tournaments, replays and playing against the agents."""
