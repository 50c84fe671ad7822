"""`-o` never destroys what thunderc did not write, `--name` never produces a bundle that does not
build, and JSON that is deeply nested, missing keys or carries impossible strides is a clear
invalid-input error rather than a crash."""
import json
import os
import re
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from test_malformed_inputs import (  # noqa: E402
    BASE, EXIT_INVALID, EXIT_IO, EXIT_USAGE, THUNDERC, expect, first_node, members, model_member,
    mutate_json, run, write_archive)

MARKER = ".thunderc-bundle"


def run_in(cwd, *args):
    return subprocess.run([os.path.abspath(THUNDERC), *args], capture_output=True, text=True,
                          cwd=cwd)


@pytest.fixture
def workdir(tmp_path):
    """A user's folder: the model, notes, and a sub-folder of their own."""
    (tmp_path / "model.pt2").write_bytes(open(BASE, "rb").read())
    (tmp_path / "notes.txt").write_text("mine\n")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "keep.txt").write_text("mine too\n")
    return tmp_path


def snapshot(folder):
    return sorted((str(p.relative_to(folder)), p.read_bytes() if p.is_file() else None)
                  for p in folder.rglob("*"))


@pytest.mark.parametrize("out, pattern", [
    (".", r"-o '\.' is the working directory or one of its parents"),
    ("./", r"is the working directory or one of its parents"),
    ("..", r"-o '\.\.' is the working directory or one of its parents"),
    ("/", r"is the working directory or one of its parents"),
    ("model.pt2", r"-o 'model\.pt2' is the input file"),
    ("notes.txt", r"-o 'notes\.txt' exists and is not a folder"),
    ("data", r"-o 'data' is a folder that thunderc did not write .*no \.thunderc-bundle marker"),
    ("", r"-o needs a folder name, not an empty path"),
])
def test_output_refused(workdir, out, pattern):
    before = snapshot(workdir)
    expect(run_in(workdir, "model.pt2", "-o", out), EXIT_USAGE, pattern)
    assert snapshot(workdir) == before


def test_output_containing_the_input(workdir):
    (workdir / "data" / "model.pt2").write_bytes(b"")
    expect(run_in(workdir / "data", "model.pt2", "-o", str(workdir / "data")), EXIT_USAGE,
           r"(working directory|contains the input file)")
    bundle = workdir / "bundle"
    assert run_in(workdir, "model.pt2", "-o", "bundle").returncode == 0
    (bundle / "copy.pt2").write_bytes(open(BASE, "rb").read())
    expect(run_in(workdir, "bundle/copy.pt2", "-o", "bundle"), EXIT_USAGE,
           r"contains the input file 'bundle/copy\.pt2'")


def test_output_symlink_refused(workdir):
    os.symlink(workdir / "data", workdir / "link")
    expect(run_in(workdir, "model.pt2", "-o", "link"), EXIT_USAGE, r"is a symbolic link")
    assert (workdir / "data" / "keep.txt").read_text() == "mine too\n"


def test_output_replaces_own_bundle_and_empty_folder(workdir):
    (workdir / "empty").mkdir()
    assert run_in(workdir, "model.pt2", "-o", "empty").returncode == 0
    assert (workdir / "empty" / MARKER).is_file()
    first = snapshot(workdir / "empty")
    # Recompiling over an unchanged bundle replaces it whole.
    result = run_in(workdir, "model.pt2", "-o", "empty")
    assert result.returncode == 0, result.stderr
    assert snapshot(workdir / "empty") == first
    # Nothing else appeared beside it (no temporary or previous folders).
    assert sorted(p.name for p in workdir.iterdir()) == ["data", "empty", "model.pt2",
                                                          "notes.txt"]


def test_marker_lists_every_file_of_the_bundle(workdir):
    assert run_in(workdir, "model.pt2", "-o", "out").returncode == 0
    text = (workdir / "out" / MARKER).read_text()
    listed = text.split("files:\n", 1)[1].splitlines()
    written = sorted(str(p.relative_to(workdir / "out")) for p in (workdir / "out").rglob("*")
                     if p.is_file() and p.name != MARKER)
    assert listed == written


@pytest.mark.parametrize("extra, named", [
    (["notes.txt"], r"'notes\.txt'"),
    (["runtime/mine.h"], r"'runtime/mine\.h'"),
    (["results/y.npy"], r"'results'"),  # a folder of the user's is named, not its files
    ([f"extra{i}.txt" for i in range(7)], r"'extra0\.txt', .* and 2 more"),
])
def test_bundle_holding_user_files_is_refused(workdir, extra, named):
    out = workdir / "out"
    assert run_in(workdir, "model.pt2", "-o", "out").returncode == 0
    for name in extra:
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text("mine\n")
    before = snapshot(out)
    expect(run_in(workdir, "model.pt2", "-o", "out"), EXIT_USAGE,
           r"-o 'out' is a thunderc bundle that also holds " + named +
           r", which thunderc did not write")
    assert snapshot(out) == before


def test_marker_without_a_file_list_is_refused(workdir):
    out = workdir / "out"
    assert run_in(workdir, "model.pt2", "-o", "out").returncode == 0
    (out / MARKER).write_text("written by an older thunderc\n")
    before = snapshot(out)
    expect(run_in(workdir, "model.pt2", "-o", "out"), EXIT_USAGE,
           r"marker without a list of the files thunderc wrote")
    assert snapshot(out) == before


def test_build_folder_the_readme_creates_is_kept(workdir):
    """README: `cmake -S out -B out/build`; a recompile keeps out/build (moved into the new
    bundle), whatever it holds, and replaces the rest."""
    out = workdir / "out"
    assert run_in(workdir, "model.pt2", "-o", "out").returncode == 0
    (out / "build" / "CMakeFiles").mkdir(parents=True)
    (out / "build" / "CMakeCache.txt").write_text("cache\n")
    (out / "build" / "y.npy").write_text("an output the user wrote here\n")
    (out / "model.cpp").write_text("edited\n")  # a file thunderc wrote: replaced
    result = run_in(workdir, "model.pt2", "-o", "out")
    assert result.returncode == 0, result.stderr
    assert (out / "build" / "CMakeCache.txt").read_text() == "cache\n"
    assert (out / "build" / "y.npy").is_file() and (out / "build" / "CMakeFiles").is_dir()
    assert (out / "model.cpp").read_text() != "edited\n"
    assert sorted(p.name for p in workdir.iterdir()) == ["data", "model.pt2", "notes.txt",
                                                          "out"]
    # Only a folder at the top named build is the build folder.
    (out / "runtime" / "build").mkdir()
    expect(run_in(workdir, "model.pt2", "-o", "out"), EXIT_USAGE, r"'runtime/build'")


def test_stale_temporaries_of_killed_runs_are_removed(workdir):
    assert run_in(workdir, "model.pt2", "-o", "out").returncode == 0
    # A run killed mid-write leaves its staging folder; pid 2^22+1 is above Linux's pid_max
    # default range on these machines, so no live process owns it.
    dead = 4194305
    staging = workdir / f"out.thunderc-tmp.{dead}"
    staging.mkdir()
    (staging / MARKER).write_text("")
    (staging / "half.cpp").write_text("")
    foreign = workdir / f"out.thunderc-tmp.{dead + 1}"
    foreign.mkdir()
    (foreign / "user.txt").write_text("not ours\n")
    live = workdir / f"out.thunderc-tmp.{os.getpid()}"
    live.mkdir()
    (live / MARKER).write_text("")
    assert run_in(workdir, "model.pt2", "-o", "out").returncode == 0
    assert not staging.exists()
    assert (foreign / "user.txt").exists()  # no marker: never touched
    assert live.exists()  # its process is alive


@pytest.mark.parametrize("model", ["missing.pt2", "junk.pt2"])
def test_stale_temporaries_are_removed_by_a_failing_run_too(workdir, model):
    """Removed at the start of every -o run, not only after a successful one."""
    (workdir / "junk.pt2").write_text("not an archive\n")
    dead = 4194305  # above the default pid_max: no process has it
    staging = workdir / f"out.thunderc-tmp.{dead}"
    staging.mkdir()
    (staging / MARKER).write_text("")
    (staging / "weights.bin").write_bytes(b"\0" * 4096)
    live = workdir / f"out.thunderc-tmp.{os.getpid()}"
    live.mkdir()
    (live / MARKER).write_text("")
    result = run_in(workdir, model, "-o", "out")
    assert result.returncode != 0
    assert not staging.exists()
    assert live.exists()  # its process is alive
    assert not (workdir / "out").exists()


def test_unwritable_output_location_says_why(tmp_path):
    """A folder the user cannot write, or a read-only file system: exit 3, one line naming the
    path and the system's reason, nothing left behind."""
    import shutil
    locked = tmp_path / "locked"
    locked.mkdir()
    out = str(locked / "out")
    command = [os.path.abspath(THUNDERC), BASE, "-o", out]
    if os.geteuid() != 0:
        locked.chmod(0o555)
        reason = "Permission denied"
    else:
        # Root writes through permissions: mount a read-only file system there instead, in a
        # mount namespace of its own (nothing outside sees it).
        unshare = shutil.which("unshare")
        if unshare is None:
            pytest.skip("root without unshare(1): cannot make a read-only folder")
        command = [unshare, "-m", "sh", "-c",
                   'mount -t tmpfs -o ro tmpfs "$0" || exit 99; exec "$@"', str(locked),
                   *command]
        reason = "Read-only file system"
    try:
        result = subprocess.run(command, capture_output=True, text=True)
    finally:
        locked.chmod(0o755)
    if result.returncode == 99:
        pytest.skip(f"cannot mount a read-only file system here: {result.stderr.strip()}")
    expect(result, EXIT_IO, re.escape(out) +
           r"\.thunderc-tmp\.\d+: cannot create folder: " + reason)
    assert os.listdir(locked) == []


@pytest.mark.parametrize("name", ["class", "int", "_Model", "my__model", "NULL", "EOF", "test",
                                  "linux", "errno", "std", "tc", "3d", "my-model",
                                  "a" * 65])
def test_bad_names_refused(tmp_path, name):
    expect(run(BASE, "-o", str(tmp_path / "out"), "--name", name), EXIT_USAGE, r"--name")
    assert not (tmp_path / "out").exists()


def test_default_name_from_a_keyword_stem(tmp_path):
    model = tmp_path / "class.pt2"
    model.write_bytes(open(BASE, "rb").read())
    assert run(str(model), "-o", str(tmp_path / "out")).returncode == 0
    assert (tmp_path / "out" / "class_model.h").is_file()


def nest(depth):
    value = {"name": "x"}
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("depth", [300, 50000])
def test_deeply_nested_node_inputs(tmp_path, depth):
    entries = members(BASE)
    member = model_member(entries)
    document = json.loads(entries[member])
    first_node(document, "addmm.default")["inputs"][0]["arg"] = {"as_tensors": "@NEST@"}
    text = json.dumps(document).replace('"@NEST@"', "[" * depth + "]" * depth)
    entries[member] = text.encode()
    path = tmp_path / "deep.pt2"
    write_archive(path, entries)
    expect(run(str(path)), EXIT_INVALID, r"models/model\.json: invalid JSON: nesting deeper than "
                                         r"256 levels at byte \d+")


def test_deeply_nested_output_specs(tmp_path):
    def edit(doc):
        doc["graph_module"]["signature"]["output_specs"] = "@NEST@"
    entries = members(BASE)
    member = model_member(entries)
    document = json.loads(entries[member])
    edit(document)
    text = json.dumps(document).replace('"@NEST@"', "[" * 20000 + "]" * 20000)
    entries[member] = text.encode()
    path = tmp_path / "deep.pt2"
    write_archive(path, entries)
    expect(run(str(path)), EXIT_INVALID, r"nesting deeper than 256 levels")


def test_brackets_inside_strings_do_not_count(tmp_path):
    def edit(doc):
        node = first_node(doc, "addmm.default")
        node.setdefault("metadata", {})["stack_trace"] = "[" * 10000 + '\\"{' * 1000
    expect_ok = run(mutate_json(BASE, tmp_path, model_member, edit), "--emit=report")
    assert expect_ok.returncode == 0, expect_ok.stderr


@pytest.mark.parametrize("edit, pattern", [
    # input spec whose user_input has no "arg": reported by the checked reader
    (lambda doc: doc["graph_module"]["signature"]["input_specs"][-1]["user_input"].pop("arg"),
     r"missing field 'arg'"),
    (lambda doc: doc["graph_module"]["signature"]["input_specs"][-1].update(
        {"user_input": 7}), r"(missing field 'arg'|expected an object)"),
    # tensor_values entry that is not an object
    (lambda doc: doc["graph_module"]["graph"]["tensor_values"].update(
        {doc["graph_module"]["signature"]["input_specs"][-1]["user_input"]["arg"]["as_tensor"]
         ["name"]: 5}), r"expected an object with field 'dtype'"),
    (lambda doc: doc.update({"range_constraints": [1, 2]}),
     r"field 'range_constraints' is not an object"),
    (lambda doc: doc.update({"verifiers": {"a": 1}, "torch_version": 3}), None),
])
def test_missing_or_mistyped_keys(tmp_path, edit, pattern):
    result = run(mutate_json(BASE, tmp_path, model_member, edit), "--emit=report")
    if pattern is None:
        assert result.returncode == 0, result.stderr
    else:
        expect(result, EXIT_INVALID, pattern)


@pytest.mark.parametrize("strides, pattern", [
    ([{"as_int": 2 ** 62}, {"as_int": 1}], r"stride 4611686018427387904 of dimension 0 "
                                            r"addresses past the 2\^48-element limit"),
    ([{"as_int": -1}, {"as_int": 1}], r"stride -1 of dimension 0 is negative"),
    ([{"as_int": 1}], r"strides have 1 entries for a tensor of rank 2"),
])
def test_impossible_strides(tmp_path, strides, pattern):
    def edit(doc):
        name = first_node(doc, "addmm.default")["outputs"][0]["as_tensor"]["name"]
        doc["graph_module"]["graph"]["tensor_values"][name]["strides"] = strides
    expect(run(mutate_json(BASE, tmp_path, model_member, edit)), EXIT_INVALID, pattern)
