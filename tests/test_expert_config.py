"""The expert loop's config keys and their errors, the report table, the command
(uno_env.training.expert; docs/expert-loop.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from uno_env.cli import main as uno_main
from uno_env.training.cli import load_config
from uno_env.training.expert.config import ExpertConfig
from uno_env.training.expert.report import markdown, write_reports


def tiny(**over: Any) -> dict[str, Any]:
    cfg = load_config("expert_tiny")
    cfg.update(over)
    return cfg


def test_shipped_configs_are_the_classic_vd_table() -> None:
    full = ExpertConfig.from_dict(load_config("expert_classic_vd"))
    assert full.prior == "ppo:classic-vd" and full.eval_games == 20_000
    import torch

    from uno_env.training.expert.loop import prior_file

    payload = torch.load(prior_file(full), map_location="cpu", weights_only=True)
    from uno_env import Game

    # the options the prior was trained with are the table's
    assert payload["options"] == dict(Game("classic", 2, **full.options).options)
    small = ExpertConfig.from_dict(tiny())
    assert small.iterations == 2 and small.prior == full.prior
    sp = small.selfplay_config(1, "x.pt", "out")
    assert sp.options == full.options and sp.total_steps == small.ppo_steps
    assert sp.seed != small.selfplay_config(0).seed  # a seed per iteration


@pytest.mark.parametrize(("over", "message"), [
    ({"tau": 0}, "tau must be a finite number > 0"),
    ({"tau": "inf"}, "tau must be a finite number > 0"),
    ({"distill_coef": -1}, "distill_coef must be >= 0"),
    ({"mode": "magic"}, "mode='magic'; allowed: ppo, distill"),
    ({"mode": "distill", "distill_coef": 0}, "would train nothing"),
    ({"iterations": 0}, "iterations must be >= 1"),
    ({"label_window": 0}, "label_window must be >= 1"),
    ({"resume": "somewhere.pt"}, "resume must be auto or null"),
    ({"eval_games": -5}, "eval_games must be >= 0"),
    ({"selfplay": {"total_steps": 5}}, "selfplay: keys total_steps are set by the expert"),
    ({"selfplay": {"no_such_key": 5}}, "unknown selfplay config key 'no_such_key'"),
    ({"selfplay": {"lr": "fast"}}, "config key lr must be like"),
    ({"nope": 1}, "unknown expert config key 'nope'"),
    ({"trainer": "selfplay"}, "this config is for trainer: expert"),
])
def test_bad_values_are_refused_with_what_is_allowed(over: dict[str, Any], message: str
                                                     ) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ExpertConfig.from_dict(tiny(**over))


def test_the_command_refuses_other_trainers_configs(capsys: pytest.CaptureFixture[str]
                                                    ) -> None:
    assert uno_main(["expert", "classic_selfplay"]) == 2
    assert "trainer: expert" in capsys.readouterr().err
    assert uno_main(["expert", "expert_tiny", "--set", "tau=-1"]) == 2
    assert "tau must be" in capsys.readouterr().err


def test_the_report_gets_a_row_per_iteration(tmp_path: Path) -> None:
    rate = {"win_rate": 0.5712, "ci_low": 0.5643, "ci_high": 0.578, "games": 20000}
    rows: list[dict[str, Any]] = [{"iteration": "prior", "network": rate, "search": None}]
    rows.append({"iteration": 0, "network": rate, "search": rate, "labels": 12345,
                 "labels_used": 12345, "generate_s": 61.2, "train_s": 30.0,
                 "evaluate_s": 12.9})
    write_reports(tmp_path, rows, "run")
    text = (tmp_path / "report.md").read_text()
    assert text == markdown(rows, "run")
    lines = [x for x in text.splitlines() if x.startswith("| ")]
    assert len(lines) == 3  # the header and a row each
    assert lines[2] == ("| 0 | 57.12% [56.43, 57.80] (20,000) | 57.12% [56.43, 57.80] (20,000)"
                        " | 12,345 | 12,345 | 61 | 30 | 13 |")
    assert lines[1].startswith("| prior | 57.12%") and "| - |" in lines[1]
