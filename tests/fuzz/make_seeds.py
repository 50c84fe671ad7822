"""Writes the fuzz targets' seeds (tests/fuzz/seeds/<target>/, replaced as a whole), their
dictionaries (tests/fuzz/dict/) and the template archives of fuzz_pt2_json
(tests/fuzz/data/template.pt2) and fuzz_pt (tests/fuzz/data/template.pt, a TorchScript file). Run it again after a change to the archive format or the text
IR. What campaigns find goes to tests/fuzz/corpus/<target>/ (scripts/fuzz.sh --merge), which
this script leaves alone.

    python3 tests/fuzz/make_seeds.py [--thunderc build/cli/thunderc] [--only pt]

Files are named by the SHA-1 of their bytes, as libFuzzer names them. Needs torch, numpy and a
built thunderc (for a weights.bin).
"""
from __future__ import annotations

import argparse
import hashlib
import io
import json
import re
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


class Template(torch.nn.Module):
    """Small, but with what the importer handles: parameters, a buffer, a lifted constant, a
    dynamic batch and sequence length (sympy expressions, range constraints), views, a
    reduction, matmul and convolution."""

    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(16, 8)
        self.norm = torch.nn.LayerNorm(8)
        self.conv = torch.nn.Conv1d(8, 8, 3, padding=1)
        self.fc = torch.nn.Linear(8, 4)
        self.register_buffer("scale", torch.tensor(0.5))
        self.offset = torch.arange(4, dtype=torch.float32)  # a constant, not a parameter

    def forward(self, ids, mask):
        x = self.norm(self.emb(ids))
        x = self.conv(x.transpose(1, 2)).transpose(1, 2)
        scores = torch.softmax(x @ x.transpose(1, 2) * self.scale + mask[:, None, :], dim=-1)
        y = self.fc(scores @ x) + self.offset
        return y.reshape(y.shape[0], -1).sum(dim=-1), torch.relu(y)


class Conv(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, stride=2, padding=1)
        self.bn = torch.nn.BatchNorm2d(4)

    def forward(self, x):
        return torch.nn.functional.adaptive_avg_pool2d(torch.relu(self.bn(self.conv(x))), 1)


def export_template(path: Path) -> None:
    torch.manual_seed(0)
    batch = torch.export.Dim("batch", min=1, max=8)
    seq = torch.export.Dim("seq", min=2, max=32)
    program = torch.export.export(
        Template().eval(), (torch.randint(0, 16, (2, 5)), torch.zeros(2, 5)),
        dynamic_shapes=({0: batch, 1: seq}, {0: batch, 1: seq}))
    torch.export.save(program, path)


def export_conv(path: Path) -> None:
    torch.manual_seed(0)
    program = torch.export.export(Conv().eval(), (torch.randn(1, 3, 8, 8),))
    torch.export.save(program, path)


class Scripted(torch.nn.Module):
    """TorchScript with what the code scan reads: a loop, a branch, nested calls, strings,
    comments-free serialized code, a list constant and a submodule."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)
        self.register_buffer("scale", torch.full((4,), 0.5))
        self.steps = 2

    def forward(self, x):
        for _ in range(self.steps):
            if x.dim() > 1:
                x = torch.relu(self.fc(x)) * self.scale
            else:
                x = -x
        return x.sum(-1, keepdim=True) + torch.tensor([1.0, -2.0])[0]


def save_torchscript(traced_path: Path, scripted_path: Path) -> None:
    torch.manual_seed(0)
    torch.jit.trace(Conv().eval(), torch.randn(1, 3, 8, 8)).save(str(traced_path))
    torch.jit.script(Scripted().eval()).save(str(scripted_path))


def pt_seeds(traced: Path, scripted: Path) -> list[bytes]:
    """Whole archives (first byte 255) and each checked member of the template (first byte:
    its index among the template's pickle and code members, in archive order)."""
    seeds = [b"\xff" + traced.read_bytes(), b"\xff" + scripted.read_bytes()]
    with zipfile.ZipFile(traced) as archive:
        checked = [name for name in archive.namelist()
                   if name.endswith((".pkl", ".debug_pkl", ".py"))]
        for index, name in enumerate(checked):
            seeds.append(bytes([index]) + archive.read(name))
    return seeds


def write_pt(data: Path, seeds: Path) -> None:
    shutil.rmtree(seeds / "pt", ignore_errors=True)
    with tempfile.TemporaryDirectory() as tmp:
        scripted = Path(tmp) / "scripted.pt"
        save_torchscript(data / "template.pt", scripted)
        for seed in pt_seeds(data / "template.pt", scripted):
            write(seeds / "pt", seed)
    words = ["storage", "FloatStorage", "LongStorage", "cpu", "torch._utils",
             "_rebuild_tensor_v2", "collections", "OrderedDict", "__torch__", "torch.jit._pickle",
             "restore_type_tag", "build_intlist", "not ", "**", " if ", "((((", "[[[[", "    "]
    (HERE / "dict" / "pt.dict").write_text("".join(f'"{w}"\n' for w in words))


def write(folder: Path, data: bytes) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / hashlib.sha1(data).hexdigest()).write_bytes(data)


def zip_seeds(template: bytes) -> list[bytes]:
    seeds = [template]
    for compression, zip64 in ((zipfile.ZIP_DEFLATED, False), (zipfile.ZIP_STORED, True)):
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", compression=compression) as archive:
            with archive.open("m/archive_format", "w", force_zip64=zip64) as member:
                member.write(b"pt2")
            archive.writestr("m/data/weights/w0", bytes(range(64)) * 4)
        seeds.append(buffer.getvalue())
    return seeds


SYMPY_SEEDS = [
    "Symbol('s0', integer=True, positive=True)",
    "Integer(7)",
    "Add(Integer(1), Symbol('s77', integer=True, positive=True))",
    "Mul(Integer(16), Symbol('s77', positive=True, integer=True))",
    "FloorDiv(Symbol('s0', integer=True, positive=True), Integer(2))",
    "Mod(Symbol('s0', integer=True, positive=True), Integer(3))",
    "PythonMod(Symbol('s0', integer=True, positive=True), Integer(3))",
    "Max(Integer(1), Symbol('s0', integer=True, positive=True))",
    "Min(Symbol('s77', integer=True, positive=True), Integer(64))",
    "Pow(Symbol('s0', integer=True, positive=True), Integer(2))",
    "Mul(Integer(-1), Add(Symbol('s0'), Integer(-2)))",
    "CeilToInt(IntTrueDiv(Symbol('s0'), Integer(2)))",
]


def sympy_seeds(program_json: str) -> list[str]:
    found = set(SYMPY_SEEDS)
    for match in re.finditer(r'"((?:Add|Mul|Symbol|FloorDiv|Mod|Max|Min|Pow)\([^"]*)"',
                             program_json):
        found.add(match.group(1))
    return sorted(found)


def npy_seeds() -> list[bytes]:
    arrays = [np.arange(6, dtype=np.float32).reshape(2, 3), np.arange(5, dtype=np.int64),
              np.array([True, False]), np.zeros((0, 3), np.float16), np.float64(2.5),
              np.arange(8, dtype=np.uint16).reshape(2, 2, 2), np.ones((1, 1, 1, 1, 1), np.int32)]
    seeds = []
    for array in arrays:
        buffer = io.BytesIO()
        np.save(buffer, array, allow_pickle=False)
        seeds.append(buffer.getvalue())
    return seeds


def ir_seeds() -> list[bytes]:
    seeds = []
    for path in sorted((ROOT / "tests" / "lit").rglob("*.tir")):
        lines = [line for line in path.read_text().splitlines()
                 if not line.lstrip().startswith("//")]
        seeds.append(("\n".join(lines).strip() + "\n").encode())
    return seeds


def write_dicts(folder: Path, program_json: str) -> None:
    """libFuzzer dictionaries (tokens it splices into inputs): the JSON keys and short strings
    of the template's program, the sympy functions, and the text IR's op names and keywords."""
    tokens: set[str] = set()

    def walk(value) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                tokens.add(json.dumps(key))
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, str) and len(value) <= 40:
            tokens.add(json.dumps(value))

    walk(json.loads(program_json))
    folder.mkdir(exist_ok=True)
    quote = lambda text: '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    (folder / "pt2_json.dict").write_text(
        "".join(f"{quote(token)}\n" for token in sorted(tokens)))
    functions = ["Symbol(", "Integer(", "Add(", "Mul(", "FloorDiv(", "Mod(", "PythonMod(",
                 "Max(", "Min(", "Pow(", "integer=True", "positive=True", "'s0'", ", "]
    (folder / "sympy.dict").write_text("".join(f"{quote(f)}\n" for f in functions))
    ops = re.findall(r'^TC_OP\(\w+, "([^"]+)"', (ROOT / "ir" / "ops.def").read_text(), re.M)
    words = ops + ["graph @", "symbols(", "body(", "return", "loc(", "?s0", "f32", "f16",
                   "bf16", "f64", "i64", "i32", "i8", "u8", "bool", "%", "=", ":", "{", "}",
                   "[", "]", "(", ")", ",", "->", "dim=", "dims=", "keepdim=", "true",
                   "false", "symbol="]
    (folder / "ir_text.dict").write_text("".join(f"{quote(w)}\n" for w in sorted(set(words))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--thunderc", default=str(ROOT / "build" / "cli" / "thunderc"))
    parser.add_argument("--only", choices=["pt"], help="rewrite this target's seeds only")
    opts = parser.parse_args()
    seeds = HERE / "seeds"
    if opts.only == "pt":
        write_pt(HERE / "data", seeds)
        return
    shutil.rmtree(seeds, ignore_errors=True)
    data = HERE / "data"
    data.mkdir(exist_ok=True)
    template_path = data / "template.pt2"
    export_template(template_path)
    template = template_path.read_bytes()

    with tempfile.TemporaryDirectory() as tmp:
        conv_path = Path(tmp) / "conv.pt2"
        export_conv(conv_path)
        for seed in zip_seeds(template):
            write(seeds / "zip", seed)
        for seed in (template, conv_path.read_bytes()):
            write(seeds / "pt2", seed)
        with zipfile.ZipFile(template_path) as archive:
            names = archive.namelist()
            json_members = [name for name in names if name.endswith(".json")]
            program_json = ""
            for index, name in enumerate(json_members):
                text = archive.read(name)
                write(seeds / "pt2_json", bytes([index]) + text)
                if "/models/" in name:
                    program_json = text.decode()
        write_dicts(HERE / "dict", program_json)
        for seed in sympy_seeds(program_json):
            write(seeds / "sympy", seed.encode())
        for seed in npy_seeds():
            write(seeds / "npy", seed)
        for seed in ir_seeds():
            write(seeds / "ir_text", seed)
        for model in (template_path, conv_path):
            out = Path(tmp) / f"bundle_{model.stem}"
            subprocess.run([opts.thunderc, str(model), "-o", str(out), "-q"], check=True)
            write(seeds / "weights", (out / "weights.bin").read_bytes())
    write_pt(data, seeds)
    for folder in sorted(seeds.iterdir()):
        print(f"{folder.name}: {len(list(folder.iterdir()))} seeds")


if __name__ == "__main__":
    main()
