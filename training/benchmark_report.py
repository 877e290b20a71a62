"""The Markdown page of a benchmark result (``uno-env benchmark`` writes it beside the
JSON): one section per table, a win-rate matrix (row agent against column agent) and the
exploitability column, with every figure's games and interval and every agent's version."""

from __future__ import annotations

from typing import Any

from uno_env.stats import Z95, ratio_interval

ROLES = ("random", "rule", "ppo", "search")


def _pct(r: float, lo: float, hi: float) -> str:
    return f"{100 * r:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"


def _find(t: dict[str, Any], row: str, col: str) -> tuple[dict[str, Any], int] | None:
    """The cell and result index of ``row`` against ``col`` (2 players: the pair's, either
    order; more: ``row`` in one seat, ``col`` in every other)."""
    for c in t["pairs"]:
        for i, (x, y) in enumerate(((c["a"], c["b"]), (c["b"], c["a"]))):
            if (x, y) == (row, col) and (i == 0 or t["players"] == 2):
                return c, i
    return None


def _win(t: dict[str, Any], row: str, col: str) -> str:
    found = _find(t, row, col)
    if found is None:
        return "-"
    c, i = found
    r = c["agents"][i]
    return f"{_pct(r['win_rate'], r['ci_low'], r['ci_high'])} ({_games(c)})"


def _games(c: dict[str, Any]) -> str:
    """A cell's games, and how many of them were truncated at the cap when any were (a
    cell measured before they were counted has no ``truncated``)."""
    cut = c.get("truncated")
    return f"{c['games']:,}" + (f"; {cut:,} truncated" if cut else "")


def _agent_line(role: str, a: dict[str, Any]) -> str:
    text = f"- {role}: `{a['spec']}`, {a['code']}"
    if "file" in a:
        text += (f", `{a['file']}` (sha256 {a['sha256']}, trained on env version "
                 f"{a['env_version'] if a['env_version'] is not None else 'not recorded'})")
    return text


def table_section(t: dict[str, Any], budget: int) -> list[str]:
    budget = int(t.get("exploit_budget", budget))
    opts = ", ".join(f"{k}={v}" for k, v in sorted(t["options"].items())) or "default rules"
    lines = [f"## {t['variant']}, {t['players']} players", "",
             f"`{t['env']}`, {opts}; "
             + ("each deal played twice, seats swapped" if t["players"] == 2 else
                f"the row agent in one seat, the column agent in the other "
                f"{t['players'] - 1}, each deal played once per seat")
             + f"; {t['games']:,} games per pair, {t['search_games']:,} with the search agent"
             + (f" ({t['edge_games']:,} for the search agent"
                + (" in one seat" if t["players"] > 2 else "")
                + " against `rule`)" if t.get("edge_games", t["search_games"])
                != t["search_games"] else "") + ".", ""]
    roles = [r for r in ROLES if r in t["agents"]]
    lines += [_agent_line(r, t["agents"][r]) for r in roles]
    lines += [f"- {r}: none for this table ({t['missing'][r].split(';')[0]})"
              for r in ROLES if r in t["missing"]]
    exploit = {e["agent"]: e for e in t["exploit"]}
    head = ["win rate of the row agent"] + [f"vs {r}" for r in roles] + \
        ([f"exploited by a learner ({budget:,} decisions)"] if budget else [])
    lines += ["", "| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for row in roles:
        cells = [f"**{row}**"] + [_win(t, row, col) if col != row else "" for col in roles]
        e = exploit.get(row)
        if budget:
            cells.append(f"{_pct(e['win_rate'], e['ci_low'], e['ci_high'])} ({_games(e)})"
                         if e else "-")
        lines.append("| " + " | ".join(cells) + " |")
    share = capture_line(t)
    return lines + (["", share] if share else []) + [""]


def _edge(t: dict[str, Any], row: str) -> tuple[float, float, int] | None:
    """``row``'s edge over ``rule`` (win rate against it minus 1/players), its binomial
    standard error and the games (None when not measured)."""
    found = _find(t, row, "rule")
    if found is None:
        return None
    c, i = found
    r = c["agents"][i]  # the standard error from the Wilson interval (no 0 at 0% or 100%)
    return (float(r["win_rate"]) - 1.0 / int(t["players"]),
            (float(r["ci_high"]) - float(r["ci_low"])) / (2 * Z95), int(c["games"]))


def _strong_edge(t: dict[str, Any]) -> tuple[float, float, int] | None:
    """The network-playout search's edge over ``rule`` (the table's ``edge_search`` cell)."""
    c = t.get("edge_search")
    if c is None:
        return None
    return (float(c["win_rate"]) - 1.0 / int(t["players"]),
            (float(c["ci_high"]) - float(c["ci_low"])) / (2 * Z95), int(c["games"]))


def edge_share(t: dict[str, Any]) -> dict[str, Any] | None:
    """How much of the search's edge over ``rule`` the PPO agent has: the ratio of the two
    edges and its 95% Fieller interval (``low``/``high`` None unless the search's edge is
    positive beyond its 95% interval: a share of no edge means nothing); None when either was
    not measured. The search is the table's network-playout search (``edge_search`` cell)
    when measured, else the benchmark's search agent; ``search_spec`` names it."""
    ppo = _edge(t, "ppo")
    strong = _strong_edge(t)
    search = strong if strong is not None else _edge(t, "search")
    if ppo is None or search is None:
        return None
    spec = t["edge_search"]["spec"] if strong is not None else t["agents"]["search"]["spec"]
    interval = ratio_interval(ppo[0], ppo[1], search[0], search[1]) \
        if search[0] > Z95 * search[1] else None
    return {"ppo_edge": ppo[0], "ppo_se": ppo[1], "ppo_games": ppo[2],
            "search_edge": search[0], "search_se": search[1], "search_games": search[2],
            "search_spec": spec, "strong": strong is not None,
            "share": ppo[0] / search[0] if search[0] else None,
            "low": interval[0] if interval else None,
            "high": interval[1] if interval else None}


def _pts(edge: float, se: float) -> str:
    return f"{100 * edge:+.1f} ± {100 * Z95 * se:.1f} points"


def capture_line(t: dict[str, Any]) -> str | None:
    """The page's sentence on the PPO agent's share of the search's edge over rule (naming
    the search measured)."""
    s = edge_share(t)
    if s is None:
        return None
    seat = " in one seat" if t["players"] > 2 else ""
    how = (f"the network-playout search `{s['search_spec']}` "
           f"({t['edge_search']['samples']} determinizations a decision, the PPO agent's "
           f"network as prior and playout policy, batched on the compiled engine)"
           if s["strong"] else f"the search agent `{s['search_spec']}`")
    text = (f"Edges over `rule`{seat} (win rate against it minus 1/{t['players']}, 95%): "
            f"PPO {_pts(s['ppo_edge'], s['ppo_se'])} ({s['ppo_games']:,} games), {how} "
            f"{_pts(s['search_edge'], s['search_se'])} ({s['search_games']:,} games). ")
    if s["low"] is None:
        return text + ("The search's edge is not positive beyond its interval at these "
                       "games, so the PPO agent's share of it (target: 75%, lower bound "
                       "above 50%) cannot be stated" + (
                           f" (point estimate {100 * s['share']:.0f}%, no interval)."
                           if s["search_edge"] > 0 else "."))
    met = s["share"] >= 0.75 and s["low"] > 0.5
    return text + (f"The PPO agent captures **{100 * s['share']:.0f}%** [{100 * s['low']:.0f}%, "
                   f"{100 * s['high']:.0f}%] (95% Fieller interval) of that search's "
                   f"edge; target 75% with the lower bound above 50%: "
                   f"{'met' if met else 'not met'}.")


def timing(result: dict[str, Any]) -> str:
    """How long the table took and how busy the machine was (the seconds depend on it)."""
    cells, reused = result["cells_seconds"] / 60, result.get("reused_seconds", 0.0) / 60
    text = f"The cells took {cells:.1f} minutes to compute"
    if reused:
        text += (f" ({reused:.1f} of them by an earlier run of the same cells, reused; this "
                 f"run computed the other {cells - reused:.1f} in "
                 f"{result['run_seconds'] / 60:.1f} minutes of wall time)")
    else:
        text += f" ({result['run_seconds'] / 60:.1f} minutes of wall time)"
    machine = result.get("machine", {})
    if machine.get("load_start"):
        text += (f", on one core of a {machine['cpus']}-CPU machine shared with other work: "
                 f"load average (1, 5, 15 minutes) {_loads(machine['load_start'])} at the "
                 f"start, {_loads(machine['load_end'])} at the end, highest after a table "
                 f"{_loads(machine['load_max'])}")
    return text + "."


def _loads(values: list[float]) -> str:
    return " / ".join(f"{v:.2f}" for v in values)


def uncounted_note(result: dict[str, Any]) -> str:
    """The page's sentence on exploitability cells from a run before ``exploit`` counted
    truncated games (``truncated`` absent or null in the JSON): their games may hold some."""
    old = [f"{t['variant']} {t['players']}p {e['agent']}" for t in result["tables"]
           for e in t["exploit"] if e.get("truncated") is None]
    if not old:
        return ""
    return (f" The exploitability cells {', '.join(old)} were measured before truncated "
            f"games were counted (`truncated` null in the JSON): their games may hold some, "
            f"counted as not won.")


def rerun_note(result: dict[str, Any]) -> str:
    """The page's sentence on exploitability cells measured again alone after the run
    (``rerun``: when, how and how long), so a reader knows they are not of the run above."""
    again = [f"{t['variant']} {t['players']}p {e['agent']} ({e['rerun']})"
             for t in result["tables"] for e in t["exploit"] if e.get("rerun")]
    if not again:
        return ""
    return (f" These exploitability cells were measured again alone after that run, with the "
            f"same settings, to count their truncated games: {'; '.join(again)}.")


def markdown(result: dict[str, Any]) -> str:
    command = " ".join(["uno-env benchmark", result["config"],
                        *(f"--set {x}" for x in result["overrides"])])
    done = len(result["tables"])
    lines = [
        f"# {result['title']}", "",
        "<!-- Generated by `uno-env benchmark`; do not edit: rerun the command. -->", "",
        *([f"**Partial: {done} of the config's {result['tables_planned']} tables** (the run "
           f"stopped or is still going; rerun the command to resume).", ""]
          if done < result["tables_planned"] else []),
        f"Generated by `{command}` on {result['date']} "
        f"(uno-env {result['uno_env']}, commit {result['commit'] or 'unknown'}), seed "
        f"{result['seed']}; the JSON with every figure is beside this page's source. "
        + timing(result), "",
        f"Each cell is the row agent's win rate against the column agent with its 95% Wilson "
        f"interval and, in brackets, the games: {result['games']:,} per pair on the "
        f"compiled batch engine (`random`, `rule`, `ppo:`), fewer with the search agent "
        f"(`{result['search']}`, Python loop; each table says how many); games stop after "
        f"{result['max_steps']:,} decisions (no winner, so not a win; a cell says how many "
        f"of its games were so truncated when any were). "
        + (f"The last column is the approximate exploitability: a fresh MaskablePPO learner "
           f"trained for the budget in the column's heading (learner decisions) against the "
           f"agent alone "
           f"(`uno-env exploit`), then its win rate against it over at least "
           f"{result['exploit_games']:,} games (whole batches of them; an agent nobody can "
           f"exploit holds it to 1/players). " if result["exploit_budget"] else
           "Exploitability was not measured in this run (`exploit_budget: 0`). ")
        + "A table without a PPO agent trained for it says so."
        + uncounted_note(result) + rerun_note(result), ""]
    for t in result["tables"]:
        lines += table_section(t, int(result["exploit_budget"]))
    return "\n".join(lines).rstrip() + "\n"
