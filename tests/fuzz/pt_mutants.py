"""A driver over thunderc's confined TorchScript importer: damaged copies of a TorchScript file
(byte flips in any member, truncated and grown storages, junk and deep nesting in code and
pickles, oversized lengths), each compiled with `thunderc -o`, each required to end cleanly:
exit 0, 4 or 5, one `error:` line when it fails, no output folder left behind, never a signal.
The zip is rewritten around each damaged member (with correct CRCs), so the damage reaches the
checks and libtorch rather than the zip reader. tests/errors/test_torchscript_safety.py runs a
few hundred; a campaign runs more:

    python3 tests/fuzz/pt_mutants.py --count 1500 [--thunderc build/cli/thunderc] [FILE.pt]
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

CLEAN_EXITS = (0, 4, 5)


def members(path: Path) -> list[tuple[zipfile.ZipInfo, bytes]]:
    with zipfile.ZipFile(path) as archive:
        return [(info, archive.read(info)) for info in archive.infolist()]


def mutate(entries: list[tuple[zipfile.ZipInfo, bytes]], rng: random.Random) -> tuple[str, list]:
    """One damaged copy of `entries` and a description of the damage."""
    entries = [(info, bytearray(data)) for info, data in entries]
    index = rng.randrange(len(entries))
    info, data = entries[index]
    name = info.filename
    kind = rng.choice(["flip", "flip", "truncate", "grow", "junk", "nest", "length"])
    if kind == "flip" and data:
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    elif kind == "truncate":
        del data[rng.randrange(len(data) + 1):]
    elif kind == "grow":
        data += bytes(rng.randrange(1, 64))
    elif kind == "junk" and data:
        at = rng.randrange(len(data))
        data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 32)))
    elif kind == "nest":
        depth = rng.choice([300, 3000, 100000])
        opener = rng.choice([b"(", b"[", b"- ", b"not ", b"x ** "]) if name.endswith(".py") \
            else rng.choice([b"(", b"\x85"])
        at = rng.randrange(len(data) + 1)
        data[at:at] = opener * depth
    elif kind == "length" and len(data) > 8:
        # An opcode or header length field claiming far more than there is.
        at = rng.randrange(len(data) - 4)
        data[at:at + 4] = rng.choice([b"\xff\xff\xff\xff", b"\x00\x00\x00\x80", b"\xff\xff\xff\x7f"])
    entries[index] = (info, data)
    return f"{kind} {name}", entries


def write(path: Path, entries) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for info, data in entries:
            archive.writestr(info.filename, bytes(data))


def check_one(thunderc: str, source: Path, work: Path) -> tuple[int, str | None]:
    """Compiles `source` to work/out: the exit code and what went wrong, or None."""
    out = work / "out"
    shutil.rmtree(out, ignore_errors=True)
    try:
        result = subprocess.run([thunderc, str(source), "-o", str(out), "-q"],
                                capture_output=True, text=True, timeout=300, errors="replace")
    except subprocess.TimeoutExpired:
        return -1, "timed out after 300 s"
    code = result.returncode
    if code not in CLEAN_EXITS:
        return code, f"exit {code}: {result.stderr[-500:]}"
    if code == 0:
        return code, None
    lines = result.stderr.splitlines()
    if len(lines) != 1 or not lines[0].startswith("error: "):
        return code, f"exit {code} with {len(lines)} stderr lines: {result.stderr[:500]}"
    if out.exists():
        return code, f"exit {code} left {out} behind"
    return code, None


def campaign(thunderc: str, source: Path, count: int, seed: int) -> tuple[dict, list]:
    rng = random.Random(seed)
    entries = members(source)
    exits: dict[int, int] = {}
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for i in range(count):
            what, damaged = mutate(entries, rng)
            path = work / "damaged.pt"
            write(path, damaged)
            code, problem = check_one(thunderc, path, work)
            exits[code] = exits.get(code, 0) + 1
            if problem:
                keep = work.parent / f"thunderc_pt_mutant_{seed}_{i}.pt"
                shutil.copy(path, keep)
                failures.append(f"{i} ({what}): {problem} [kept as {keep}]")
    return exits, failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", nargs="?", help="a TorchScript file (default: the fuzz template)")
    parser.add_argument("--count", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--thunderc", default=os.environ.get("THUNDERC_BIN", "build/cli/thunderc"))
    opts = parser.parse_args()
    source = Path(opts.source or Path(__file__).resolve().parent / "data" / "template.pt")
    exits, failures = campaign(opts.thunderc, source, opts.count, opts.seed)
    print(f"{opts.count} damaged copies of {source.name}: exits {dict(sorted(exits.items()))}")
    for failure in failures:
        print("FAIL", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
