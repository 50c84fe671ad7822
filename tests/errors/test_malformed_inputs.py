"""Every user-facing error: a malformed, truncated, unsupported or inconsistent input gives one
clear line `error: <file>: <member or node>: <what>` and its documented exit code (see
`thunderc --help`), never a crash. Each case derives a bad file from a real zoo archive."""
import json
import os
import re
import subprocess
import zipfile

import pytest

ZOO_DIR = os.environ.get("THUNDERC_ZOO_DIR", "build/models")
THUNDERC = os.environ.get("THUNDERC_BIN", "build/cli/thunderc")
EXIT_USAGE, EXIT_IO, EXIT_INVALID, EXIT_UNSUPPORTED = 2, 3, 4, 5
BASE = os.path.join(ZOO_DIR, "mlp", "core.pt2")
DYNAMIC = os.path.join(ZOO_DIR, "dynamic_mlp", "train.pt2")


def run(*args):
    return subprocess.run([THUNDERC, *args], capture_output=True, text=True)


def members(path):
    with zipfile.ZipFile(path) as archive:
        return {info.filename: archive.read(info.filename) for info in archive.infolist()}


def write_archive(path, entries):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)


def model_member(entries):
    return next(name for name in entries if name.endswith("models/model.json"))


def weights_config(entries):
    return next(name for name in entries if name.endswith("model_weights_config.json"))


def mutate_json(source, tmp_path, member_of, edit, name="bad.pt2"):
    """Copies `source` with the JSON member chosen by member_of(entries) edited in place."""
    entries = members(source)
    member = member_of(entries)
    document = json.loads(entries[member])
    edit(document)
    entries[member] = json.dumps(document).encode()
    out = tmp_path / name
    write_archive(out, entries)
    return str(out)


def first_node(document, target_suffix):
    nodes = document["graph_module"]["graph"]["nodes"]
    return next(node for node in nodes if node["target"].endswith(target_suffix))


def expect(result, code, pattern):
    assert result.returncode == code, (result.returncode, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: "), lines[0]
    assert re.search(pattern, lines[0]), lines[0]
    assert "internal compiler error" not in result.stderr


def test_missing_file(tmp_path):
    expect(run(str(tmp_path / "nope.pt2")), EXIT_IO, r"nope\.pt2: cannot open file")


def test_directory_as_input(tmp_path):
    expect(run(str(tmp_path)), EXIT_IO, r"cannot (open|map) file")


def test_empty_file(tmp_path):
    path = tmp_path / "empty.pt2"
    path.write_bytes(b"")
    expect(run(str(path)), EXIT_INVALID, r"empty\.pt2: not a zip archive")


def test_not_a_zip(tmp_path):
    path = tmp_path / "text.pt2"
    path.write_text("this is not an archive\n" * 10)
    expect(run(str(path)), EXIT_INVALID, r"text\.pt2: not a zip archive")


@pytest.mark.parametrize("fraction", [0.1, 0.5, 0.9, 0.999])
def test_truncated_archive(tmp_path, fraction):
    data = open(BASE, "rb").read()
    path = tmp_path / "cut.pt2"
    path.write_bytes(data[: int(len(data) * fraction)])
    expect(run(str(path)), EXIT_INVALID, r"cut\.pt2: (not a zip archive|truncated|bad ZIP64 end of central directory)")


def test_bad_json(tmp_path):
    entries = members(BASE)
    entries[model_member(entries)] = b'{"graph_module": {'
    path = tmp_path / "badjson.pt2"
    write_archive(path, entries)
    expect(run(str(path)), EXIT_INVALID, r"models/model\.json: invalid JSON")


def test_missing_model_member(tmp_path):
    entries = members(BASE)
    del entries[model_member(entries)]
    path = tmp_path / "nomodel.pt2"
    write_archive(path, entries)
    expect(run(str(path)), EXIT_INVALID, r"missing archive member '.*models/<name>\.json'")


def test_union_with_two_keys(tmp_path):
    def edit(doc):
        node = first_node(doc, "addmm.default")
        node["inputs"][0]["arg"] = {"as_tensor": {"name": "x"}, "as_int": 3}
    path = mutate_json(BASE, tmp_path, model_member, edit)
    expect(run(path), EXIT_INVALID, r"models/model\.json: node 'addmm' .*not a union")


def test_argument_of_wrong_kind(tmp_path):
    def edit(doc):
        first_node(doc, "addmm.default")["inputs"][1]["arg"] = {"as_float": 1.5}
    path = mutate_json(BASE, tmp_path, model_member, edit)
    expect(run(path), EXIT_INVALID, r"node 'addmm' \(aten\.addmm\.default\): argument 'mat1'")


def test_undefined_tensor(tmp_path):
    def edit(doc):
        first_node(doc, "relu.default")["inputs"][0]["arg"] = {"as_tensor": {"name": "ghost"}}
    path = mutate_json(BASE, tmp_path, model_member, edit)
    expect(run(path), EXIT_INVALID, r"node 'relu' .*undefined tensor 'ghost'")


def test_unknown_argument(tmp_path):
    def edit(doc):
        first_node(doc, "relu.default")["inputs"].append(
            {"name": "bogus", "arg": {"as_int": 1}, "kind": 1})
    path = mutate_json(BASE, tmp_path, model_member, edit)
    expect(run(path), EXIT_INVALID, r"node 'relu' .*unknown argument 'bogus'")


def test_missing_required_argument(tmp_path):
    def edit(doc):
        node = first_node(doc, "addmm.default")
        node["inputs"] = [arg for arg in node["inputs"] if arg["name"] != "mat2"]
    path = mutate_json(BASE, tmp_path, model_member, edit)
    expect(run(path), EXIT_INVALID, r"node 'addmm' .*missing required argument 'mat2'")


def test_unknown_dtype_number(tmp_path):
    def edit(doc):
        doc["graph_module"]["graph"]["tensor_values"]["x"]["dtype"] = 99
    path = mutate_json(BASE, tmp_path, model_member, edit)
    expect(run(path), EXIT_INVALID, r"tensor_values\['x'\]: unknown dtype number 99")


def test_unsupported_dtype(tmp_path):
    def edit(doc):
        doc["graph_module"]["graph"]["tensor_values"]["x"]["dtype"] = 29  # float8_e4m3fn
    path = mutate_json(BASE, tmp_path, model_member, edit)
    expect(run(path), EXIT_UNSUPPORTED, r"unsupported dtype FLOAT8E4M3FN")


def test_complex_program_input(tmp_path):
    # complex64 is computed on inside a program (as float pairs), but not taken as an input
    def edit(doc):
        doc["graph_module"]["graph"]["tensor_values"]["x"]["dtype"] = 10  # complex64
    path = mutate_json(BASE, tmp_path, model_member, edit)
    expect(run(path), EXIT_UNSUPPORTED,
           r"program input 'x' is complex: .*torch\.view_as_real\(x\)")


def test_absurd_rank(tmp_path):
    def edit(doc):
        doc["graph_module"]["graph"]["tensor_values"]["x"]["sizes"] = [{"as_int": 1}] * 100
    path = mutate_json(BASE, tmp_path, model_member, edit)
    expect(run(path), EXIT_INVALID, r"rank 100 exceeds")


def test_size_overflow(tmp_path):
    def edit(doc):
        doc["graph_module"]["graph"]["tensor_values"]["x"]["sizes"] = [
            {"as_int": 2**40}, {"as_int": 2**40}]
    path = mutate_json(BASE, tmp_path, model_member, edit)
    expect(run(path), EXIT_INVALID, r"overflow")


def test_negative_size(tmp_path):
    def edit(doc):
        doc["graph_module"]["graph"]["tensor_values"]["x"]["sizes"][0] = {"as_int": -4}
    path = mutate_json(BASE, tmp_path, model_member, edit)
    expect(run(path), EXIT_INVALID, r"negative size -4")


def test_bad_symbolic_expression(tmp_path):
    def edit(doc):
        sizes = doc["graph_module"]["graph"]["tensor_values"]["x"]["sizes"]
        sizes[0] = {"as_expr": {"expr_str": "Symbol('s77'", "hint": None}}
    path = mutate_json(DYNAMIC, tmp_path, model_member, edit)
    expect(run(path), EXIT_INVALID, r"bad symbolic size expression")


def test_schema_version(tmp_path):
    def edit(doc):
        doc["schema_version"]["major"] = 99
    path = mutate_json(BASE, tmp_path, model_member, edit)
    expect(run(path), EXIT_UNSUPPORTED, r"export schema version 99")


def test_buffer_mutation(tmp_path):
    def edit(doc):
        specs = doc["graph_module"]["signature"]["output_specs"]
        specs.insert(0, {"buffer_mutation": {"arg": {"name": "x"}, "buffer_name": "b"}})
    path = mutate_json(BASE, tmp_path, model_member, edit)
    # Buffer mutations are model state; this one names a buffer the program does not have.
    expect(run(path), EXIT_INVALID, r"buffer_mutation of 'b': no buffer input has that name")


def test_parameter_mutation(tmp_path):
    def edit(doc):
        specs = doc["graph_module"]["signature"]["output_specs"]
        specs.insert(0, {"parameter_mutation": {"arg": {"name": "x"}, "parameter_name": "w"}})
    path = mutate_json(BASE, tmp_path, model_member, edit)
    expect(run(path), EXIT_UNSUPPORTED, r"updates a parameter in place \(parameter_mutation\)")


def test_weight_file_too_short(tmp_path):
    entries = members(BASE)
    weight = next(name for name in entries if name.endswith("data/weights/weight_0"))
    entries[weight] = entries[weight][:16]
    path = tmp_path / "short.pt2"
    write_archive(path, entries)
    expect(run(str(path)), EXIT_INVALID, r"model_weights_config\.json: '.*': member '.*weight_0' "
                                          r"holds 16 bytes, the tensor view needs \d+")


def test_stride_overflow(tmp_path):
    def edit(doc):
        meta = next(iter(doc["config"].values()))["tensor_meta"]
        meta["strides"] = [{"as_int": 2**62}] * len(meta["strides"])
    path = mutate_json(BASE, tmp_path, weights_config, edit)
    expect(run(path), EXIT_INVALID, r"model_weights_config\.json: '.*': .*overflows")


def test_missing_weight_member(tmp_path):
    def edit(doc):
        next(iter(doc["config"].values()))["path_name"] = "weight_999"
    path = mutate_json(BASE, tmp_path, weights_config, edit)
    expect(run(path), EXIT_INVALID, r"missing archive member '.*weight_999'")


def test_path_traversal_in_weights_config(tmp_path):
    def edit(doc):
        next(iter(doc["config"].values()))["path_name"] = "../../etc/passwd"
    path = mutate_json(BASE, tmp_path, weights_config, edit)
    expect(run(path), EXIT_INVALID, r"bad path_name")


def test_pickled_tensor(tmp_path):
    def edit(doc):
        next(iter(doc["config"].values()))["use_pickle"] = True
    path = mutate_json(BASE, tmp_path, weights_config, edit)
    expect(run(path), EXIT_UNSUPPORTED, r"pickled tensor")


def test_weight_dtype_mismatch(tmp_path):
    def edit(doc):
        next(iter(doc["config"].values()))["tensor_meta"]["dtype"] = 4  # int32, same size
    path = mutate_json(BASE, tmp_path, weights_config, edit)
    expect(run(path), EXIT_INVALID, r"weight '.*' is stored as i32")


def test_legacy_flat_archive(tmp_path):
    path = tmp_path / "legacy.pt2"
    write_archive(path, {"serialized_exported_program.json": b"{}", "version": b"8.2"})
    expect(run(str(path)), EXIT_UNSUPPORTED, r"legacy torch\.export archive \(torch <= 2\.7\)")


def test_torch28_pickled_weights(tmp_path):
    entries = {name: data for name, data in members(BASE).items()
               if "data/weights/" not in name}
    top = model_member(entries).split("/")[0]
    entries[f"{top}/data/weights/model.pt"] = b"PK\x03\x04"
    path = tmp_path / "old.pt2"
    write_archive(path, entries)
    expect(run(str(path)), EXIT_UNSUPPORTED, r"torch 2\.8 archive with pickled weights")


def test_torchscript_file(tmp_path):
    path = tmp_path / "model.pt"
    write_archive(path, {"model/data.pkl": b"\x80\x02}q\x00.", "model/version": b"3\n"})
    expect(run(str(path)), EXIT_UNSUPPORTED, r"TorchScript or torch\.save file")


def test_unsupported_op_is_reported_not_fatal(tmp_path):
    def edit(doc):
        first_node(doc, "relu.default")["target"] = "torch.ops.aten._fused_adam.default"
    path = mutate_json(BASE, tmp_path, model_member, edit)
    report = run(path, "--emit=report")
    assert report.returncode == 0, report.stderr
    assert re.search(r"unsupported: 1 node\(s\) cannot be compiled", report.stdout)
    assert re.search(r"node 'relu' \(aten\._fused_adam\.default\): no thunderc lowering", report.stdout)


GALLERY_LSTM = os.path.join(os.environ.get("THUNDERC_GALLERY_DIR", "build/gallery"), "nn_lstm",
                            "train.pt2")


def lstm_report(tmp_path, edit):
    """`--emit=report` of the gallery's nn_lstm (training IR: one lstm.input node) after `edit`."""
    if not os.path.isfile(GALLERY_LSTM):
        pytest.skip(f"{GALLERY_LSTM} not exported")
    path = mutate_json(GALLERY_LSTM, tmp_path, model_member, edit)
    report = run(path, "--emit=report")
    assert report.returncode == 0, report.stderr
    return report.stdout


def test_lstm_symbolic_sequence_length(tmp_path):
    def edit(doc):
        doc["range_constraints"] = {"s7": {"min_val": 2, "max_val": 64}}
        sizes = doc["graph_module"]["graph"]["tensor_values"]["x"]["sizes"]
        sizes[1] = {"as_expr": {"expr_str": "Symbol('s7', positive=True, integer=True)",
                                "hint": {"as_int": 6}}}
    report = lstm_report(tmp_path, edit)
    assert re.search(r"node 'lstm' \(aten\.lstm\.input\): .*symbolic sequence length \?s\d+: "
                     r"the sequence length must be static", report), report


def test_lstm_training_dropout(tmp_path):
    def edit(doc):
        for arg in first_node(doc, "lstm.input")["inputs"]:
            if arg["name"] == "train":
                arg["arg"] = {"as_bool": True}
            if arg["name"] == "dropout":
                arg["arg"] = {"as_float": 0.5}
    report = lstm_report(tmp_path, edit)
    assert re.search(r"node 'lstm' \(aten\.lstm\.input\): .*dropout 0\.5 between layers in "
                     r"training mode", report), report


def insert_layout_query(doc, target, output):
    """Puts a layout query of input x before the first node, as export may leave one."""
    nodes = doc["graph_module"]["graph"]["nodes"]
    nodes.insert(0, {"target": f"torch.ops.aten.{target}",
                     "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}, "kind": 1}],
                     "outputs": [output], "metadata": {}, "name": "query"})


def test_layout_queries_compile(tmp_path):
    # sym_storage_offset's SymInt comes from sym_int_values; a contiguity the exporter resolved
    # (output None) leaves nothing to compute.
    def edit(doc):
        insert_layout_query(doc, "sym_storage_offset.default",
                            {"as_sym_int": {"as_name": "offset"}})
        doc["graph_module"]["graph"]["sym_int_values"]["offset"] = {"as_int": 0}
        insert_layout_query(doc, "sym_is_contiguous.default", {"as_none": True})
    report = run(mutate_json(DYNAMIC, tmp_path, model_member, edit), "--emit=report")
    assert report.returncode == 0, report.stderr
    assert "0 unsupported" in report.stdout and "3 shape arithmetic" in report.stdout, report.stdout


def test_layout_query_known_at_run_time(tmp_path):
    def edit(doc):
        insert_layout_query(doc, "sym_is_contiguous.default", {"as_sym_bool": {"as_name": "c"}})
    path = mutate_json(DYNAMIC, tmp_path, model_member, edit)
    expect(run(path), EXIT_UNSUPPORTED,
           r"node 'query'.*symbolic contiguity 'c' of node 'query': its value is only known at "
           r"run time")


def test_interpreting_an_unsupported_op(tmp_path):
    def edit(doc):
        first_node(doc, "relu.default")["target"] = "torch.ops.aten._fused_adam.default"
    path = mutate_json(BASE, tmp_path, model_member, edit)
    inputs = os.path.join(ZOO_DIR, "mlp", "inputs", "input_0.npy")
    result = run(path, "--interpret", "--inputs", inputs, "--outputs", str(tmp_path / "o.npy"))
    expect(result, EXIT_UNSUPPORTED, r"aten\._fused_adam\.default")


def test_input_of_wrong_shape(tmp_path):
    import numpy as np
    bad = tmp_path / "bad.npy"
    np.save(bad, np.zeros((3, 3), dtype=np.float32))
    result = run(BASE, "--interpret", "--inputs", str(bad), "--outputs", str(tmp_path / "o.npy"))
    expect(result, EXIT_INVALID, r"input 0 'x': expected f32\[4,64\], got f32\[3,3\]")


def test_bad_npy_files(tmp_path):
    # --interpret reads and writes .npy through the runtime's codec, the one bundles' runners
    # use: a file that cannot be opened or written is an I/O error, a bad one invalid input.
    import numpy as np
    good = os.path.join(ZOO_DIR, "mlp", "inputs", "input_0.npy")
    out = str(tmp_path / "o.npy")
    junk = tmp_path / "junk.npy"
    junk.write_bytes(b"PK\x03\x04 not numpy")
    big_endian = tmp_path / "be.npy"
    np.save(big_endian, np.zeros((4, 64), dtype=">f4"))
    short = tmp_path / "short.npy"
    np.save(short, np.zeros((4, 64), dtype=np.float32))
    short.write_bytes(short.read_bytes()[:-4])
    for path, code, pattern in [
            (tmp_path / "missing.npy", EXIT_IO,
             r"missing\.npy: cannot open file: No such file or directory"),
            (junk, EXIT_INVALID, r"junk\.npy: not an npy file \(bad magic\)"),
            (big_endian, EXIT_INVALID, r"be\.npy: unsupported npy dtype '>f4' \(big-endian\)"),
            (short, EXIT_INVALID,
             r"short\.npy: npy data is 1020 bytes, expected 1024 for shape \(4, 64\) <f4")]:
        expect(run(BASE, "--interpret", "--inputs", str(path), "--outputs", out), code, pattern)
    unwritable = str(tmp_path / "no" / "o.npy")
    expect(run(BASE, "--interpret", "--inputs", good, "--outputs", unwritable), EXIT_IO,
           r"no/o\.npy: cannot write file: No such file or directory")


def test_dynamic_batch_out_of_range(tmp_path):
    import numpy as np
    bad = tmp_path / "big.npy"
    np.save(bad, np.zeros((65, 4, 16), dtype=np.float32))
    result = run(DYNAMIC, "--interpret", "--inputs", str(bad), "--outputs",
                 str(tmp_path / "o.npy"))
    expect(result, EXIT_INVALID, r"s0.*65.*\[1, 64\]|65.*outside")


def test_bad_text_ir(tmp_path):
    path = tmp_path / "bad.tir"
    path.write_text("graph @g() -> () {\n  %0 = bogus() : f32[]\n  return %0\n}\n")
    expect(run(str(path)), EXIT_INVALID, r"bad\.tir:2:\d+: unknown op 'bogus'")


def test_newline_in_a_member_name_stays_on_one_line(tmp_path):
    """Member names reach messages; a raw newline in one must not split the error line."""
    entries = members(BASE)
    config = weights_config(entries)
    document = json.loads(entries[config])
    name = next(iter(document["config"]))
    document["config"][name]["path_name"] = "weight\n9"
    entries[config] = json.dumps(document).encode()
    path = tmp_path / "newline.pt2"
    write_archive(path, entries)
    expect(run(str(path)), EXIT_INVALID, r"missing archive member '.*weight\\x0a9'")


def test_interpret_a_program_without_inputs(tmp_path):
    import numpy as np
    path = tmp_path / "constant.tir"
    path.write_text("graph @g() -> (f32[2,3]) {\n"
                    "  %c = full() {value=1.5} : f32[2,3]\n"
                    "  %y = mul(%c, %c) : f32[2,3]\n"
                    "  return %y\n}\n")
    for inputs in ([], ["--inputs", ""]):
        out = tmp_path / "y.npy"
        out.unlink(missing_ok=True)
        result = run(str(path), "--interpret", *inputs, "--outputs", str(out))
        assert result.returncode == 0, result.stderr
        assert np.array_equal(np.load(out), np.full((2, 3), 2.25, dtype=np.float32))
    # A program with inputs still needs them, and --outputs is always needed.
    expect(run(BASE, "--interpret", "--outputs", str(tmp_path / "o.npy")), EXIT_INVALID,
           r"the model takes 1 input\(s\), 0 given")
    expect(run(str(path), "--interpret"), EXIT_USAGE, r"--interpret needs --outputs")


def test_unknown_emit_value():
    expect(run(BASE, "--emit=bogus"), EXIT_USAGE, r"unknown --emit value 'bogus'")


def test_no_input():
    expect(run(), EXIT_USAGE, r"no input file")
