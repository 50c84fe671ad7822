"""The text-IR examples of docs/DESIGN.md are real: every code block tagged `tir` is parsed,
verified and printed by `thunderc FILE.tir --emit=ir` (exit 0), and the printed IR reads back
to the same text, as the page says of the printer and parser. A block of text IR must carry
the tag, so that no example escapes the check."""
import os
import re
import subprocess

import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
THUNDERC = os.environ.get("THUNDERC_BIN", os.path.join(ROOT, "build", "cli", "thunderc"))
DESIGN = os.path.join(ROOT, "docs", "DESIGN.md")

# A fenced block: its info string (the language tag) and its text, fences at column 0.
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


def fenced_blocks(path):
    """(line number of the opening fence, info string, text) of every fenced block in `path`."""
    with open(path, encoding="utf-8") as stream:
        text = stream.read()
    return [(text.count("\n", 0, match.start()) + 1, match.group(1).strip(), match.group(2))
            for match in FENCE.finditer(text)]


BLOCKS = fenced_blocks(DESIGN)
TIR_BLOCKS = [(line, body) for line, info, body in BLOCKS if info == "tir"]


def emit_ir(path):
    return subprocess.run([THUNDERC, str(path), "--emit=ir"], capture_output=True, text=True)


def test_design_has_tir_examples():
    assert TIR_BLOCKS, "docs/DESIGN.md has no ```tir code block"


def test_text_ir_blocks_are_tagged():
    """A block that starts like a graph (`graph @name(`) is text IR and must be tagged `tir`."""
    untagged = [line for line, info, body in BLOCKS
                if info != "tir" and body.lstrip().startswith("graph @")]
    assert not untagged, f"docs/DESIGN.md: text IR without the `tir` tag at line(s) {untagged}"


@pytest.mark.parametrize("line, body", TIR_BLOCKS, ids=[f"line{line}" for line, _ in TIR_BLOCKS])
def test_tir_example_is_accepted(tmp_path, line, body):
    source = tmp_path / "example.tir"
    source.write_text(body)
    first = emit_ir(source)
    assert first.returncode == 0, (
        f"docs/DESIGN.md:{line}: thunderc --emit=ir exited {first.returncode}: {first.stderr}")
    assert first.stdout.startswith("graph @"), first.stdout
    # The printed IR parses again to the same bytes.
    printed = tmp_path / "printed.tir"
    printed.write_text(first.stdout)
    second = emit_ir(printed)
    assert second.returncode == 0, (
        f"docs/DESIGN.md:{line}: the printed IR is refused ({second.returncode}): {second.stderr}")
    assert second.stdout == first.stdout, f"docs/DESIGN.md:{line}: print -> parse -> print differs"
