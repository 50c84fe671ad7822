"""A composite op the decomposition table (frontend/aten/decompositions.def) states only in part
is refused with exit 5, naming the node, the overload and the case it does not compile, and
writing no output; the supported cases of the same overload compile."""
import os
import subprocess

import torch
import torch.nn.functional as F

THUNDERC = os.environ.get("THUNDERC_BIN", "build/cli/thunderc")


class CrossEntropy(torch.nn.Module):
    def __init__(self, weighted):
        super().__init__()
        self.weight = torch.tensor([1.0, 2.0, 0.5]) if weighted else None

    def forward(self, logits, target):
        return F.cross_entropy(logits, target, weight=self.weight)


def export(tmp_path, weighted):
    args = (torch.randn(4, 3), torch.tensor([0, 2, 1, 2]))
    path = tmp_path / f"ce_{int(weighted)}.pt2"
    torch.export.save(torch.export.export(CrossEntropy(weighted).eval(), args), path)
    return path


def test_unsupported_case_is_refused_clearly(tmp_path):
    out = tmp_path / "out"
    result = subprocess.run([THUNDERC, str(export(tmp_path, True)), "-o", str(out)],
                            capture_output=True, text=True)
    assert result.returncode == 5, result.stderr
    assert "aten.cross_entropy_loss.default" in result.stderr
    assert "test_decompositions.py" in result.stderr  # the source line
    assert not out.exists()
    # --emit=report says why: the case of the op that is not compiled.
    report = subprocess.run([THUNDERC, str(export(tmp_path, True)), "--emit=report"],
                            capture_output=True, text=True)
    assert "node 'cross_entropy_loss' (aten.cross_entropy_loss.default)" in report.stdout
    assert "cross_entropy with class weights or label smoothing" in report.stdout


def test_supported_case_compiles(tmp_path):
    result = subprocess.run([THUNDERC, str(export(tmp_path, False)), "--emit=ir", "-O0"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "aten_call" not in result.stdout


class Solve(torch.nn.Module):
    def forward(self, a, b):
        return torch.linalg.solve(a, b)


def test_linalg_is_refused_for_cuda_and_compiles_for_cpu(tmp_path):
    """Dense linear algebra compiles for the CPU (LAPACK); the CUDA target refuses it with exit
    5 naming the op, and writes no output."""
    path = tmp_path / "solve.pt2"
    args = (torch.randn(3, 3) + 3 * torch.eye(3), torch.randn(3, 2))
    torch.export.save(torch.export.export(Solve(), args), path)
    out = tmp_path / "cuda_out"
    result = subprocess.run([THUNDERC, str(path), "-o", str(out), "--target", "cuda"],
                            capture_output=True, text=True)
    assert result.returncode == 5, result.stderr
    assert "lu_factor" in result.stderr and "CPU target only" in result.stderr
    assert not out.exists()
    cpu = subprocess.run([THUNDERC, str(path), "-o", str(tmp_path / "cpu_out")],
                         capture_output=True, text=True)
    assert cpu.returncode == 0, cpu.stderr
    assert "NEEDS_LAPACK" not in (tmp_path / "cpu_out" / "CMakeLists.txt").read_text()
    assert "TC_USE_LAPACK" in (tmp_path / "cpu_out" / "CMakeLists.txt").read_text()
