#!/usr/bin/env python3
"""Chorus beside upstream's own PyTorch inference on the real-size stand-ins (issue 39), one table.

    scripts/realsize/build.sh                       # once: the stand-ins and each engine's venv
    swift build -c release --product chorus
    python3 bench/realsize.py [--dir DIR] [--chorus BIN] [ENGINE ...] [--json out.jsonl]

For each engine (every bench/realsize/<engine>.py when none is named) this runs
`DIR/venv-<engine>/bin/python bench/realsize/<engine>.py --models DIR/models --chorus BIN`, one engine at a time
(a real-size model takes a few GB; two at once would measure each other). Each engine's script measures Chorus
and upstream in the same run and prints one JSON object per line, a row of the table: "engine", "variant",
"side" ("chorus" or "upstream") and the figures it measured (seconds, MB, ratios), plus "note" where needed.
Anything else it prints goes to standard error. An engine that fails or lacks its venv or models is reported
by name in the table as not measured, never left out.

DIR is the stand-ins' folder (scripts/realsize/build.sh's, default
${CHORUS_REALSIZE:-${XDG_CACHE_HOME:-~/.cache}/chorus/realsize}). Standard library only.
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINES = ROOT / "bench" / "realsize"


def default_dir():
    if "CHORUS_REALSIZE" in os.environ:
        return Path(os.environ["CHORUS_REALSIZE"])
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return Path(cache) / "chorus" / "realsize"


def machine():
    model = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"{model}, {os.cpu_count()} cores, {platform.system()}, load {load:.2f} at the start"


def run_engine(engine, folder, chorus, extra):
    python = folder / f"venv-{engine}" / "bin" / "python"
    if not python.exists():
        return [], f"no venv at {python}: run scripts/realsize/build.sh {folder}/ {engine}"
    models = folder / "models"
    if not models.is_dir():
        return [], f"no stand-ins in {models}: run scripts/realsize/build.sh {folder}/ {engine}"
    if not (models / f".realsize-{engine}").exists():
        # Stand-ins made by the engine's build.py directly carry no stamp; the engine's bench names any file it lacks.
        print(f"realsize: {models} has no .realsize-{engine} stamp (not made by build.sh); running anyway", file=sys.stderr)
    command = [str(python), str(ENGINES / f"{engine}.py"), "--models", str(models), "--chorus", str(chorus), *extra]
    print(f"realsize: {' '.join(command)}", file=sys.stderr)
    started = time.monotonic()
    process = subprocess.run(command, stdout=subprocess.PIPE, text=True)
    rows = []
    for line in process.stdout.splitlines():
        line = line.strip()
        if line.startswith("{"):
            rows.append(json.loads(line))
        elif line:
            print(line, file=sys.stderr)
    took = time.monotonic() - started
    if process.returncode != 0:
        return rows, f"bench/realsize/{engine}.py exited with {process.returncode} after {took:.0f} s"
    return rows, None


def table(rows):
    keys = ["engine", "variant", "side"]
    for row in rows:
        for key in row:
            if key not in keys and key != "note":
                keys.append(key)
    keys.append("note")
    lines = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    for row in rows:
        cells = []
        for key in keys:
            value = row.get(key, "")
            cells.append(f"{value:.3g}" if isinstance(value, float) else str(value))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("engines", nargs="*", help="bench/realsize/<engine>.py to run (all when none is named)")
    parser.add_argument("--dir", type=Path, default=default_dir(), help="the stand-ins' folder (build.sh's DIR)")
    parser.add_argument("--chorus", type=Path, default=ROOT / ".build" / "release" / "chorus")
    parser.add_argument("--json", type=Path, help="also write every row here, one JSON object per line")
    arguments, extra = parser.parse_known_args()
    if not arguments.chorus.exists():
        sys.exit(f"no chorus binary at {arguments.chorus}: swift build -c release --product chorus, or --chorus BIN")
    engines = arguments.engines or sorted(p.stem for p in ENGINES.glob("*.py") if not p.stem.startswith("_"))
    unknown = [engine for engine in engines if not (ENGINES / f"{engine}.py").exists()]
    if unknown:
        sys.exit(f"no bench for {', '.join(unknown)} (have: {', '.join(sorted(p.stem for p in ENGINES.glob('*.py') if not p.stem.startswith('_')))})")
    print(f"machine: {machine()}")
    print(f"command: {' '.join(sys.argv)}")
    rows, failures = [], []
    for engine in engines:
        found, failure = run_engine(engine, arguments.dir, arguments.chorus, extra)
        rows += found
        if failure:
            failures.append((engine, failure))
    print()
    print(table(rows) if rows else "(no rows)")
    for engine, failure in failures:
        print(f"not measured: {engine}: {failure}")
    if arguments.json:
        with open(arguments.json, "w") as out:
            for row in rows:
                out.write(json.dumps(row) + "\n")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
