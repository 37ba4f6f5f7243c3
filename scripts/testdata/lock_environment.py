#!/usr/bin/env python3
"""Writes the lock file of a generator's environment: every distribution `pip freeze` lists in the environment of
the Python running this script, at its exact version, with the sha256 of the file pip installs it from on this
platform (CPython 3.11, Linux x86_64), so the environment can be made again and checked:

    python3.11 -m venv VENV && VENV/bin/pip install --no-deps --require-hashes -r LOCK

The hashes are the ones pip itself resolves (`pip install --dry-run --no-deps --ignore-installed --report`: the
index's hash for a downloaded file, the file's own for one from a --find-links folder, as torch's CPU build),
so nothing is installed and no hash is computed here. `pip freeze` leaves out pip, setuptools and wheel, as the
lock does.

Usage (with the environment's own Python):

    VENV/bin/python scripts/testdata/lock_environment.py OUT.lock "first line of the header" ["more lines" ...]

The header lines (what ran in the environment, how it was made, anything changed after installing) go on top as
comments; the hashed requirements follow, sorted by name.
"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path


def frozen() -> list[str]:
    """The environment's distributions as `name==version`, refusing anything pip cannot fetch by version."""
    lines = subprocess.run([sys.executable, "-m", "pip", "freeze"], check=True, capture_output=True,
                           text=True).stdout.splitlines()
    pinned = [line for line in lines if line and not line.startswith("#")]
    unpinned = [line for line in pinned if "==" not in line]
    if unpinned:
        sys.exit(f"these are installed from a path or URL, not by version, so no lock can pin them: {unpinned}; "
                 "install them from the index or a wheel first")
    return pinned


def hashes(requirements: list[str]) -> dict[str, tuple[str, str]]:
    """Each requirement's (name, version) -> sha256 of the file pip resolves for it, keyed by its lower-case name."""
    with tempfile.TemporaryDirectory() as folder:
        listed = Path(folder, "requirements.txt")
        listed.write_text("\n".join(requirements) + "\n")
        report = Path(folder, "report.json")
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--dry-run", "--no-deps",
                        "--ignore-installed", "--report", str(report), "-r", str(listed)], check=True)
        resolved = json.loads(report.read_text())["install"]
    found = {}
    for item in resolved:
        name, version = item["metadata"]["name"], item["metadata"]["version"]
        digest = item["download_info"].get("archive_info", {}).get("hashes", {}).get("sha256")
        if digest is None:
            sys.exit(f"pip resolved {name} {version} to {item['download_info']['url']} without a sha256; "
                     "lock it by hand from a wheel")
        found[name.lower().replace("_", "-")] = (version, digest)
    return found


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit("usage: VENV/bin/python lock_environment.py OUT.lock 'header line' ['header line' ...]")
    out, header = Path(sys.argv[1]), sys.argv[2:]
    requirements = frozen()
    resolved = hashes(requirements)
    lines = [f"# {line}" for line in header]
    lines.append(f"# Python {sys.version.split()[0]}; written by scripts/testdata/lock_environment.py "
                 "(pip install --no-deps --require-hashes -r this file makes the environment again).")
    for requirement in sorted(requirements, key=str.lower):
        name, version = requirement.split("==")
        key = name.lower().replace("_", "-")
        if key not in resolved or resolved[key][0] != version:
            sys.exit(f"pip resolved {key} to {resolved.get(key)}, not {version}")
        lines.append(f"{name}=={version} \\\n    --hash=sha256:{resolved[key][1]}")
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {out}: {len(requirements)} distributions")


if __name__ == "__main__":
    main()
