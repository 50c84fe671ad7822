"""Shared fixtures: the thunderc binary and the exported zoo (see tests/CMakeLists.txt)."""
import json
import os

import pytest

ZOO_DIR = os.environ.get("THUNDERC_ZOO_DIR", "build/models")
THUNDERC = os.environ.get("THUNDERC_BIN", "build/cli/thunderc")


def zoo_models():
    if not os.path.isdir(ZOO_DIR):
        return []
    return sorted(name for name in os.listdir(ZOO_DIR)
                  if os.path.isfile(os.path.join(ZOO_DIR, name, "manifest.json")))


def load_manifest(model):
    with open(os.path.join(ZOO_DIR, model, "manifest.json")) as f:
        return json.load(f)


@pytest.fixture(scope="session")
def thunderc():
    assert os.path.isfile(THUNDERC), f"thunderc binary not found at {THUNDERC}"
    return THUNDERC
