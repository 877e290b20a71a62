"""Reports of a self-play run: the training curve plot, and the results file of a trained
policy (``python -m uno_env.training.selfplay results ...``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from uno_env.agents.ppo import option_flags


def plot_curve(curve: Sequence[dict[str, Any]], path: str | Path, title: str = "") -> Path:
    """Win rate (with 95% intervals) against each evaluation opponent over training steps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=120)
    opponents = [k for k in (curve[0] if curve else {}) if isinstance(curve[0][k], dict)]
    for opp in opponents:
        pts = [c for c in curve if opp in c]
        x = [c["steps"] for c in pts]
        y = [c[opp]["win_rate"] for c in pts]
        lo = [c[opp]["ci_low"] for c in pts]
        hi = [c[opp]["ci_high"] for c in pts]
        ax.plot(x, y, marker="o", ms=3, label=f"vs {opp}")
        ax.fill_between(x, lo, hi, alpha=0.2)
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("learner decisions")
    ax.set_ylabel("win rate (greedy policy)")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    if title:
        ax.set_title(title)
    fig.tight_layout()
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(p)
    plt.close(fig)
    return p


def write_results(run_dir: str | Path, policy: str | Path, games: int, out_json: str | Path,
                  out_png: str | Path, seed: int = 0, workers: int = 1,
                  opponents: Sequence[str] = ("random", "rule")) -> dict[str, Any]:
    """Evaluate a trained policy against each opponent with ``uno_env.training.evaluate`` (each deal
    twice, seats swapped; with more players one seat against a field, rotated), plot the
    run's training curve and write both to ``docs/results``."""
    from uno_env.training.evaluate import evaluate

    run = Path(run_dir)
    ck = torch.load(run / "checkpoint_last.pt", map_location="cpu", weights_only=True)
    cfg = ck["config"]
    agent = f"ppo:{policy}"
    out: dict[str, Any] = {
        "variant": cfg["variant"], "num_players": cfg["num_players"],
        "options": ck["policy"]["options"], "policy": str(policy),
        "training": {"trainer": "selfplay", "config": cfg, **ck["counters"],
                     "curve_png": str(out_png)},
        "evaluation": [],
    }
    opts = dict(cfg["options"])
    n = cfg["num_players"]
    seating = "one" if n > 2 else "alternate"  # one trained seat against a field, rotated
    flags = f" {option_flags(opts)}" if opts else ""
    if seating == "one":
        flags += " --seating one"
    for opp in opponents:
        r = evaluate(agent, opp, games, variant=cfg["variant"], num_players=n, seed=seed,
                     options=opts, workers=workers, max_steps=cfg["max_steps"],
                     seating=seating)
        me = r.agents[0]
        out["evaluation"].append({
            "opponent": opp, "games": r.games, "wins": me.wins, "win_rate": me.win_rate,
            "ci95": [me.ci_low, me.ci_high], "opponent_wins": r.agents[1].wins,
            "no_winner": r.no_winner, "truncated": r.truncated, "seed": seed,
            "seconds": round(r.seconds, 1),
            "command": f"uno-env evaluate --agents {agent},{opp} --games {games} --seed {seed} "
                       f"--variant {cfg['variant']} --players {cfg['num_players']} "
                       f"--max-steps {cfg['max_steps']}{flags}",
        })
    p = Path(out_json)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(out, indent=1) + "\n")
    plot_curve(ck["curve"], out_png,
               f"{cfg['variant']}, {cfg['num_players']} players: self-play PPO "
               f"(eval: {cfg['eval_games']} games per point, greedy)")
    return out
