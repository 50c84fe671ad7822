"""`thunderc --list-ops`: every exported target the importer handles, one per line, sorted, from
the importer's own tables (the ATen table, the overloads ir/ops.def maps generically, dropped
assertions, SymInt ops, inlined higher-order ops); documented in --help."""
import os
import re
import subprocess

THUNDERC = os.environ.get("THUNDERC_BIN", "build/cli/thunderc")


def run(*args):
    return subprocess.run([THUNDERC, *args], capture_output=True, text=True)


def list_ops():
    result = run("--list-ops")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return result.stdout.splitlines()


def test_sorted_unique_targets():
    ops = list_ops()
    assert ops == sorted(set(ops)), "not sorted, or a target twice"
    # Other libraries' ops keep their namespace (PT2E's quantized_decomposed, transformers' MoE,
    # torch.nn's custom ops).
    pattern = r"(aten|quantized_decomposed|transformers|torch_nn)\.\w+\.\w+|higher_order\.\w+"
    bad = [op for op in ops if not re.fullmatch(pattern, op)]
    assert not bad, f"lines that are not <library>.<op>.<overload> or higher_order.<op>: {bad}"


def test_every_source_of_targets_is_listed():
    ops = set(list_ops())
    expected = {
        "aten.linear.default",  # the hand-written table
        "aten.add.Tensor", "aten.leaky_relu.default", "aten.acos.default",  # ir/ops.def rows
        "aten.addcmul.default", "aten.permute_copy.default",  # decompositions.def rows, aliases
        "aten._assert_tensor_metadata.default",  # dropped assertions
        "aten.sym_size.int", "aten.sym_numel.default",  # SymInt ops
        "higher_order.wrap_with_set_grad_enabled",  # inlined higher-order ops
        "higher_order.wrap_with_autocast", "higher_order.cond", "higher_order.scan",
    }
    assert expected <= ops, f"missing: {sorted(expected - ops)}"


def test_ignores_the_input_and_other_flags():
    assert run("--list-ops", "no_such_model.pt2", "--emit=report").stdout.splitlines() == list_ops()


def test_documented_in_help():
    result = run("--help")
    assert result.returncode == 0
    assert "--list-ops" in result.stdout
