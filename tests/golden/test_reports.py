"""Reports on real exported models after the default -O2 pipeline: report-json's "compiled"
object (nodes with class, FLOPs and bytes; totals; memory plan), the text report's compiled
table, and --emit=dot accepted by Graphviz."""
import json
import os
import shutil
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from conftest import ZOO_DIR, load_manifest, zoo_models  # noqa: E402

LEVELS = ["train", "core"]
CASES = [(model, level) for model in zoo_models() for level in LEVELS]
CLASSES = {"kernel", "library", "view", "host"}


def model_path(model, level):
    return os.path.join(ZOO_DIR, model, load_manifest(model)["levels"][level]["file"])


def thunderc_out(thunderc, *args):
    result = subprocess.run([thunderc, *args], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.parametrize("model,level", CASES)
def test_compiled_report_json(thunderc, model, level):
    report = json.loads(thunderc_out(thunderc, model_path(model, level), "--emit=report-json"))
    # The import part is still there, next to the compiled view.
    assert {"nodes", "unsupported", "counts", "weights"} <= report.keys()
    compiled = report["compiled"]
    assert compiled.keys() == {"nodes", "totals", "memory"}
    nodes, totals, memory = compiled["nodes"], compiled["totals"], compiled["memory"]
    # Totals add up: every node has one class, and FLOPs/bytes are the sums over nodes (every
    # zoo symbol is bounded, so no number is unknown).
    assert [node["index"] for node in nodes] == list(range(len(nodes)))
    assert totals["nodes"] == len(nodes)
    for cls, key in [("kernel", "kernels"), ("library", "library"), ("view", "views"),
                     ("host", "host")]:
        assert totals[key] == sum(node["class"] == cls for node in nodes), cls
    assert all(node["class"] in CLASSES for node in nodes)
    assert totals["flops"] == sum(node["flops"] for node in nodes) > 0
    assert totals["bytes"] == sum(node["bytes"] for node in nodes) > 0
    for node in nodes:
        if node["class"] == "view":
            assert node["bytes"] == 0 and node["flops"] == 0, node
        if node["op"] == "fusion":
            # A kernel lists the source nodes it holds, with their Python lines.
            assert node["class"] == "kernel" and node["kind"] in {"elementwise", "reduction",
                                                                  "epilogue"}
            assert node["inside"], node
            assert any(inner["loc"].startswith("zoo.py:") and inner["code"]
                       for inner in node["inside"]), node
        if node["class"] in {"kernel", "library"}:
            for neighbour in node["not_fused"]:
                assert neighbour["direction"] in {"producer", "consumer"}
                assert 0 <= neighbour["node"] < len(nodes) and neighbour["node"] != node["index"]
    # -O2 fuses: at least one kernel is a fusion node.
    assert any(node["op"] == "fusion" for node in nodes)
    # -O2 plans memory; reuse never makes the arena bigger than no reuse, nor smaller than
    # what is live at once.
    assert memory["planned"] is True
    assert 0 < memory["lower_bound_bytes"] <= memory["arena_bytes"] <= memory["sum_bytes"]
    assert memory["arena_over_sum"] == pytest.approx(memory["arena_bytes"] / memory["sum_bytes"])


def test_compiled_report_o0_has_no_fusion(thunderc):
    report = json.loads(thunderc_out(thunderc, model_path("cnn", "train"), "-O0",
                                     "--emit=report-json"))
    compiled = report["compiled"]
    assert not any(node["op"] == "fusion" for node in compiled["nodes"])
    assert compiled["memory"]["planned"] is False
    assert compiled["totals"]["nodes"] == report["counts"]["thunderc_ops"]


def test_compiled_report_text(thunderc):
    text = thunderc_out(thunderc, model_path("cnn", "train"), "--emit=report")
    assert "unsupported: none; every op compiles" in text
    assert "\ncompiled: " in text and "kernels," in text
    assert "\ntotals: " in text and " FLOPs; " in text
    assert "\nmemory: arena " in text and "arena/sum" in text and "arena/lower bound" in text
    # Fused source nodes are listed under their kernel with their Python line.
    assert "        | " in text and "zoo.py:" in text


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz (dot) is not installed")
@pytest.mark.parametrize("model", zoo_models())
def test_dot_renders(thunderc, model, tmp_path):
    dot_text = thunderc_out(thunderc, model_path(model, "train"), "--emit=dot")
    assert dot_text.startswith("digraph ") and "subgraph cluster_0 {" in dot_text
    # Deterministic: a second run prints the same bytes.
    assert thunderc_out(thunderc, model_path(model, "train"), "--emit=dot") == dot_text
    svg = subprocess.run(["dot", "-Tsvg"], input=dot_text, capture_output=True, text=True)
    assert svg.returncode == 0, svg.stderr
    assert "<svg" in svg.stdout and "kernel 0 (" in svg.stdout
