"""``python -m uno_env.training.selfplay``: train from a config, or evaluate a run's policy."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from uno_env.training.selfplay.reporting import write_results
from uno_env.training.selfplay.trainer import train


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m uno_env.training.selfplay CONFIG [key=value ...]`` trains (``uno-env train`` does
    the same through ``uno_env.training.cli``);
    ``python -m uno_env.training.selfplay results RUN_DIR POLICY GAMES OUT_JSON OUT_PNG [WORKERS]``
    evaluates a policy and plots its run's curve (see :func:`write_results`)."""
    import yaml

    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print(main.__doc__, file=sys.stderr)
        return 2
    if args[0] == "results":
        if len(args) not in (6, 7):
            print(main.__doc__, file=sys.stderr)
            return 2
        res = write_results(args[1], args[2], int(args[3]), args[4], args[5],
                            workers=int(args[6]) if len(args) == 7 else 1)
        for e in res["evaluation"]:
            print(f"vs {e['opponent']}: {e['wins']}/{e['games']} = {e['win_rate']:.4f} "
                  f"[{e['ci95'][0]:.4f}, {e['ci95'][1]:.4f}]")
        return 0
    config = yaml.safe_load(Path(args[0]).read_text()) or {}
    for item in args[1:]:
        key, _, value = item.partition("=")
        config[key] = yaml.safe_load(value)
    train(config)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
