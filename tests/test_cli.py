"""The ``uno-env`` command table: explicit, lazy, loud."""

from __future__ import annotations

import subprocess
import sys
import types

import pytest

from uno_env import cli

UPPER = ("uno_env.agents", "uno_env.training", "uno_env.tournament")


def _loaded_after(code: str) -> set[str]:
    """The project packages above the env library that ``code`` leaves imported."""
    probe = (f"import sys\n{code}\n"
             f"print(sorted({{'.'.join(m.split('.')[:2]) for m in sys.modules}} & "
             f"{set(UPPER)!r}))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         timeout=120, check=True).stdout
    return set(eval(out.strip().splitlines()[-1]))


def test_uno_env_never_imports_the_layers_above_it() -> None:
    assert _loaded_after("import uno_env, uno_env.cli, uno_env.aec, uno_env.render") == set()
    # running a command of uno_env itself, and asking for help, load nothing above it either
    assert _loaded_after("from uno_env.cli import main\n"
                         "main(['simulate', '--games', '2', '--players', '2', "
                         "'--no-progress'])") == set()
    assert _loaded_after("from uno_env.cli import main\n"
                         "try:\n    main(['--help'])\nexcept SystemExit:\n    pass") == set()


def test_help_lists_every_command_without_loading_it(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        cli.main(["--help"])
    assert stop.value.code == 0
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps long lines
    for name, command in cli.COMMANDS.items():
        assert name in text and command.help in text


def test_every_command_loads_and_adds_its_own_parser() -> None:
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert set(sub.choices) == set(cli.COMMANDS)  # type: ignore[arg-type]
    for name in cli.COMMANDS:
        assert parser.parse_args([name, *_minimal(name)]).func


def _minimal(name: str) -> list[str]:
    return {"replay": ["x.jsonl"], "train": ["x.yaml"], "expert": ["x.yaml"], "evaluate": ["--agents", "a,b"],
            "check-agent": ["random"], "exploit": ["rule", "--budget", "1"]}.get(name, [])


def test_a_command_whose_module_fails_to_import_fails_loudly(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(cli.COMMANDS, "broken",
                        cli.Command("a command that cannot load", "no_such_module_xyz:add"))
    with pytest.raises(ImportError, match="uno-env broken: cannot load no_such_module_xyz:add"):
        cli.main(["broken"])
    monkeypatch.setitem(cli.COMMANDS, "broken",
                        cli.Command("a missing function", "uno_env.cli:no_such_function"))
    with pytest.raises(ImportError, match="no_such_function"):
        cli.main(["broken"])
    # the other commands are unaffected: they never import the broken one
    assert cli.main(["simulate", "--games", "1", "--players", "2", "--no-progress"]) == 0


def test_an_adder_must_add_the_command_it_is_listed_under(
        monkeypatch: pytest.MonkeyPatch) -> None:
    fake = types.ModuleType("fake_commands")
    fake.add = lambda sub: sub.add_parser("misnamed")  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "fake_commands", fake)
    monkeypatch.setitem(cli.COMMANDS, "other",
                        cli.Command("listed under the wrong name", "fake_commands:add"))
    with pytest.raises(RuntimeError, match="did not add a parser named 'other'"):
        cli.main(["other"])


def test_set_items_are_read_once_for_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    """``--set KEY=VALUE`` (train, expert, exploit, benchmark) goes through one parser."""
    from uno_env.cli import parse_settings
    from uno_env.training.cli import load_config

    assert parse_settings(["a=1", "ppo.lr=0.5", " b =[64, 64]", "c=off", "d=x=y"]) == [
        ("a", 1), ("ppo.lr", 0.5), ("b", [64, 64]), ("c", False), ("d", "x=y")]
    with pytest.raises(ValueError, match=r"^--set needs KEY=VALUE, got 'seed'$"):
        parse_settings(["seed"])
    with pytest.raises(ValueError, match=r"^--set needs KEY=VALUE with KEY one of a, b, got "
                                         r"'c=1'$"):
        parse_settings(["a=1", "c=1"], ("a", "b"))
    with pytest.raises(ValueError, match=r"^--set needs KEY=VALUE, got 'seed'$"):
        load_config("classic_selfplay", ["seed"])
    assert load_config("classic_selfplay", ["ppo.lr=0.5", "seed=3"])["seed"] == 3
    assert cli.main(["benchmark", "tiny", "--set", "nope=1"]) == 2
    assert "--set needs KEY=VALUE with KEY one of seed, games, " in capsys.readouterr().err
    assert cli.main(["exploit", "rule", "--budget", "1", "--set", "lr"]) == 2
    assert "--set needs KEY=VALUE, got 'lr'" in capsys.readouterr().err
