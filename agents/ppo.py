"""The PPO agent: a policy trained by ``uno_env.training.selfplay`` (``ppo:PATH``,
``ppo:VARIANT``)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import torch

from uno_env.agents.policy import PolicyNet, config_key, load_policy

CHECKPOINT_DIR = Path(__file__).resolve().parent / "checkpoints"

LEGACY_RULES = {"voluntary_draw": True, "catch_window": "turn"}
"""What the engine did before these options existed (G-draw, G-uno): a policy file
whose options lack a key was trained with this value."""


def shipped_checkpoint(variant: str, num_players: int = 2, tag: str = "") -> Path:
    """Where a shipped checkpoint lives: ``agents/checkpoints/<v>_<n>p[_<tag>].pt`` (the
    untagged file is the agent of the variant's default table; a tag, such as ``vd``, names
    one trained at another table)."""
    return CHECKPOINT_DIR / (f"{variant}_{num_players}p" + (f"_{tag}" if tag else "") + ".pt")


class PPOAgent:
    """Acts with a trained policy: the most likely legal action (``greedy``, the default) or
    one sampled from the masked softmax (``greedy=False``, seeded by ``seed``)."""

    def __init__(self, net: PolicyNet, info: dict[str, Any] | None = None,
                 greedy: bool = True, seed: int | None = None) -> None:
        self.net = net.eval()
        self.info = dict(info or {})
        self.greedy = bool(greedy)
        self._rng = np.random.default_rng(seed)

    def reset(self) -> None:
        """Nothing is carried between games (the policy has no memory)."""

    def seed(self, seed: int | None) -> None:
        """Reseed the sampling (only used with ``greedy=False``)."""
        self._rng = np.random.default_rng(seed)

    def get_state(self) -> dict[str, Any]:
        """The sampling RNG's state (plain data: a trainer's checkpoint stores it)."""
        return dict(self._rng.bit_generator.state)

    def set_state(self, state: dict[str, Any]) -> None:
        self._rng.bit_generator.state = state

    def action_probs(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The policy's probability of each action (zero where the mask is zero)."""
        with torch.no_grad():
            logits, _ = self.net(torch.as_tensor(observation, dtype=torch.float32)[None],
                                 torch.as_tensor(action_mask)[None])
            return torch.softmax(logits[0], dim=-1).numpy().astype(np.float64)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        mask = np.asarray(action_mask)
        if not mask.any():
            raise ValueError("action_mask has no legal action: the agent is not to act")
        with torch.no_grad():
            logits, _ = self.net(torch.as_tensor(observation, dtype=torch.float32)[None],
                                 torch.as_tensor(mask)[None])
        z = logits[0].numpy().astype(np.float64)
        if not self.greedy:
            # Gumbel-max: a sample from softmax(z); masked logits never win.
            z = z + self._rng.gumbel(size=z.shape)
        a = int(np.argmax(np.where(mask > 0, z, -np.inf)))
        return a


class PPOBatch:
    """A greedy :class:`PPOAgent` for many games at once: one forward for all rows, the
    same action ``PPOAgent.act`` chooses for each row.

    A batched matrix product sums in another order than a one-row product (logits differ by
    ~1e-5), so a row whose two best legal logits are within ``tie_margin`` (relative to the
    best) is decided again by ``PPOAgent.act`` on that row alone; elsewhere the argmax
    cannot differ. ``rechecked`` counts those rows."""

    def __init__(self, agent: PPOAgent, tie_margin: float = 1e-3) -> None:
        if not agent.greedy:
            raise ValueError("PPOBatch plays a greedy PPOAgent only (a sampling agent draws "
                             "from its own generator decision by decision)")
        self.agent = agent
        self.tie_margin = float(tie_margin)
        self.rechecked = 0

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The action of every row (``observations [K, D]``, ``masks [K, A]``)."""
        obs = np.asarray(observations, dtype=np.float32)
        mask = np.asarray(masks)
        if not mask.any(axis=1).all():
            raise ValueError("a row of the action masks has no legal action")
        with torch.no_grad():
            logits, _ = self.agent.net(torch.as_tensor(obs), torch.as_tensor(mask))
        z = np.where(mask > 0, logits.numpy().astype(np.float64), -np.inf)
        actions = np.argmax(z, axis=1)
        if z.shape[1] > 1:
            top2 = np.partition(z, -2, axis=1)[:, -2:]
            gap = top2[:, 1] - top2[:, 0]
            for r in np.flatnonzero(gap <= self.tie_margin * (1.0 + np.abs(top2[:, 1]))):
                actions[r] = self.agent.act(obs[r], mask[r])
                self.rechecked += 1
        out: np.ndarray = actions.astype(np.int64)
        return out


def load_ppo(spec_rest: str, variant: str = "classic", num_players: int = 2,
             seed: int | None = None, **options: Any) -> PPOAgent:
    """A :class:`PPOAgent` from a checkpoint path, or from a shipped name: ``VARIANT`` (the
    shipped agent of that variant trained for this table: :func:`pick_shipped`),
    ``VARIANT-Np`` (of N players), ``VARIANT[-Np]-TAG`` (one file, e.g. ``classic-vd``).

    ``options`` are the game's rule options (checked against the checkpoint: the env version,
    the observation and action layouts and the rules must be the same); ``greedy=False``
    samples instead of taking the argmax.
    """
    greedy = bool(options.pop("greedy", True))
    named = shipped_name(spec_rest)
    if named and named[1] is not None and named[1] != num_players \
            and not Path(spec_rest).is_file():
        raise ValueError(f"ppo:{spec_rest} is the {named[1]}-player {named[0]} agent; this "
                         f"table has {num_players} players (load it with num_players="
                         f"{named[1]}, or use ppo:{named[0]} for the table's player count)")
    path = checkpoint_path(spec_rest, num_players, options=options)
    net, payload = load_policy(path)
    want = config_key(variant, num_players, options)
    check_env_version(payload, path)
    trained = trained_rules(payload)
    # (the observation pieces were matched by load_policy: input_index)
    for k in ("variant", "num_players", "num_actions", "action_meanings"):
        if payload.get(k) != want[k]:
            shown = (f"{payload.get(k)!r} vs {want[k]!r}" if k != "action_meanings"
                     else "the action tables differ")
            raise ValueError(
                f"checkpoint {str(path)!r} was trained for {payload.get('variant')} with "
                f"{payload.get('num_players')} players and options {trained}; "
                f"it cannot play {want['variant']} with {num_players} players and options "
                f"{want['options']} ({k}: {shown})")
    differ = {k: v for k, v in trained.items() if want["options"].get(k) != v}
    if differ:
        given = ", ".join(f"{k}={want['options'].get(k)!r}" for k in differ)
        need = ", ".join(f"{k}={v!r}" for k, v in differ.items())
        raise ValueError(
            f"checkpoint {str(path)!r} was trained with other rules than this table's "
            f"({given}); it cannot play here. Play it at a table with {need} "
            f"(agents.trained_options('ppo:{spec_rest}') gives all its options; on the "
            f"command line: " + option_flags(differ)
            + ")")
    info = {k: payload[k] for k in ("variant", "num_players", "hidden")}
    info["options"] = trained
    info["path"] = str(path)
    info["env_version"] = payload.get("env_version")
    info.update(payload.get("info", {}))
    return PPOAgent(net, info, greedy=greedy, seed=seed)


def check_env_version(payload: dict[str, Any], path: str | Path) -> None:
    """Refuse a policy file recorded at another version of its env (the versions and what
    each changed: CHANGELOG.md). A file without ``env_version`` predates the records and is
    checked by its layout and rules alone."""
    from uno_env.variants import find_variant

    recorded = payload.get("env_version")
    if recorded is None:
        return
    v = find_variant(str(payload["variant"]))
    if int(recorded) != v.version:
        raise ValueError(
            f"checkpoint {str(path)!r} was trained on uno_{v.name}_v{recorded}; this library's "
            f"env is {v.env_name} (rules, observation, actions or rewards changed since: see "
            f"CHANGELOG.md). Retrain it here, or play it with the release that has "
            f"uno_{v.name}_v{recorded}")


def option_flags(options: dict[str, Any]) -> str:
    """Rule options as ``uno-env`` flags: ``--option voluntary_draw=true ...``."""
    return " ".join(f"--option {k}={str(v).lower() if isinstance(v, bool) else v}"
                    for k, v in options.items())


def trained_rules(payload: dict[str, Any]) -> dict[str, Any]:
    """The rule options a policy file was trained with (keys it predates: LEGACY_RULES)."""
    return {**LEGACY_RULES, **dict(payload.get("options") or {})}


def trained_options(spec_rest: str, num_players: int = 2) -> dict[str, Any]:
    """The rule options of the table a checkpoint (path or shipped name) was trained at:
    build its env with these to play it (``agents.load`` refuses any other table). For a
    variant with agents at several tables: the default table's when shipped, else the first
    file's (:func:`shipped_files`)."""
    _, payload = load_policy(checkpoint_path(spec_rest, num_players))
    return trained_rules(payload)


_NAME = re.compile(r"([a-z]+)(?:-(\d+)p)?(?:-([a-z0-9]+))?")


def shipped_name(spec_rest: str) -> tuple[str, int | None, str] | None:
    """``"classic-4p-vd"`` -> ``("classic", 4, "vd")``, ``"classic"`` -> ``("classic", None,
    "")``: variant, player count (None: the table's) and tag of a shipped name; ``None`` for
    anything else (a path)."""
    m = _NAME.fullmatch(spec_rest)
    if not m:
        return None
    return m.group(1), int(m.group(2)) if m.group(2) else None, m.group(3) or ""


def shipped_files(variant: str, num_players: int) -> list[tuple[str, Path]]:
    """``(ppo: name, path)`` of every checkpoint shipped for a variant and player count, the
    untagged file (the default table's agent) first."""
    out = []
    for p in sorted(CHECKPOINT_DIR.glob(f"{variant}_{num_players}p*.pt")):
        m = re.fullmatch(rf"{variant}_{num_players}p(?:_([a-z0-9]+))?\.pt", p.name)
        if m:
            tag = m.group(1) or ""
            name = variant + (f"-{num_players}p" if num_players != 2 else "")
            out.append((tag, name + (f"-{tag}" if tag else ""), p))
    out.sort(key=lambda x: (x[0] != "", x[0]))
    return [(name, path) for _, name, path in out]


def shipped_catalogue() -> str:
    """Every shipped agent as ``ppo:NAME (variant, N players, rules that differ from the
    defaults)``: what an error about a missing agent lists."""
    from uno_env import Game

    rows = []
    for p in sorted(CHECKPOINT_DIR.glob("*.pt")):
        m = re.fullmatch(r"([a-z]+)_(\d+)p(?:_([a-z0-9]+))?\.pt", p.name)
        if not m:
            continue
        variant, n = m.group(1), int(m.group(2))
        name = next((x for x, q in shipped_files(variant, n) if q == p), p.stem)
        _, payload = load_policy(p)
        defaults = Game(variant, n).options
        rules = {k: v for k, v in trained_rules(payload).items() if defaults.get(k) != v}
        table = ", ".join(f"{k}={v!r}" for k, v in rules.items()) or "default rules"
        rows.append(f"ppo:{name} ({variant}, {n} players, {table})")
    return "; ".join(rows) or "none"


def pick_shipped(variant: str, num_players: int, options: dict[str, Any]) -> Path:
    """The shipped checkpoint of ``variant`` at ``num_players`` trained for the table of
    these rule options. None fits: a ValueError listing what is shipped and for which
    tables."""
    from uno_env import Game

    table = Game(variant, num_players, **options).options
    files = shipped_files(variant, num_players)
    if not files:
        raise FileNotFoundError(
            f"no checkpoint is shipped for {variant} with {num_players} players (looked for "
            f"{shipped_checkpoint(variant, num_players).name} among the package's checkpoints); "
            f"shipped: {shipped_catalogue()}")
    for _, path in files:
        _, payload = load_policy(path)
        if all(table.get(k) == v for k, v in trained_rules(payload).items()):
            return path
    changed = {k: v for k, v in table.items() if Game(variant, num_players).options.get(k) != v}
    shown = ", ".join(f"{k}={v!r}" for k, v in changed.items()) or "default rules"
    raise ValueError(
        f"no shipped ppo agent for {variant} with {num_players} players at this table "
        f"({shown}); shipped: {shipped_catalogue()}. Build the env with a listed agent's "
        f"rules (agents.trained_options('ppo:NAME')), or train one for this table "
        f"(uno-env train --list)")


def checkpoint_path(spec_rest: str, num_players: int = 2,
                    options: dict[str, Any] | None = None) -> Path:
    """The file ``ppo:<spec_rest>`` names: a path, or a shipped name (:func:`shipped_name`).
    A bare ``VARIANT[-Np]`` with ``options`` is the agent trained for that table
    (:func:`pick_shipped`); without, the variant's first shipped file (:func:`shipped_files`)."""
    path = Path(spec_rest)
    if path.is_file():
        return path
    from uno_env import list_variants

    named = shipped_name(spec_rest)
    if not named or named[0] not in list_variants():
        raise FileNotFoundError(
            f"ppo:{spec_rest} is neither a checkpoint file nor a shipped name (VARIANT, "
            f"VARIANT-Np, VARIANT[-Np]-TAG); variants: {', '.join(list_variants())}; shipped: "
            f"{shipped_catalogue()}")
    variant, players, tag = named
    n = num_players if players is None else players
    if tag:
        path = shipped_checkpoint(variant, n, tag)
        if not path.is_file():
            raise FileNotFoundError(f"no checkpoint ppo:{spec_rest} is shipped (looked for "
                                    f"{path}); shipped: {shipped_catalogue()}")
        return path
    if options is not None:
        return pick_shipped(variant, n, options)
    files = shipped_files(variant, n)
    if not files:
        raise FileNotFoundError(
            f"no checkpoint is shipped for {variant} with {n} players (looked for "
            f"{shipped_checkpoint(variant, n).name} among the package's checkpoints); "
            f"shipped: {shipped_catalogue()}")
    return files[0][1]
