# lit configuration for the textual-IR tests: each .tir file holds IR text plus RUN lines that
# pipe thunderc's output through FileCheck (docs/STYLE.md habit 4).
#
# Run from CTest (`ctest -R lit`), or by hand:
#   THUNDERC_BIN=build/cli/thunderc lit -v tests/lit
# The binary comes from `--param thunderc=PATH` or the THUNDERC_BIN environment variable.
# RUN lines use lit's internal shell, which provides `not` (it fails on a crash, like LLVM's)
# and `diff`, so no LLVM tools are needed; FileCheck is the `filecheck` Python package.

import os
import shutil
import tempfile

import lit.formats

config.name = "thunderc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".tir"]
config.test_source_root = os.path.dirname(__file__)
# Output/ (the %t files) goes to the build tree, never into the sources.
config.test_exec_root = lit_config.params.get("exec_root") or os.path.join(
    tempfile.gettempdir(), "thunderc-lit"
)


def find_thunderc():
    path = lit_config.params.get("thunderc") or os.environ.get("THUNDERC_BIN")
    if not path:
        lit_config.fatal("set THUNDERC_BIN or pass --param thunderc=PATH to the thunderc binary")
    if not os.access(path, os.X_OK):
        lit_config.fatal(f"thunderc binary '{path}' does not exist or is not executable")
    return os.path.abspath(path)


def find_filecheck():
    # LLVM's FileCheck if it is installed, else the `filecheck` Python clone (pip filecheck).
    for name in ("FileCheck", "filecheck"):
        path = shutil.which(name)
        if path:
            return path
    lit_config.fatal("FileCheck not found: pip install filecheck")


def tool(name):
    """A regex matching `name` as a whole command word, not inside a path or another word."""
    return r"(?<![\w/.-])" + name + r"(?![\w/.-])"


# lit applies these before %s and %t, so file paths are never rewritten.
config.substitutions.append((tool("thunderc"), find_thunderc()))
config.substitutions.append((tool("FileCheck"), find_filecheck()))

# Graphviz: tests that render --emit=dot say `REQUIRES: dot` and are unsupported without it.
if shutil.which("dot"):
    config.available_features.add("dot")
