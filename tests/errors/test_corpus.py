"""The malformed-input corpus: one table of damaged archives, each derived from a real zoo
archive, with the exit code and message thunderc must give. Every case also compiles with -o
and checks that nothing is left behind (no bundle, no temporary folder). The table covers the
zip structure, member names, JSON syntax and types, dtypes/layouts/devices, shapes, strides
and storage, graph semantics, symbolic expressions and members thunderc must never load.
(test_malformed_inputs.py holds the older cases, one function each; the sanitizer build runs
both against an ASan+UBSan thunderc.)"""
import json
import os
import re
import struct
import subprocess
import zipfile
from dataclasses import dataclass
from typing import Callable

import pytest

ZOO_DIR = os.environ.get("THUNDERC_ZOO_DIR", "build/models")
THUNDERC = os.environ.get("THUNDERC_BIN", "build/cli/thunderc")
OK, EXIT_USAGE, EXIT_IO, EXIT_INVALID, EXIT_UNSUPPORTED = 0, 2, 3, 4, 5
BASE = os.path.join(ZOO_DIR, "mlp", "core.pt2")
DYNAMIC = os.path.join(ZOO_DIR, "dynamic_mlp", "train.pt2")


# --- Building damaged archives ---------------------------------------------------------------

def members(path):
    with zipfile.ZipFile(path) as archive:
        return {info.filename: archive.read(info.filename) for info in archive.infolist()}


def write_archive(path, entries, compress=()):
    """Stored members (like torch.export.save), except those named in `compress`."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for name, data in entries.items():
            method = zipfile.ZIP_DEFLATED if name in compress else zipfile.ZIP_STORED
            archive.writestr(zipfile.ZipInfo(name), data, compress_type=method)
    return str(path)


def member_ending(entries, suffix):
    return next(name for name in entries if name.endswith(suffix))


MODEL = "models/model.json"
WEIGHTS = "model_weights_config.json"


def json_case(edit, source=BASE, member=MODEL, replace=False):
    """A builder: `source` with one JSON member edited in place by edit(document) (its result
    ignored), or with `replace`, replaced by what edit(document) returns: a new document, or
    text to write as is."""
    def build(tmp_path):
        entries = members(source)
        name = member_ending(entries, member)
        document = json.loads(entries[name])
        result = edit(document)
        if not replace:
            result = document
        entries[name] = (result if isinstance(result, str) else json.dumps(result)).encode()
        return write_archive(tmp_path / "bad.pt2", entries)
    return build


def text_case(edit, source=BASE, member=MODEL):
    """A builder: the JSON member replaced by edit(document), a document or raw text."""
    return json_case(edit, source, member, replace=True)


def bytes_case(edit, source=BASE):
    """A builder: the archive rewritten by Python's zipfile (stored members, known layout),
    then its bytes edited: edit(bytearray, layout) where layout gives offsets."""
    def build(tmp_path):
        clean = write_archive(tmp_path / "clean.pt2", members(source))
        data = bytearray(open(clean, "rb").read())
        with zipfile.ZipFile(clean) as archive:
            infos = archive.infolist()
        edit(data, Layout(data, infos))
        path = tmp_path / "bad.pt2"
        path.write_bytes(bytes(data))
        return str(path)
    return build


class Layout:
    """Where things are in an archive zipfile wrote: the end record, the central directory
    entries and the local headers, by member name suffix."""

    def __init__(self, data, infos):
        self.eocd = data.rfind(b"PK\x05\x06")
        self.central_offset = struct.unpack_from("<I", data, self.eocd + 16)[0]
        self.central = {}
        at = self.central_offset
        for info in infos:
            assert data[at:at + 4] == b"PK\x01\x02"
            self.central[info.filename] = at
            name_len, extra_len, comment_len = struct.unpack_from("<HHH", data, at + 28)
            at += 46 + name_len + extra_len + comment_len
        self.local = {info.filename: info.header_offset for info in infos}

    def find(self, table, suffix):
        return next(offset for name, offset in table.items() if name.endswith(suffix))


def put(data, offset, fmt, value):
    struct.pack_into(fmt, data, offset, value)


def entries_case(edit, source=BASE, compress=()):
    """A builder: the archive's members edited as a dict (add, drop, rename members)."""
    def build(tmp_path):
        entries = members(source)
        edit(entries)
        return write_archive(tmp_path / "bad.pt2", entries,
                             compress=[n for n in entries if any(n.endswith(c) for c in compress)])
    return build


def duplicate_case(suffix, source=BASE):
    """A builder: the archive with the member ending in `suffix` written twice."""
    def build(tmp_path):
        entries = members(source)
        name = member_ending(entries, suffix)
        path = tmp_path / "bad.pt2"
        write_archive(path, entries)
        with pytest.warns(UserWarning, match="Duplicate name"):
            with zipfile.ZipFile(path, "a") as archive:
                archive.writestr(name, entries[name])
        return str(path)
    return build


def raw_member_case(suffix, data, source=BASE):
    """A builder: the member ending in `suffix` replaced by raw bytes."""
    def build(tmp_path):
        entries = members(source)
        entries[member_ending(entries, suffix)] = data
        return write_archive(tmp_path / "bad.pt2", entries)
    return build


def weight_entry(doc):
    return next(iter(doc["config"].values()))


def nodes(doc):
    return doc["graph_module"]["graph"]["nodes"]


def node(doc, suffix):
    return next(n for n in nodes(doc) if n["target"].endswith(suffix))


def tensor_values(doc):
    return doc["graph_module"]["graph"]["tensor_values"]


def first_weight(doc):
    return next(iter(doc["config"].values()))["tensor_meta"]


def set_in(path, value):
    """An edit that sets doc[path...] = value."""
    def edit(doc):
        target = doc
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return edit


def nest(depth):
    return "[" * depth + "]" * depth


def sym_size(expr):
    """An edit that makes the dynamic model's input x's first size the sympy text `expr`."""
    def edit(doc):
        tensor_values(doc)["x"]["sizes"][0] = {"as_expr": {"expr_str": expr, "hint": None}}
    return edit


def range_constraint(min_val, max_val):
    def edit(doc):
        doc["range_constraints"] = {"s77": {"min_val": min_val, "max_val": max_val}}
    return edit


@dataclass
class Case:
    id: str
    build: Callable
    code: int
    pattern: str


# --- The table -------------------------------------------------------------------------------
CASES = [
    # Zip structure.
    Case("eocd_central_offset_past_end",
         bytes_case(lambda d, l: put(d, l.eocd + 16, "<I", len(d) + 100)),
         EXIT_INVALID, r"central directory lies outside the archive"),
    Case("eocd_entry_count_too_large",
         bytes_case(lambda d, l: (put(d, l.eocd + 8, "<H", 999), put(d, l.eocd + 10, "<H", 999))),
         EXIT_INVALID, r"claims 999 entries but the central directory is only \d+ bytes"),
    Case("eocd_central_size_too_large",
         bytes_case(lambda d, l: put(d, l.eocd + 12, "<I", 10**8)),
         EXIT_INVALID, r"central directory lies outside the archive"),
    Case("eocd_comment_length_past_end",
         bytes_case(lambda d, l: put(d, l.eocd + 20, "<H", 500)),
         EXIT_INVALID, r"500-byte comment runs past the end of the file"),
    Case("central_signature_damaged",
         bytes_case(lambda d, l: put(d, l.central_offset, "<I", 0x12345678)),
         EXIT_INVALID, r"central directory entry 0 is malformed \(bad signature\)"),
    Case("local_header_offset_past_end",
         bytes_case(lambda d, l: put(d, l.find(l.central, MODEL) + 42, "<I", len(d) + 10)),
         EXIT_INVALID, r"local header of entry 'core/models/model\.json' lies past end of file"),
    Case("local_signature_damaged",
         bytes_case(lambda d, l: put(d, l.find(l.local, MODEL), "<I", 0)),
         EXIT_INVALID, r"entry 'core/models/model\.json' has a bad local header signature"),
    Case("member_data_past_end",
         bytes_case(lambda d, l: (put(d, l.find(l.central, MODEL) + 20, "<I", len(d)),
                                  put(d, l.find(l.central, MODEL) + 24, "<I", len(d)))),
         EXIT_INVALID, r"entry 'core/models/model\.json' extends past end of file"),
    Case("stored_sizes_disagree",
         bytes_case(lambda d, l: put(d, l.find(l.central, MODEL) + 24, "<I", 7)),
         EXIT_INVALID, r"stored but its compressed size \d+ differs from its size 7"),
    Case("compression_method_bzip2",
         bytes_case(lambda d, l: put(d, l.find(l.central, MODEL) + 10, "<H", 12)),
         EXIT_UNSUPPORTED, r"entry 'core/models/model\.json' is compressed \(method 12\); only"),
    Case("encrypted_member",
         bytes_case(lambda d, l: put(d, l.find(l.central, MODEL) + 8, "<H", 1)),
         EXIT_UNSUPPORTED, r"entry 'core/models/model\.json' is encrypted; encrypted archives"),
    Case("model_json_checksum_wrong",
         bytes_case(lambda d, l: put(d, l.find(l.central, MODEL) + 16, "<I", 0xDEADBEEF)),
         EXIT_INVALID,
         r"model\.json' is corrupt \(its crc32 is 0x[0-9a-f]+, the central directory says "
         r"0xdeadbeef"),
    Case("local_header_of_another_member",
         bytes_case(lambda d, l: put(d, l.find(l.central, "weight_1") + 42, "<I",
                                     l.find(l.local, "weight_0"))),
         EXIT_INVALID, r"entry 'core/data/weights/weight_1' has a different name in its local"),
    Case("member_data_overlaps_next",
         bytes_case(lambda d, l: (put(d, l.find(l.central, "weight_0") + 20, "<I", 32768 + 100),
                                  put(d, l.find(l.central, "weight_0") + 24, "<I", 32768 + 100))),
         EXIT_INVALID, r"entries 'core/data/weights/weight_0' and '.*' overlap in the file"),
    Case("name_length_past_central_directory",
         bytes_case(lambda d, l: put(d, l.find(l.central, MODEL) + 28, "<H", 60000)),
         EXIT_INVALID, r"directory entry \d+ is malformed \(name or extra field past the central"),
    Case("extra_length_past_central_directory",
         bytes_case(lambda d, l: put(d, l.find(l.central, MODEL) + 30, "<H", 60000)),
         EXIT_INVALID, r"directory entry \d+ is malformed \(name or extra field past the central"),
    Case("deflated_model_json", entries_case(lambda e: None, compress=[MODEL]),
         EXIT_UNSUPPORTED, r"entry 'core/models/model\.json' is compressed \(deflate\); only"),
    Case("deflated_weight", entries_case(lambda e: None, compress=["weight_0"]),
         EXIT_UNSUPPORTED, r"entry 'core/data/weights/weight_0' is compressed \(deflate\); only"),
    # Member names.
    Case("duplicate_member", duplicate_case("weight_0"),
         EXIT_INVALID, r"entry 'core/data/weights/weight_0' appears twice in the central direct"),
    Case("duplicate_model_json", duplicate_case(MODEL),
         EXIT_INVALID, r"entry 'core/models/model\.json' appears twice in the central directory"),
    Case("member_name_with_dotdot",
         entries_case(lambda e: e.__setitem__("core/../../evil", b"x")),
         EXIT_INVALID, r"entry \d+ has an unsafe name 'core/\.\./\.\./evil'"),
    Case("member_name_absolute",
         entries_case(lambda e: e.__setitem__("/etc/evil", b"x")),
         EXIT_INVALID, r"entry \d+ has an unsafe name '/etc/evil' \(empty, absolute"),
    Case("member_name_with_backslash",
         entries_case(lambda e: e.__setitem__("core\\..\\evil", b"x")),
         EXIT_INVALID, r"entry \d+ has an unsafe name 'core\\\.\.\\evil'"),
    Case("two_top_folders",
         entries_case(lambda e: e.__setitem__("other/archive_format", b"pt2")),
         EXIT_INVALID, r"member 'other/archive_format' lies outside the archive's folder 'core/"),
    Case("weights_path_name_absolute",
         json_case(lambda d: weight_entry(d).__setitem__("path_name", "/etc/passwd"),
                   member=WEIGHTS), EXIT_INVALID, r"bad path_name '/etc/passwd'"),
    Case("weights_path_name_empty",
         json_case(lambda d: weight_entry(d).__setitem__("path_name", ""), member=WEIGHTS),
         EXIT_INVALID, r"bad path_name ''"),
    # Members thunderc never loads: a native library and pickles stay unread.
    Case("native_code_member_ignored",
         entries_case(lambda e: e.__setitem__("core/data/aotinductor/model.so", b"\x7fELF" * 64)),
         OK, r""),
    Case("pickle_member_ignored",
         entries_case(lambda e: e.__setitem__("core/data/sample_inputs/evil.pt",
                                              b"\x80\x04cos\nsystem\n(S'touch pwned'\ntR.")),
         OK, r""),
    Case("archive_format_not_pt2",
         entries_case(lambda e: e.__setitem__(member_ending(e, "archive_format"), b"zip")),
         EXIT_INVALID, r"unknown archive format 'zip'"),
    Case("byteorder_big_endian",
         entries_case(lambda e: e.__setitem__(member_ending(e, "byteorder"), b"big")),
         EXIT_UNSUPPORTED, r"tensors are stored in byte order 'big'; thunderc reads archives"),
    # JSON syntax.
    Case("json_deep_nesting", text_case(lambda d: nest(100000)),
         EXIT_INVALID, r"nesting deeper than 256 levels at byte 256"),
    Case("json_deep_nesting_in_node",
         text_case(lambda d: json.dumps(d).replace('"as_ints": [1, 0]',
                                                   '"as_ints": ' + nest(50000), 1)),
         EXIT_INVALID, r"nesting deeper than 256 levels at byte \d+"),
    Case("json_nan_size", text_case(lambda d: json.dumps(d).replace(
        '{"as_int": 128}', '{"as_int": NaN}', 1)), EXIT_INVALID, r"'\"as_int\": N'"),
    Case("json_huge_number", text_case(lambda d: json.dumps(d).replace(
        '{"as_int": 128}', '{"as_int": 1e400}', 1)),
         EXIT_INVALID, r"number overflow parsing '1e400'"),
    Case("json_integer_past_int64", text_case(lambda d: json.dumps(d).replace(
        '{"as_int": 128}', '{"as_int": 18446744073709551617}', 1)),
         EXIT_INVALID, r"as_int is not an integer"),
    Case("json_integer_2_pow_63", text_case(lambda d: json.dumps(d).replace(
        '{"as_int": 128}', '{"as_int": 9223372036854775808}', 1)), EXIT_INVALID,
         r"integer 9223372036854775808 does not fit in int64"),
    Case("json_duplicate_key", text_case(lambda d: json.dumps(d).replace(
        '"schema_version": {', '"schema_version": {"major": 1, ', 1)),
         EXIT_INVALID, r"duplicate key 'major' in an object"),
    Case("json_trailing_garbage", text_case(lambda d: json.dumps(d) + " }"), EXIT_INVALID,
         r"syntax error while parsing value \- unexpected '\}'; expected end of inp"),
    Case("json_not_utf8", raw_member_case(MODEL, b'{"graph_module": "\xff\xfe"}'),
         EXIT_INVALID, r"ill\-formed UTF\-8 byte; last read: '\"\\xff'"),
    Case("json_nul_byte", raw_member_case(MODEL, b'{"graph_module"\x00: 1}'), EXIT_INVALID,
         r"syntax error while parsing object separator \- unexpected end of input;"),
    Case("json_top_level_array", text_case(lambda d: [d]),
         EXIT_INVALID, r"expected an object with field 'schema_version'"),
    Case("json_empty_document", text_case(lambda d: ""),
         EXIT_INVALID, r"syntax error while parsing value \- unexpected end of input; expected '"),
    Case("weights_config_not_json", text_case(lambda d: "{config", member=WEIGHTS),
         EXIT_INVALID, r"'\{c'; expected string literal"),
    # JSON types and unions.
    Case("graph_module_is_string", json_case(set_in(["graph_module"], "graph")),
         EXIT_INVALID, r"field 'graph_module' is not an object"),
    Case("nodes_is_object", json_case(set_in(["graph_module", "graph", "nodes"], {})),
         EXIT_INVALID, r"field 'nodes' is not an array"),
    Case("node_target_missing", json_case(lambda d: nodes(d)[0].pop("target")), EXIT_INVALID,
         r"missing field 'target'"),
    Case("node_target_is_number", json_case(lambda d: nodes(d)[0].__setitem__("target", 7)),
         EXIT_INVALID, r"field 'target' is not a string"),
    Case("node_inputs_is_object", json_case(lambda d: nodes(d)[0].__setitem__("inputs", {})),
         EXIT_INVALID, r"field 'inputs' is not an array"),
    Case("node_outputs_empty", json_case(lambda d: nodes(d)[0].__setitem__("outputs", [])),
         EXIT_INVALID, r"node has 0 outputs, expected 1"),
    Case("argument_union_empty",
         json_case(lambda d: node(d, "addmm.default")["inputs"][0].__setitem__("arg", {})),
         EXIT_INVALID, r"argument 'self' is not a union \(an object with exactly one key\)"),
    Case("argument_union_unknown_arm",
         json_case(lambda d: node(d, "addmm.default")["inputs"][0].__setitem__(
             "arg", {"as_pickle": "gASVAAAA"})),
         EXIT_INVALID, r"argument 'self' is as_pickle, expected a tensor"),
    Case("as_int_is_float", json_case(lambda d: tensor_values(d)["x"]["sizes"].__setitem__(
        0, {"as_int": 1.5})), EXIT_INVALID, r"as_int is not an integer"),
    Case("as_int_is_string", json_case(lambda d: tensor_values(d)["x"]["sizes"].__setitem__(
        0, {"as_int": "1"})), EXIT_INVALID, r"as_int is not an integer"),
    Case("sizes_is_string", json_case(lambda d: tensor_values(d)["x"].__setitem__(
        "sizes", "[4, 64]")), EXIT_INVALID, r"field 'sizes' is not an array"),
    Case("tensor_values_missing_sizes", json_case(lambda d: tensor_values(d)["x"].pop("sizes")),
         EXIT_INVALID, r"missing field 'sizes'"),
    Case("signature_missing", json_case(lambda d: d["graph_module"].pop("signature")),
         EXIT_INVALID, r"missing field 'signature'"),
    Case("user_input_without_arg",
         json_case(lambda d: d["graph_module"]["signature"]["input_specs"][-1].__setitem__(
             "user_input", {})), EXIT_INVALID, r"missing field 'arg'"),
    Case("input_spec_unknown_kind",
         json_case(lambda d: d["graph_module"]["signature"]["input_specs"].append(
             {"custom_kind": {"arg": {"name": "q"}}})),
         EXIT_UNSUPPORTED, r"an input of kind 'custom_kind' \(thunderc compiles parameter,"),
    Case("output_spec_unknown_kind",
         json_case(lambda d: d["graph_module"]["signature"]["output_specs"].__setitem__(
             0, {"loss_output": {"arg": {"as_tensor": {"name": "addmm_2"}}}})),
         EXIT_UNSUPPORTED, r"an output of kind 'loss_output' \(thunderc compiles user_output and"),
    Case("schema_version_missing", json_case(lambda d: d.pop("schema_version")), EXIT_INVALID,
         r"missing field 'schema_version'"),
    Case("schema_major_is_string", json_case(set_in(["schema_version", "major"], "8")),
         EXIT_INVALID, r"field 'major' is not an integer"),
    Case("weights_config_entry_not_object",
         json_case(lambda d: d["config"].__setitem__(next(iter(d["config"])), 5),
                   member=WEIGHTS), EXIT_INVALID, r"expected an object with field 'path_name'"),
    Case("weights_use_pickle_not_bool",
         json_case(lambda d: weight_entry(d).__setitem__("use_pickle", "no"), member=WEIGHTS),
         EXIT_INVALID, r"field 'use_pickle' is not a boolean"),
    # Dtypes, layouts, devices.
    Case("dtype_is_string", json_case(lambda d: tensor_values(d)["x"].__setitem__(
        "dtype", "float32")), EXIT_INVALID, r"unknown dtype number \"float32\""),
    Case("dtype_negative", json_case(lambda d: tensor_values(d)["x"].__setitem__("dtype", -1)),
         EXIT_INVALID, r"unknown dtype number \-1"),
    Case("weight_dtype_unknown", json_case(lambda d: first_weight(d).__setitem__("dtype", 99),
                                           member=WEIGHTS),
         EXIT_INVALID, r"unknown dtype number 99"),
    Case("layout_sparse", json_case(lambda d: tensor_values(d)["x"].__setitem__("layout", 1)),
         EXIT_UNSUPPORTED, r"layout 1 is sparse or MKLDNN; thunderc compiles strided \(dense\)"),
    Case("layout_unknown", json_case(lambda d: tensor_values(d)["x"].__setitem__("layout", 99)),
         EXIT_INVALID, r"unknown layout 99"),
    Case("weight_layout_sparse", json_case(lambda d: first_weight(d).__setitem__("layout", 1),
                                           member=WEIGHTS),
         EXIT_UNSUPPORTED, r"layout 1 is sparse or MKLDNN; thunderc compiles strided \(dense\)"),
    Case("device_meta", json_case(lambda d: tensor_values(d)["x"].__setitem__(
        "device", {"type": "meta", "index": None})), OK, r""),
    Case("device_type_missing", json_case(lambda d: tensor_values(d)["x"].__setitem__(
        "device", {})), EXIT_INVALID, r"field 'device' has no string 'type'"),
    # Shapes, strides, storage.
    Case("rank_65", json_case(lambda d: tensor_values(d)["x"].__setitem__(
        "sizes", [{"as_int": 1}] * 65)), EXIT_INVALID, r"rank 65 exceeds the maximum of 16"),
    Case("input_size_zero_rank_mismatch", json_case(lambda d: tensor_values(d)["x"].__setitem__(
        "sizes", [{"as_int": 4}])), EXIT_INVALID, r"strides have 2 entries for a tensor of rank 1"),
    Case("intermediate_shape_contradicts_graph",
         json_case(lambda d: tensor_values(d)[nodes(d)[1]["outputs"][0]["as_tensor"]["name"]]
                   .__setitem__("sizes", [{"as_int": 3}, {"as_int": 5}])),
         EXIT_INVALID, r"result 0 has type f32\[3,5\], inferred f32\[4,128\]"),
    Case("intermediate_stride_huge",
         json_case(lambda d: tensor_values(d)[nodes(d)[1]["outputs"][0]["as_tensor"]["name"]]
                   .__setitem__("strides", [{"as_int": 2**62}, {"as_int": 1}])),
         EXIT_INVALID, r"stride 4611686018427387904 of dimension 0 addresses past the 2\^48\-elem"),
    Case("weight_storage_offset_past_storage",
         json_case(lambda d: first_weight(d).__setitem__("storage_offset", {"as_int": 2**40}),
                   member=WEIGHTS),
         EXIT_INVALID, r"member 'core/data/weights/weight_0' holds 32768 bytes, the tensor view"),
    Case("weight_storage_offset_negative",
         json_case(lambda d: first_weight(d).__setitem__("storage_offset", {"as_int": -1}),
                   member=WEIGHTS), EXIT_INVALID, r"negative storage_offset"),
    Case("weight_stride_negative",
         json_case(lambda d: first_weight(d).__setitem__(
             "strides", [{"as_int": -64}, {"as_int": 1}]), member=WEIGHTS),
         EXIT_INVALID, r"negative stride \-64"),
    Case("weight_view_past_storage",
         json_case(lambda d: first_weight(d).__setitem__(
             "strides", [{"as_int": 65}, {"as_int": 1}]), member=WEIGHTS),
         EXIT_INVALID, r"member 'core/data/weights/weight_0' holds 32768 bytes, the tensor view"),
    Case("weight_sizes_contradict_graph",
         json_case(lambda d: first_weight(d).__setitem__(
             "sizes", [{"as_int": 64}, {"as_int": 128}]), member=WEIGHTS),
         EXIT_INVALID, r"weight 'fc1\.weight' is stored as f32\[64,128\], but the graph expects"),
    Case("weight_rank_mismatch",
         json_case(lambda d: first_weight(d).__setitem__("sizes", [{"as_int": 8192}]),
                   member=WEIGHTS), EXIT_INVALID, r"sizes and strides have different lengths"),
    # Graph semantics.
    Case("value_defined_twice",
         json_case(lambda d: nodes(d)[1]["outputs"].__setitem__(0, nodes(d)[0]["outputs"][0])),
         EXIT_INVALID, r"defines tensor 'permute', which is already defined"),
    Case("node_redefines_input",
         json_case(lambda d: nodes(d)[0]["outputs"].__setitem__(0, {"as_tensor": {"name": "x"}})),
         EXIT_INVALID, r"defines tensor 'x', which is already defined"),
    Case("use_before_definition",
         json_case(lambda d: nodes(d).insert(0, nodes(d).pop(len(nodes(d)) - 1))),
         EXIT_INVALID, r"argument 'mat1' uses undefined tensor 'relu_1'"),
    Case("cycle",
         json_case(lambda d: nodes(d)[0]["inputs"][0].__setitem__(
             "arg", {"as_tensor": {"name": nodes(d)[-1]["outputs"][0]["as_tensor"]["name"]}})),
         EXIT_INVALID, r"argument 'self' uses undefined tensor 'addmm_2'"),
    Case("graph_output_undefined",
         json_case(lambda d: d["graph_module"]["signature"]["output_specs"][0]["user_output"]
                   .__setitem__("arg", {"as_tensor": {"name": "ghost"}})),
         EXIT_INVALID, r"output 'ghost' is not defined by any node"),
    Case("graph_input_undefined_parameter",
         json_case(lambda d: d["graph_module"]["signature"]["input_specs"][0]["parameter"]
                   .__setitem__("parameter_name", "nope.weight")),
         EXIT_INVALID, r"no weight or constant named 'nope\.weight' in the archive"),
    Case("permute_axis_out_of_range",
         json_case(lambda d: node(d, "permute.default")["inputs"][1].__setitem__(
             "arg", {"as_ints": [1, 5]})),
         EXIT_INVALID, r"dim 5 out of range for rank 2 in node 'permute'"),
    Case("permute_axes_repeat",
         json_case(lambda d: node(d, "permute.default")["inputs"][1].__setitem__(
             "arg", {"as_ints": [0, 0]})),
         EXIT_INVALID, r"permute dims \[0,0\] are not a permutation of the dims of f32\[128,64\]"),
    Case("permute_dims_wrong_type",
         json_case(lambda d: node(d, "permute.default")["inputs"][1].__setitem__(
             "arg", {"as_string": "1,0"})),
         EXIT_INVALID, r"argument 'dims' is as_string, expected an int list"),
    Case("addmm_shapes_incompatible",
         json_case(lambda d: node(d, "addmm.default")["inputs"][1].__setitem__(
             "arg", node(d, "addmm.default")["inputs"][0]["arg"])),
         EXIT_INVALID, r"addmm matrix must have rank 2, got f32\[128\]"),
    Case("unknown_op_namespace",
         json_case(lambda d: nodes(d)[0].__setitem__("target", "torch.ops.evil.payload.default")),
         EXIT_UNSUPPORTED, r"1 node\(s\) use ops thunderc cannot compile: evil.payload.default "
                           r"\(node '[a-z_0-9]+', zoo.py:[0-9]+\): "
                           r"no thunderc lowering for evil.payload.default"),
    Case("python_callable_target",
         json_case(lambda d: nodes(d)[0].__setitem__("target", "os.system")),
         EXIT_UNSUPPORTED, r"1 node\(s\) use ops thunderc cannot compile: os.system"),
    Case("is_single_tensor_return_wrong_type",
         json_case(set_in(["graph_module", "graph", "is_single_tensor_return"], "yes")), OK, r""),
    # Symbolic expressions.
    Case("sympy_python_code", json_case(sym_size("__import__('os').system('touch pwned')"),
                                        source=DYNAMIC),
         EXIT_INVALID, r"expected a function name at offset 11"),
    Case("sympy_lambda", json_case(sym_size("(lambda: 1)()"), source=DYNAMIC), EXIT_INVALID,
         r"expected a function name at offset 0"),
    Case("sympy_unknown_function", json_case(sym_size("Sin(Symbol('s77', integer=True))"),
                                             source=DYNAMIC),
         EXIT_UNSUPPORTED, r"unsupported symbolic size function Sin in \"Sin\(Symbol\('s77',"),
    Case("sympy_division_by_zero",
         json_case(sym_size("FloorDiv(Symbol('s77', integer=True), Integer(0))"),
                   source=DYNAMIC), EXIT_INVALID, r"division by zero at offset 49"),
    Case("sympy_modulo_zero", json_case(sym_size("Mod(Symbol('s77', integer=True), Integer(0))"),
                                        source=DYNAMIC),
         EXIT_INVALID, r"division by zero at offset 44"),
    Case("sympy_deep_nesting",
         json_case(sym_size("Add(" * 5000 + "Integer(1)" + ")" * 5000), source=DYNAMIC),
         EXIT_INVALID, r"nested too deeply at offset \d+"),
    Case("sympy_integer_overflow",
         json_case(sym_size("Integer(99999999999999999999999)"), source=DYNAMIC), EXIT_INVALID,
         r"integer overflow at offset 26"),
    Case("sympy_huge_power",
         json_case(sym_size("Pow(Symbol('s77', integer=True), Integer(1000))"), source=DYNAMIC),
         EXIT_UNSUPPORTED, r"unsupported symbolic power in \"Pow\(Symbol\('s77', integer=True\),"),
    Case("sympy_undeclared_symbol",
         json_case(sym_size("Symbol('s999', integer=True, positive=True)"), source=DYNAMIC),
         EXIT_UNSUPPORTED, r"symbol s1 is not the size of any input dim, so it cannot be bound"),
    Case("range_min_above_max", json_case(range_constraint(10, 2), source=DYNAMIC),
         EXIT_INVALID, r"range_constraints\['s77'\]: empty range"),
    Case("range_negative", json_case(range_constraint(-5, 64), source=DYNAMIC), EXIT_INVALID,
         r"symbol 's0' has an invalid range \[\-5, 64\]"),
    Case("range_unbounded", json_case(range_constraint(1, None), source=DYNAMIC), OK, r""),
    Case("range_bound_is_text_infinity",
         json_case(range_constraint(1, "int_oo"), source=DYNAMIC),
         EXIT_INVALID, r"max_val is neither an integer nor null"),
    Case("range_bound_is_string", json_case(range_constraint("1", 64), source=DYNAMIC),
         EXIT_INVALID, r"min_val is neither an integer nor null"),
    Case("range_for_unknown_symbol",
         json_case(lambda d: d["range_constraints"].__setitem__(
             "s999", {"min_val": 1, "max_val": 4}), source=DYNAMIC), OK, r""),
]


def thunderc(*args):
    return subprocess.run([THUNDERC, *args], capture_output=True, text=True, errors="replace",
                          timeout=120)


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_corpus(case, tmp_path):
    if not os.path.isfile(BASE) or not os.path.isfile(DYNAMIC):
        pytest.fail(f"no zoo at {ZOO_DIR}: run models/export_zoo.py first")
    path = case.build(tmp_path)
    out = tmp_path / "out"
    result = thunderc(path, "-o", str(out), "-q")
    assert "internal compiler error" not in result.stderr, result.stderr
    assert "Sanitizer" not in result.stderr, result.stderr
    assert result.returncode == case.code, (result.returncode, result.stderr)
    if case.code == OK:
        assert (out / "weights.bin").is_file()
        return
    # One "error: " line (the unsupported-ops error lists each node on a line of its own).
    lines = result.stderr.strip().splitlines()
    assert lines[0].startswith("error: "), result.stderr
    assert all(not line.startswith("error: ") for line in lines[1:]), result.stderr
    assert re.search(case.pattern, result.stderr), result.stderr
    # Nothing left behind: no bundle, no temporary folder beside it.
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("out")) == []
