"""TorchScript input is untrusted (docs/THREAT_MODEL.md): compiling a `.pt` reads the file and
writes `-o`, nothing else, whatever the file holds.

- Ops that act outside the model (writing and reading files, printing, the global random
  state), in forward or in a class's __setstate__ (which the loader runs), are refused with
  exit 5 naming the op and its Python source line; canary files never appear, an existing file
  is never overwritten, nothing is printed, no output folder is written.
- Damaged files (storages shorter than their pickle says, a debug_pkl that claims a 4 GiB
  string, deep pickles, deep nesting in code) are refused with exit 4 and one error line before
  libtorch reads them, quickly and without large allocations.
- A crash inside libtorch (a parser stack overflow) is the child's: exit 4, one line.
- A few hundred damaged copies of a real file through the confined importer all end cleanly.

The checks before libtorch run in every thunderc; the tests that need the TorchScript importer
skip when this thunderc has none (the sanitizer build)."""
import os
import re
import subprocess
import sys
import time
import warnings
import zipfile
from pathlib import Path

import pytest
import torch

THUNDERC = os.environ.get("THUNDERC_BIN", "build/cli/thunderc")
EXIT_INVALID, EXIT_UNSUPPORTED = 4, 5
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "fuzz"))
import pt_mutants  # noqa: E402


def run(*args):
    return subprocess.run([THUNDERC, *map(str, args)], capture_output=True, text=True,
                          timeout=600)


def one_error_line(result, code, pattern):
    assert result.returncode == code, (result.returncode, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert re.search(pattern, lines[0]), lines[0]
    return lines[0]


class Small(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 3)

    def forward(self, x):
        return torch.relu(self.fc(x))


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    path = tmp_path_factory.mktemp("traced") / "small.pt"
    torch.manual_seed(0)
    torch.jit.trace(Small().eval(), torch.randn(2, 4)).save(str(path))
    return path


@pytest.fixture(scope="module")
def importer(traced):
    result = run(traced, "--emit=report")
    if result.returncode != 0 and "built without it" in result.stderr:
        pytest.skip("this thunderc has no TorchScript importer")
    assert result.returncode == 0, result.stderr
    return True


# ---- ops that act outside the model ----

class Save(torch.nn.Module):
    def __init__(self, path: str):
        super().__init__()
        self.path = path

    def forward(self, x):
        torch.ops.aten.save(x, self.path)
        return x + 1


class ReadFile(torch.nn.Module):
    def forward(self, x):
        data = torch.from_file("/etc/passwd", size=16, dtype=torch.uint8)
        return x + data.float().sum()


class MapShared(torch.nn.Module):
    def __init__(self, path: str):
        super().__init__()
        self.path = path

    def forward(self, x):
        data = torch.from_file(self.path, shared=True, size=16, dtype=torch.uint8)
        return x + data.float().sum()


class Print(torch.nn.Module):
    def forward(self, x):
        if x.dim() > 5:  # never taken: refused all the same, before anything runs
            print("THUNDERC-CANARY-PRINT")
        return x + 1


class Seed(torch.nn.Module):
    def forward(self, x):
        torch.manual_seed(3)
        return x + torch.rand(2)


class SetStatePrint(torch.nn.Module):
    def __init__(self, path: str):
        super().__init__()
        self.path = path

    def forward(self, x):
        return x + 1

    @torch.jit.export
    def __getstate__(self):
        return (self.path, self.training)

    @torch.jit.export
    def __setstate__(self, state: tuple[str, bool]):
        print("THUNDERC-CANARY-SETSTATE")
        self.path = state[0]
        self.training = state[1]


class SetStateSave(SetStatePrint):
    @torch.jit.export
    def __setstate__(self, state: tuple[str, bool]):
        torch.ops.aten.save(torch.ones(1), state[0])
        self.path = state[0]
        self.training = state[1]


CASES = [
    # (module, takes a canary path, where, op, why)
    (Save, True, "forward", "aten::save", "it writes a file"),
    (ReadFile, False, "forward", "aten::from_file", "it reads a file"),
    (MapShared, True, "forward", "aten::from_file", "it reads a file"),
    (Print, False, "forward", "prim::Print", "it prints"),
    (Seed, False, "forward", "aten::manual_seed", "it changes the global random state"),
    (SetStatePrint, True, r"__torch__\.\S*SetStatePrint\.__setstate__", "prim::Print",
     "it prints"),
    (SetStateSave, True, r"__torch__\.\S*SetStateSave\.__setstate__", "aten::save",
     "it writes a file"),
]


@pytest.mark.parametrize("cls,takes_path,where,op,why", CASES,
                         ids=[case[0].__name__ for case in CASES])
def test_side_effect_ops_are_refused_before_anything_runs(importer, tmp_path, cls, takes_path,
                                                          where, op, why):
    canary = tmp_path / "canary"
    existing = tmp_path / "existing"
    existing.write_text("the user's file")
    module = torch.jit.script(cls(str(canary)) if takes_path else cls())
    source = tmp_path / f"{cls.__name__}.pt"
    module.save(str(source))
    assert not canary.exists()
    out = tmp_path / "out"
    for args in (["--emit=report"], ["-o", out], ["--emit=ir"]):
        result = run(source, "--input-shape", "x:float32[2]", *args)
        line = one_error_line(result, EXIT_UNSUPPORTED,
                              rf"{where} uses {re.escape(op)} at File .*"
                              rf"test_torchscript_safety\.py\", line \d+.*which thunderc refuses: "
                              rf"{why}")
        assert "CANARY" not in result.stdout + result.stderr
        assert "root:" not in result.stdout + result.stderr
    assert not canary.exists()
    assert not out.exists()
    assert existing.read_text() == "the user's file"
    del line


def test_a_save_over_an_existing_file_leaves_it_alone(importer, tmp_path):
    victim = tmp_path / "precious.txt"
    victim.write_text("keep me")
    source = tmp_path / "save.pt"
    torch.jit.script(Save(str(victim))).save(str(source))
    one_error_line(run(source, "--input-shape", "x:float32[2]", "-o", tmp_path / "out"),
                   EXIT_UNSUPPORTED, "aten::save")
    assert victim.read_text() == "keep me"


def test_warnings_are_not_side_effects(importer, tmp_path):
    class Warns(torch.nn.Module):
        def forward(self, x):
            warnings.warn("deprecated")
            return x * 2

    source = tmp_path / "warns.pt"
    torch.jit.script(Warns()).save(str(source))
    result = run(source, "--input-shape", "x:float32[2]", "--emit=report")
    assert result.returncode == 0, result.stderr
    assert "deprecated" not in result.stdout + result.stderr


# ---- damaged files, refused before libtorch reads them ----

def rewrite(source, tmp_path, edit, name="damaged.pt"):
    with zipfile.ZipFile(source) as archive:
        entries = {info.filename: archive.read(info) for info in archive.infolist()}
    edit(entries)
    path = tmp_path / name
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for member, data in entries.items():
            archive.writestr(member, data)
    return path


def member(entries, suffix):
    return next(name for name in entries if name.endswith(suffix))


def test_a_storage_shorter_than_its_pickle_says_is_refused(traced, tmp_path):
    def edit(entries):
        weight = member(entries, "/data/0")  # fc.weight: 12 floats
        entries[weight] = entries[weight][:20]
    path = rewrite(traced, tmp_path, edit)
    one_error_line(run(path, "-o", tmp_path / "out"), EXIT_INVALID,
                   r"small/data\.pkl: pickle byte \d+: storage '0' \(FloatStorage, 12 elements\) "
                   r"needs 48 bytes, its record has 20")
    assert not (tmp_path / "out").exists()


def test_a_14_byte_debug_pkl_claiming_4_gib_is_refused_at_once(traced, tmp_path):
    def edit(entries):
        entries[member(entries, "safety.py.debug_pkl")] = (
            b"\x80\x02X\xff\xff\xff\xffabcdefg")
    path = rewrite(traced, tmp_path, edit)
    start = time.monotonic()
    one_error_line(run(path, "--emit=report"), EXIT_INVALID,
                   r"debug_pkl: pickle byte 2: a string of 4294967295 bytes runs past the end "
                   r"\(14 bytes\)")
    assert time.monotonic() - start < 10


def test_deep_pickles_are_refused(traced, tmp_path):
    def edit(entries):
        entries[member(entries, "/data.pkl")] = b"\x80\x02" + b"(" * 100000 + b"N."
    one_error_line(run(rewrite(traced, tmp_path, edit), "--emit=report"), EXIT_INVALID,
                   r"data\.pkl: pickle byte \d+: opens more than 1000 MARKs")


def test_deep_parentheses_in_code_are_refused(traced, tmp_path):
    def edit(entries):
        code = member(entries, "safety.py")
        entries[code] = entries[code].replace(b"return ", b"return " + b"(" * 50000, 1)
    one_error_line(run(rewrite(traced, tmp_path, edit), "--emit=report"), EXIT_INVALID,
                   r"code/\S+safety\.py: line \d+: brackets nested deeper than 200 levels")


def test_a_raw_deflate_bomb_is_bounded(traced, tmp_path):
    """A code member that claims more than thunderc reads is refused by its declared size."""
    def edit(entries):
        entries[member(entries, "safety.py")] = b" " * (300 << 20)
    path = tmp_path / "bomb.pt"
    with zipfile.ZipFile(traced) as archive:
        entries = {info.filename: archive.read(info) for info in archive.infolist()}
    edit(entries)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    assert path.stat().st_size < 10 << 20
    one_error_line(run(path, "--emit=report"), EXIT_INVALID,
                   r"code/\S+safety\.py: 314572800 bytes exceed thunderc's limit")


# ---- damaged files through the confined importer ----

def test_a_crash_inside_libtorch_is_contained(importer, traced, tmp_path):
    """200,000 `elif`s: libtorch's parser recurses once per branch and overflows its stack. No
    check before libtorch bounds this (each branch is one line at one level); the confined
    child dies, thunderc says so in one line and writes nothing."""
    def edit(entries):
        code = member(entries, "safety.py")
        lines = entries[code].decode().split("\n")
        at = next(i for i, line in enumerate(lines) if line.strip().startswith("return"))
        indent = lines[at][:len(lines[at]) - len(lines[at].lstrip())]
        chain = [f"{indent}if 0 == 1:", f"{indent}  pass"]
        for k in range(2, 200000):
            chain += [f"{indent}elif 0 == {k}:", f"{indent}  pass"]
        lines[at:at] = chain
        entries[code] = "\n".join(lines).encode()
    out = tmp_path / "out"
    one_error_line(run(rewrite(traced, tmp_path, edit), "-o", out), EXIT_INVALID,
                   r"the TorchScript importer \(libtorch, in a confined process\) was killed by "
                   r"signal 11 \(Segmentation fault\) while reading the file")
    assert not out.exists()


def test_damaged_copies_end_cleanly(importer, tmp_path):
    template = HERE.parent / "fuzz" / "data" / "template.pt"
    exits, failures = pt_mutants.campaign(THUNDERC, template, count=200, seed=28)
    assert not failures, "\n".join(failures)
    assert exits.get(EXIT_INVALID, 0) > 20, exits  # the damage reached the checks
