"""``make mutation``: break each rule of the pure modules, one mutant at a time, and count what the tests notice.

For every module of ``modules.MODULES`` (or those named with ``--module``): mutmut's mutants (inside functions)
against the tests that reach the module, then the hand-made mutants of ``mutants.MUTANTS`` (module-level rules)
against the same tests. Everything runs in a copy of the tree in a temporary folder, so the checkout is never
changed and a half-run leaves nothing behind. Prints a score per module and every survivor with its change.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.mutation.modules import MODULES
from benchmarks.mutation.mutants import MUTANTS, Mutant

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
# One hand-made mutant's test run may take this long; more means the mutant hangs the tests (killed).
HAND_MADE_TIMEOUT = 600
# mutmut's statuses that count as the tests noticing the mutant.
NOTICED = {"killed", "timeout", "caught by type check", "segfault"}
# Statuses that say nothing of the tests (mutmut did not run the mutant): left out of the score.
UNSCORED = {"skipped", "not checked", "check was interrupted by user"}
PYTEST_ARGS = ["-p", "no:randomly", "-p", "no:cacheprovider", "-q"]


@dataclass
class Score:
    module: str
    mutmut: dict[str, str] = field(default_factory=dict)  # mutant name -> status
    diffs: dict[str, str] = field(default_factory=dict)  # survivor name -> its change
    hand_made: list[tuple[Mutant, str]] = field(default_factory=list)  # (mutant, killed | survived | stale)
    seconds: float = 0.0

    def counts(self) -> tuple[int, int, int, int]:
        scored = [status for status in self.mutmut.values() if status not in UNSCORED]
        hand = [status for _mutant, status in self.hand_made if status != "stale"]
        return (
            sum(status in NOTICED for status in scored),
            len(scored),
            sum(status == "killed" for status in hand),
            len(hand),
        )


def percent(killed: int, total: int) -> str:
    return f"{100 * killed / total:.0f} %" if total else "-"


def copy_tree(work: Path) -> None:
    """The files git knows of or would add (new tests included), without what it ignores (.venv, caches)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if not source.is_file():
            continue  # deleted in the checkout but still in git's index
        target = work / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)


def toml_list(values) -> str:
    return "[" + ", ".join(json.dumps(str(value)) for value in values) + "]"


def mutmut(work: Path, module: str, *args: str) -> None:
    ran = subprocess.run([str(BIN / "mutmut"), *args], cwd=work, capture_output=True, text=True)
    if ran.returncode != 0:
        print(ran.stdout[-3000:], ran.stderr[-3000:], sep="\n", file=sys.stderr)
        raise SystemExit(f"mutmut could not run {module} (exit {ran.returncode})")


def mutmut_statuses(work: Path) -> dict[str, str]:
    """Every mutant mutmut wrote, with its status ("not checked" for those not run)."""
    listed = subprocess.run(
        [str(BIN / "mutmut"), "results", "--all", "true"], cwd=work, capture_output=True, text=True, check=True
    ).stdout
    statuses = {}
    for line in listed.splitlines():
        name, _sep, status = line.strip().rpartition(": ")
        if name:
            statuses[name] = status
    return statuses


def _natural(name: str) -> tuple[str, int]:
    """x_f__mutmut_10 after x_f__mutmut_9: the sample spreads over each function in mutmut's own order."""
    function, _sep, number = name.rpartition("_")
    return function, int(number) if number.isdigit() else 0


def run_mutmut(work: Path, module: str, tests: tuple[str, ...], score: Score, children: int, sample: int) -> None:
    top = module.split("/")[0]
    others = sorted(path.name for path in work.iterdir() if path.name not in (top, "mutants", "pyproject.toml"))
    pyproject = work / "pyproject.toml"
    original = pyproject.read_text()
    pyproject.write_text(
        original
        + "\n[tool.mutmut]\n"
        + f"source_paths = {toml_list([top])}\n"
        + f"only_mutate = {toml_list([module])}\n"
        + f"also_copy = {toml_list(others)}\n"
        + f"pytest_add_cli_args = {toml_list(PYTEST_ARGS)}\n"
        + f"pytest_add_cli_args_test_selection = {toml_list(tests)}\n"
        + "use_git_change_detection = false\n"
    )
    shutil.rmtree(work / "mutants", ignore_errors=True)
    try:
        if sample:
            # The first mutant of each function, which makes mutmut write every mutant and map the tests; then an
            # even sample of the rest. A module holds hundreds: all of them would take a quarter of an hour.
            mutmut(work, module, "run", "--max-children", str(children), "*__mutmut_1")
            names = sorted(mutmut_statuses(work), key=_natural)
            step = max(1, len(names) // sample)
            mutmut(work, module, "run", "--max-children", str(children), *names[step // 2 :: step])
        else:
            mutmut(work, module, "run", "--max-children", str(children))
        score.mutmut.update(mutmut_statuses(work))
        for name, status in score.mutmut.items():
            if status not in NOTICED | UNSCORED:
                shown = subprocess.run(
                    [str(BIN / "mutmut"), "show", name], cwd=work, capture_output=True, text=True
                ).stdout
                score.diffs[name] = "\n".join(
                    line for line in shown.splitlines() if line[:1] in "+-" and not line.startswith(("+++", "---"))
                )
    finally:
        pyproject.write_text(original)
        shutil.rmtree(work / "mutants", ignore_errors=True)


def run_hand_made(work: Path, module: str, tests: tuple[str, ...], score: Score) -> None:
    path = work / module
    for mutant in (m for m in MUTANTS if m.module == module):
        original = path.read_text()
        if original.count(mutant.original) != 1:
            score.hand_made.append((mutant, "stale"))  # the module changed: the mutant needs writing anew
            continue
        path.write_text(original.replace(mutant.original, mutant.replacement))
        try:
            ran = subprocess.run(
                [sys.executable, "-m", "pytest", *PYTEST_ARGS, "-x", *(mutant.tests or tests)],
                cwd=work,
                capture_output=True,
                timeout=HAND_MADE_TIMEOUT,
            )
            status = "survived" if ran.returncode == 0 else "killed"
        except subprocess.TimeoutExpired:
            status = "killed"
        finally:
            path.write_text(original)
        score.hand_made.append((mutant, status))


def report(score: Score) -> None:
    killed, total, hand_killed, hand_total = score.counts()
    print(
        f"{score.module}: mutmut {killed}/{total} ({percent(killed, total)}), "
        f"hand-made {hand_killed}/{hand_total} ({percent(hand_killed, hand_total)}), "
        f"together {killed + hand_killed}/{total + hand_total} ({percent(killed + hand_killed, total + hand_total)}) "
        f"in {score.seconds:.0f} s",
        flush=True,
    )
    for name, status in sorted(score.mutmut.items()):
        if status not in NOTICED | UNSCORED:
            print(f"    survived ({status}): {name}")
            for line in score.diffs.get(name, "").splitlines():
                print(f"        {line}")
    for mutant, status in score.hand_made:
        if status != "killed":
            print(f"    hand-made {status}: {mutant.why}: {mutant.original!r} -> {mutant.replacement!r}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.mutation", description=__doc__)
    parser.add_argument("--module", action="append", default=[], help="a module path, or a part of one (repeatable)")
    parser.add_argument("--hand-made-only", action="store_true", help="only the hand-made (module-level) mutants")
    parser.add_argument("--children", type=int, default=2, help="mutants run at once (default 2)")
    parser.add_argument(
        "--sample",
        type=int,
        default=60,
        help="mutmut's mutants run per module, spread evenly, besides the first of each function (0: all of them)",
    )
    parser.add_argument("--json", type=Path, help="also write the scores to this file")
    args = parser.parse_args(argv)
    modules = [m for m in MODULES if not args.module or any(part in m for part in args.module)]
    if not modules:
        parser.error(f"no module matches {args.module}; known: {', '.join(MODULES)}")
    unknown = {m.module for m in MUTANTS} - set(MODULES)
    if unknown:
        parser.error(f"hand-made mutants of modules not listed in modules.py: {sorted(unknown)}")
    scores = []
    with tempfile.TemporaryDirectory(prefix="htrbrowser-mutation-") as folder:
        work = Path(folder)
        copy_tree(work)
        for module in modules:
            score = Score(module)
            started = time.monotonic()
            if not args.hand_made_only:
                run_mutmut(work, module, MODULES[module], score, args.children, args.sample)
            run_hand_made(work, module, MODULES[module], score)
            score.seconds = time.monotonic() - started
            report(score)
            scores.append(score)
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    s.module: dict(
                        zip(("mutmut_killed", "mutmut_total", "hand_killed", "hand_total"), s.counts(), strict=True)
                    )
                    for s in scores
                },
                indent=2,
            )
        )
    stale = [m for s in scores for m, status in s.hand_made if status == "stale"]
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
