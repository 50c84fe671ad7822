// The decomposition evaluator's calls: the builtins and IR ops an expression of
// decompositions.def may call, with PyTorch's type promotion and argument checks.
#include "frontend/aten/decompose_internal.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <utility>

#include "frontend/aten/complex.h" // generatedConstant
#include "frontend/aten/converters.h" // nonzeroPositions
#include "ir/ops.h"
#include "ir/shape_inference.h"

namespace thunderc::frontend::decompose {

Expected<Item> Evaluator::call(const Expr &expr) {
  std::vector<Item> args;
  std::map<std::string, Item> keywords;
  for (size_t i = 0; i < expr.args.size(); ++i) {
    TC_ASSIGN_OR_RETURN(Item value, eval(expr.args[i]));
    if (expr.keywords[i].empty())
      args.push_back(std::move(value));
    else
      keywords[expr.keywords[i]] = std::move(value);
  }
  const std::string &name = expr.text;
  auto need = [&](size_t count) -> Status {
    if (args.size() != count)
      return bug(name + " takes " + std::to_string(count) + " arguments");
    return Status::success();
  };
  auto rankOf = [&](const Item &item) -> Expected<int64_t> {
    TC_ASSIGN_OR_RETURN(Value * value, tensorOf(item));
    return value->type().rank();
  };
  if (name == "rank") {
    TC_TRY(need(1));
    TC_ASSIGN_OR_RETURN(int64_t rank, rankOf(args[0]));
    return Item::ofNumber(static_cast<double>(rank), Item::Kind::Int);
  }
  if (name == "dim" || name == "size") {
    // dim(x, d): d normalized against x's rank; size(x, d): x's size along d.
    TC_TRY(need(2));
    TC_ASSIGN_OR_RETURN(Value * x, tensorOf(args[0]));
    TC_ASSIGN_OR_RETURN(int64_t d, intOf(args[1]));
    TC_ASSIGN_OR_RETURN(int64_t normalized, normalizedDim(node_, d, x->type().rank()));
    if (name == "dim")
      return Item::ofNumber(static_cast<double>(normalized), Item::Kind::Int);
    if (x->type().rank() == 0)
      return Item::ofNumber(1, Item::Kind::Int);
    return Item::ofDim(x->type().shape[normalized]);
  }
  if (name == "dims") {
    // dims(x, d): an int, a list or None (None and [] mean every dim), normalized, sorted.
    TC_TRY(need(2));
    TC_ASSIGN_OR_RETURN(Value * x, tensorOf(args[0]));
    std::vector<int64_t> dims;
    if (args[1].kind == Item::Kind::List) {
      for (const Item &element : args[1].list) {
        TC_ASSIGN_OR_RETURN(int64_t d, intOf(element));
        dims.push_back(d);
      }
    } else if (args[1].kind != Item::Kind::None) {
      TC_ASSIGN_OR_RETURN(int64_t d, intOf(args[1]));
      dims.push_back(d);
    }
    TC_ASSIGN_OR_RETURN(dims, normalizedDims(node_, dims, x->type().rank()));
    Item list;
    list.kind = Item::Kind::List;
    for (int64_t d : dims)
      list.list.push_back(Item::ofNumber(static_cast<double>(d), Item::Kind::Int));
    return list;
  }
  if (name == "other_dims") {
    // other_dims(x, d): the dims of x that d (an int or a list; None and [] name none) does
    // not name, in order.
    TC_TRY(need(2));
    TC_ASSIGN_OR_RETURN(Value * x, tensorOf(args[0]));
    const int64_t rank = x->type().rank();
    std::vector<bool> named(static_cast<size_t>(rank), false);
    std::vector<Item> given;
    if (args[1].kind == Item::Kind::List)
      given = args[1].list;
    else if (args[1].kind != Item::Kind::None)
      given.push_back(args[1]);
    for (const Item &element : given) {
      TC_ASSIGN_OR_RETURN(int64_t d, intOf(element));
      TC_ASSIGN_OR_RETURN(d, normalizedDim(node_, d, rank));
      named[static_cast<size_t>(d)] = true;
    }
    Item list;
    list.kind = Item::Kind::List;
    for (int64_t d = 0; d < rank; ++d)
      if (!named[static_cast<size_t>(d)])
        list.list.push_back(Item::ofNumber(static_cast<double>(d), Item::Kind::Int));
    return list;
  }
  if (name == "product") {
    // product(l): the product of a list of sizes (1 for []).
    TC_TRY(need(1));
    if (args[0].kind != Item::Kind::List)
      return fail("product takes a list");
    ir::Shape sizes;
    for (const Item &element : args[0].list) {
      TC_ASSIGN_OR_RETURN(ir::Dim d, dimOf(element));
      sizes.push_back(d);
    }
    return Item::ofDim(ir::numElements(sizes));
  }
  if (name == "total") {
    // total(l): the sum of a list of sizes (0 for []).
    TC_TRY(need(1));
    if (args[0].kind != Item::Kind::List)
      return fail("total takes a list");
    std::vector<ir::SymExpr> terms;
    for (const Item &element : args[0].list) {
      TC_ASSIGN_OR_RETURN(ir::Dim d, dimOf(element));
      terms.push_back(d.asExpr());
    }
    return Item::ofDim(terms.empty() ? ir::Dim(0) : ir::Dim(ir::SymExpr::sum(terms)));
  }
  if (name == "fold") {
    // fold(l, "op"): the binary IR op applied left to right over a non-empty list of tensors
    // (fold([a, b, c], "matmul") = matmul(matmul(a, b), c)).
    TC_TRY(need(2));
    if (args[0].kind != Item::Kind::List || args[0].list.empty() ||
        args[1].kind != Item::Kind::String)
      return bug("fold wants a non-empty list and an op name");
    std::optional<OpKind> op = ir::findOp(args[1].text);
    if (!op)
      return bug("fold: unknown op '" + args[1].text + "'");
    Item acc = args[0].list[0];
    for (size_t i = 1; i < args[0].list.size(); ++i) {
      TC_ASSIGN_OR_RETURN(acc, emit(*op, {acc, args[0].list[i]}, {}));
    }
    return acc;
  }
  if (name == "tensor") {
    // tensor(l): an int64 vector constant of the given integers (known at compile time).
    TC_TRY(need(1));
    if (args[0].kind != Item::Kind::List)
      return bug("tensor wants a list of integers");
    std::vector<int64_t> values;
    std::string key = "ints";
    for (const Item &element : args[0].list) {
      TC_ASSIGN_OR_RETURN(int64_t v, intOf(element));
      values.push_back(v);
      key += "_" + std::to_string(v);
    }
    // Long lists are keyed by a hash of their values (the key names the constant).
    if (key.size() > 96) {
      uint64_t h = 1469598103934665603ull;
      for (int64_t v : values)
        h = (h ^ static_cast<uint64_t>(v)) * 1099511628211ull;
      key = "ints" + std::to_string(values.size()) + "_" + std::to_string(h);
    }
    ir::HostTensor data{DType::I64, {static_cast<int64_t>(values.size())},
                        std::vector<uint8_t>(values.size() * sizeof(int64_t))};
    if (!values.empty())
      std::memcpy(data.bytes.data(), values.data(), data.bytes.size());
    return Item::ofTensor(generatedConstant(node_, key, std::move(data)));
  }
  if (name == "shape") {
    TC_TRY(need(1));
    TC_ASSIGN_OR_RETURN(Value * x, tensorOf(args[0]));
    Item list;
    list.kind = Item::Kind::List;
    for (const ir::Dim &d : x->type().shape)
      list.list.push_back(Item::ofDim(d));
    return list;
  }
  if (name == "len") {
    TC_TRY(need(1));
    if (args[0].kind != Item::Kind::List)
      return fail("len of " + std::string(kindName(args[0].kind)));
    return Item::ofNumber(static_cast<double>(args[0].list.size()), Item::Kind::Int);
  }
  if (name == "item") {
    // item(list, i): element i of a list (negative counts from the end).
    TC_TRY(need(2));
    TC_ASSIGN_OR_RETURN(int64_t i, intOf(args[1]));
    int64_t n = static_cast<int64_t>(args[0].list.size());
    if (args[0].kind != Item::Kind::List || i < -n || i >= n)
      return fail("item " + std::to_string(i) + " of " + std::string(kindName(args[0].kind)));
    return args[0].list[i < 0 ? i + n : i];
  }
  if (name == "dtype") {
    TC_TRY(need(1));
    TC_ASSIGN_OR_RETURN(Value * x, tensorOf(args[0]));
    Item item;
    item.kind = Item::Kind::String;
    item.text = std::string(ir::dtypeName(x->type().dtype));
    return item;
  }
  if (name == "out_dtype") {
    // out_dtype(i): the dtype of the exported node's output i.
    TC_TRY(need(1));
    TC_ASSIGN_OR_RETURN(int64_t i, intOf(args[0]));
    TC_ASSIGN_OR_RETURN(ir::TensorType out, node_.outputType(static_cast<int>(i)));
    Item item;
    item.kind = Item::Kind::String;
    item.text = std::string(ir::dtypeName(out.dtype));
    return item;
  }
  if (name == "is_float" || name == "is_int" || name == "is_bool") {
    // The category of a tensor's dtype (or of a scalar).
    TC_TRY(need(1));
    int c = category(args[0]);
    int want = name == "is_float" ? 2 : name == "is_int" ? 1 : 0;
    return Item::ofNumber(c == want ? 1 : 0, Item::Kind::Bool);
  }
  if (name == "cast") {
    // cast(x, "f32") or cast(x, dtype(y)); a scalar becomes a 0-d tensor of that dtype.
    TC_TRY(need(2));
    std::optional<DType> dtype =
        args[1].kind == Item::Kind::String ? ir::parseDType(args[1].text) : std::nullopt;
    if (!dtype)
      return bug("cast wants a dtype name");
    TC_ASSIGN_OR_RETURN(Value * value, asTensor(args[0], *dtype));
    return Item::ofTensor(value);
  }
  if (name == "float") {
    // The tensor in f32 unless it is floating already (PyTorch's int -> float promotion).
    TC_TRY(need(1));
    if (args[0].isScalar())
      return Item::ofNumber(args[0].number, Item::Kind::Float);
    TC_ASSIGN_OR_RETURN(Value * x, tensorOf(args[0]));
    return Item::ofTensor(ir::isFloatingPoint(x->type().dtype) ? x
                                                               : node_.castTo(x, DType::F32));
  }
  if (name == "full_like") {
    // full_like(x, value[, dtype]): x's shape, filled.
    if (args.size() < 2 || args.size() > 3)
      return bug("full_like takes 2 or 3 arguments");
    TC_ASSIGN_OR_RETURN(Value * x, tensorOf(args[0]));
    if (!args[1].isScalar())
      return fail("full_like of a non-constant value");
    ir::TensorType type = x->type();
    if (args.size() == 3) {
      std::optional<DType> dtype = ir::parseDType(args[2].text);
      if (args[2].kind != Item::Kind::String || !dtype)
        return bug("full_like wants a dtype name");
      type.dtype = *dtype;
    }
    ir::AttrMap attrs;
    attrs.set("value", args[1].number);
    return Item::ofTensor(node_.emitTemp(OpKind::Full, {}, type, std::move(attrs)));
  }
  if (name == "transpose") {
    // transpose(x, a, b): the permutation swapping dims a and b.
    TC_TRY(need(3));
    TC_ASSIGN_OR_RETURN(Value * x, tensorOf(args[0]));
    int64_t rank = x->type().rank();
    TC_ASSIGN_OR_RETURN(int64_t a, intOf(args[1]));
    TC_ASSIGN_OR_RETURN(int64_t b, intOf(args[2]));
    TC_ASSIGN_OR_RETURN(a, normalizedDim(node_, a, rank));
    TC_ASSIGN_OR_RETURN(b, normalizedDim(node_, b, rank));
    if (rank < 2 || a == b)
      return Item::ofTensor(x);
    std::vector<int64_t> perm(rank);
    for (int64_t i = 0; i < rank; ++i)
      perm[i] = i;
    std::swap(perm[a], perm[b]);
    ir::AttrMap attrs;
    attrs.set("dims", perm);
    return emit(OpKind::Permute, {args[0]}, std::move(attrs));
  }
  if (name == "broadcast") {
    // broadcast(x, y...): x expanded to the broadcast shape of all arguments.
    if (args.empty())
      return bug("broadcast takes arguments");
    return broadcastTo(args);
  }
  if (name == "broadcast_all") {
    // broadcast_all([x, y, ...]): every tensor expanded to their common broadcast shape.
    TC_TRY(need(1));
    if (args[0].kind != Item::Kind::List)
      return bug("broadcast_all wants a list");
    Item list;
    list.kind = Item::Kind::List;
    for (const Item &x : args[0].list) {
      std::vector<Item> all{x};
      all.insert(all.end(), args[0].list.begin(), args[0].list.end());
      TC_ASSIGN_OR_RETURN(Item expanded, broadcastTo(all));
      list.list.push_back(std::move(expanded));
    }
    return list;
  }
  if (name == "meshgrid") {
    // meshgrid([x0, x1, ...], indexing): torch.meshgrid of 0-d or 1-d tensors.
    TC_TRY(need(2));
    if (args[0].kind != Item::Kind::List || args[1].kind != Item::Kind::String)
      return bug("meshgrid wants a list and an indexing string");
    std::vector<Value *> inputs;
    for (const Item &x : args[0].list) {
      TC_ASSIGN_OR_RETURN(Value * value, tensorOf(x));
      if (value->type().rank() > 1)
        return fail("meshgrid of a " + std::to_string(value->type().rank()) + "-d tensor");
      inputs.push_back(value);
    }
    bool xy = args[1].text == "xy" && inputs.size() >= 2;
    if (xy)
      std::swap(inputs[0], inputs[1]);
    std::vector<ir::Dim> shape;
    for (Value *value : inputs)
      shape.push_back(value->type().rank() == 0 ? ir::Dim(1) : value->type().shape[0]);
    Item list;
    list.kind = Item::Kind::List;
    for (size_t i = 0; i < inputs.size(); ++i) {
      std::vector<ir::Dim> column(shape.size(), ir::Dim(1));
      column[i] = shape[i];
      ir::AttrMap reshape, expand;
      reshape.set("shape", ir::makeDimsAttr(column));
      expand.set("shape", ir::makeDimsAttr(shape));
      TC_ASSIGN_OR_RETURN(Value * grid,
                          node_.emitInferred(OpKind::Reshape, {inputs[i]}, std::move(reshape)));
      TC_ASSIGN_OR_RETURN(grid, node_.emitInferred(OpKind::Expand, {grid}, std::move(expand)));
      if (xy) {
        std::vector<int64_t> perm(shape.size());
        for (size_t d = 0; d < perm.size(); ++d)
          perm[d] = static_cast<int64_t>(d);
        std::swap(perm[0], perm[1]);
        ir::AttrMap permute;
        permute.set("dims", perm);
        TC_ASSIGN_OR_RETURN(grid, node_.emitInferred(OpKind::Permute, {grid}, std::move(permute)));
      }
      list.list.push_back(Item::ofTensor(grid));
    }
    if (xy)
      std::swap(list.list[0], list.list[1]);
    return list;
  }
  if (name == "reduce") {
    // reduce(x, reduction): a loss's reduction (0 none, 1 mean, 2 sum over every element).
    TC_TRY(need(2));
    TC_ASSIGN_OR_RETURN(int64_t reduction, intOf(args[1]));
    if (reduction == 0)
      return args[0];
    TC_ASSIGN_OR_RETURN(Value * x, tensorOf(args[0]));
    std::vector<int64_t> all(static_cast<size_t>(x->type().rank()));
    for (size_t i = 0; i < all.size(); ++i)
      all[i] = static_cast<int64_t>(i);
    ir::AttrMap attrs;
    attrs.set("dims", all);
    attrs.set("keepdim", false);
    if (reduction == 1 || reduction == 2)
      return emit(reduction == 1 ? OpKind::Mean : OpKind::Sum, {args[0]}, std::move(attrs));
    return fail("reduction " + std::to_string(reduction));
  }
  if (name == "find_dim") {
    // find_dim(x, n): the first dim of x of size n (cross's dim=None).
    TC_TRY(need(2));
    TC_ASSIGN_OR_RETURN(Value * x, tensorOf(args[0]));
    TC_ASSIGN_OR_RETURN(int64_t n, intOf(args[1]));
    for (int64_t d = 0; d < x->type().rank(); ++d) {
      const ir::Dim &size = x->type().shape[d];
      if (size.isStatic() && size.value() == n)
        return Item::ofNumber(static_cast<double>(d), Item::Kind::Int);
    }
    return fail("no dimension of size " + std::to_string(n));
  }
  if (name == "min" || name == "max") {
    // min(a, b) / max(a, b) of compile-time numbers.
    TC_TRY(need(2));
    if (!args[0].isScalar() || !args[1].isScalar())
      return bug(name + " of non-numbers");
    bool first = name == "min" ? args[0].number <= args[1].number
                               : args[0].number >= args[1].number;
    return first ? args[0] : args[1];
  }
  if (name == "finfo_max") {
    // finfo_max(x): torch.finfo(x.dtype).max (f32's for a non-floating x).
    TC_TRY(need(1));
    TC_ASSIGN_OR_RETURN(Value * x, tensorOf(args[0]));
    DType dtype = x->type().dtype;
    double max = dtype == DType::F64    ? std::numeric_limits<double>::max()
                 : dtype == DType::F16  ? 65504.0
                 : dtype == DType::BF16 ? 3.3895313892515355e+38
                                        : static_cast<double>(std::numeric_limits<float>::max());
    return Item::ofNumber(max, Item::Kind::Float);
  }
  if (name == "finfo_eps") {
    // finfo_eps(x): torch.finfo(x.dtype).eps (f32 for a non-floating x).
    TC_TRY(need(1));
    TC_ASSIGN_OR_RETURN(Value * x, tensorOf(args[0]));
    DType dtype = x->type().dtype;
    double eps = dtype == DType::F64   ? 2.220446049250313e-16
                 : dtype == DType::F16 ? 0.0009765625
                 : dtype == DType::BF16 ? 0.0078125
                                        : 1.1920928955078125e-07;
    return Item::ofNumber(eps, Item::Kind::Float);
  }
  if (name == "zeros") {
    // zeros(size, dtype): a tensor of zeros.
    TC_TRY(need(2));
    std::optional<DType> dtype =
        args[1].kind == Item::Kind::String ? ir::parseDType(args[1].text) : std::nullopt;
    if (args[0].kind != Item::Kind::List || !dtype)
      return bug("zeros wants a size list and a dtype name");
    ir::Shape shape;
    for (const Item &d : args[0].list) {
      TC_ASSIGN_OR_RETURN(ir::Dim dim, dimOf(d));
      shape.push_back(dim);
    }
    ir::AttrMap attrs;
    attrs.set("value", 0.0);
    return Item::ofTensor(
        node_.emitTemp(OpKind::Full, {}, ir::TensorType{*dtype, shape}, std::move(attrs)));
  }
  if (name == "out_shape") {
    // out_shape(i): the exported shape of output i, a list of sizes (symbols included).
    TC_TRY(need(1));
    TC_ASSIGN_OR_RETURN(int64_t i, intOf(args[0]));
    if (i < 0 || i >= node_.numOutputs())
      return bug("out_shape of output " + std::to_string(i));
    TC_ASSIGN_OR_RETURN(ir::TensorType out, node_.outputType(static_cast<int>(i)));
    Item list;
    list.kind = Item::Kind::List;
    for (const ir::Dim &d : out.shape)
      list.list.push_back(Item::ofDim(d));
    return list;
  }
  if (name == "nonzero_of") {
    // nonzero_of(mask, count, source): the i64 [count] positions of a 1-d mask's non-zero
    // elements, count being an output's data-dependent size (out_shape): the nonzero op binds
    // it. The mask must be a function of `source` (a tensor) alone for this overload: a second
    // call of the overload on the same source with the same count symbol reuses the positions.
    TC_TRY(need(3));
    TC_ASSIGN_OR_RETURN(Value * mask, tensorOf(args[0]));
    TC_ASSIGN_OR_RETURN(ir::Dim count, dimOf(args[1]));
    TC_ASSIGN_OR_RETURN(Value * source, tensorOf(args[2]));
    if (mask->type().rank() != 1)
      return bug("nonzero_of wants a 1-d mask");
    if (!isCountSymbol(count))
      return fail("an output size " + count.str() + " that is not one data-dependent symbol");
    const std::string key = std::string(target_) + "@" +
                            std::to_string(reinterpret_cast<std::uintptr_t>(source));
    auto &derived = node_.state().derivedNonzeroBySymbol;
    const std::string &symbol = count.expr().symbolName();
    if (auto it = derived.find(symbol); it != derived.end()) {
      if (it->second.first != key)
        return fail("two data-dependent sizes of different values with one symbol " + symbol);
      return Item::ofTensor(it->second.second);
    }
    if (node_.state().nonzeroBySymbol.count(symbol))
      return fail("a data-dependent size " + symbol + " another nonzero binds");
    TC_ASSIGN_OR_RETURN(Value * positions, nonzeroPositions(node_, mask, count));
    ir::AttrMap column;
    column.set("dim", int64_t{1});
    column.set("index", int64_t{0});
    Value *flat = node_.emitTemp(OpKind::Select, {positions}, ir::TensorType{DType::I64, {count}},
                                 std::move(column));
    derived[symbol] = {key, flat};
    return Item::ofTensor(flat);
  }
  if (name == "rand" || name == "randn") {
    // rand(size, dtype) / randn(size, dtype): uniform [0, 1) / standard normal draws of a
    // floating dtype -- one `random` node with the import's next stream (frontend/aten/random.cpp).
    TC_TRY(need(2));
    std::optional<DType> dtype =
        args[1].kind == Item::Kind::String ? ir::parseDType(args[1].text) : std::nullopt;
    if (args[0].kind != Item::Kind::List || !dtype)
      return bug(name + " wants a size list and a dtype name");
    if (!ir::isFloatingPoint(*dtype))
      return fail(name + " of the non-floating dtype " + std::string(ir::dtypeName(*dtype)));
    ir::Shape shape;
    for (const Item &d : args[0].list) {
      TC_ASSIGN_OR_RETURN(ir::Dim dim, dimOf(d));
      shape.push_back(dim);
    }
    return Item::ofTensor(node_.emitTemp(OpKind::Random, {}, ir::TensorType{*dtype, shape},
                                         randomAttributes(node_, name == "rand" ? "uniform"
                                                                                : "normal")));
  }
  if (name == "factorial") {
    TC_TRY(need(1));
    TC_ASSIGN_OR_RETURN(int64_t n, intOf(args[0]));
    double value = 1;
    for (int64_t i = 2; i <= n; ++i)
      value *= static_cast<double>(i);
    return Item::ofNumber(value, Item::Kind::Float);
  }
  if (name == "range") {
    // range(n): [0, 1, ..., n-1]; range(a, b): [a, ..., b-1].
    if (args.empty() || args.size() > 2)
      return bug("range takes 1 or 2 arguments");
    TC_ASSIGN_OR_RETURN(int64_t first, intOf(args.size() == 2 ? args[0] : Item::ofNumber(0, Item::Kind::Int)));
    TC_ASSIGN_OR_RETURN(int64_t last, intOf(args.back()));
    Item list;
    list.kind = Item::Kind::List;
    for (int64_t i = first; i < last; ++i)
      list.list.push_back(Item::ofNumber(static_cast<double>(i), Item::Kind::Int));
    return list;
  }
  if (name == "reversed") {
    TC_TRY(need(1));
    if (args[0].kind != Item::Kind::List)
      return bug("reversed wants a list");
    Item list = args[0];
    std::reverse(list.list.begin(), list.list.end());
    return list;
  }
  if (name == "numel") {
    // numel(x): the element count (possibly symbolic).
    TC_TRY(need(1));
    TC_ASSIGN_OR_RETURN(Value * x, tensorOf(args[0]));
    return Item::ofDim(ir::numElements(x->type().shape));
  }
  if (name == "flatten") {
    // flatten(x): x as a 1-d tensor (a 0-d one becomes [1]).
    TC_TRY(need(1));
    TC_ASSIGN_OR_RETURN(Value * x, tensorOf(args[0]));
    ir::AttrMap attrs;
    attrs.set("shape", ir::makeDimsAttr({ir::numElements(x->type().shape)}));
    return emit(OpKind::Reshape, {args[0]}, std::move(attrs));
  }
  if (name == "prefix_scan") {
    // prefix_scan(x, dim, "prod" | "max" | "min"): the running product (values) or the
    // running max / min with the index where it was reached ([values, indices], PyTorch's
    // cummax/cummin: a NaN wins, and on ties the later index). A log-depth scan
    // (Hillis-Steele): ceil(log2(n)) steps each combine every element with the one 2^k
    // before it, so the dim must be static.
    TC_TRY(need(3));
    TC_ASSIGN_OR_RETURN(Value * x, tensorOf(args[0]));
    if (args[2].kind != Item::Kind::String)
      return bug("prefix_scan wants a kind");
    const std::string kind = args[2].text;
    if (kind != "prod" && kind != "max" && kind != "min")
      return bug("prefix_scan kind " + kind);
    const bool withIndices = kind != "prod";
    if (x->type().rank() == 0) {
      if (!withIndices)
        return Item::ofTensor(x);
      Item list;
      list.kind = Item::Kind::List;
      list.list = {Item::ofTensor(x), Item::ofTensor(node_.scalarConstant(0.0, DType::I64))};
      return list;
    }
    TC_ASSIGN_OR_RETURN(int64_t dim, intOf(args[1]));
    TC_ASSIGN_OR_RETURN(dim, normalizedDim(node_, dim, x->type().rank()));
    const ir::Dim extent = x->type().shape[static_cast<size_t>(dim)];
    if (!extent.isStatic())
      return fail("cumprod/cummax/cummin over the symbolic dim " + extent.str());
    const int64_t n = extent.value();
    // The positions before the first element: 1 for a product; for max/min an index of -1,
    // which never wins (so no value of the dtype need be one that never wins).
    const double fill = withIndices ? 0.0 : 1.0;
    auto slice = [&](Value *value, int64_t start, int64_t end) {
      ir::AttrMap attrs;
      attrs.set("dim", dim);
      attrs.set("start", start);
      attrs.set("end", ir::makeDimAttr(ir::Dim(end)));
      attrs.set("step", int64_t{1});
      return node_.emitInferred(OpKind::Slice, {value}, std::move(attrs));
    };
    // value shifted by k along dim, the first k positions `with`.
    auto shifted = [&](Value *value, int64_t k, double with) -> Expected<Value *> {
      TC_ASSIGN_OR_RETURN(Value * head, slice(value, 0, k));
      ir::AttrMap full;
      full.set("value", with);
      Value *filler = node_.emitTemp(OpKind::Full, {}, head->type(), std::move(full));
      TC_ASSIGN_OR_RETURN(Value * body, slice(value, 0, n - k));
      ir::AttrMap concat;
      concat.set("dim", dim);
      return node_.emitInferred(OpKind::Concat, {filler, body}, std::move(concat));
    };
    Value *values = x;
    Value *indices = nullptr;
    if (withIndices) {
      ir::AttrMap range;
      range.set("start", 0.0);
      range.set("step", 1.0);
      Value *line = node_.emitTemp(OpKind::Arange, {}, ir::TensorType{DType::I64, {extent}},
                                   std::move(range));
      ir::Shape lined(x->type().shape.size(), ir::Dim(1));
      lined[static_cast<size_t>(dim)] = extent;
      ir::AttrMap reshape;
      reshape.set("shape", lined);
      TC_ASSIGN_OR_RETURN(line, node_.emitInferred(OpKind::Reshape, {line}, std::move(reshape)));
      ir::AttrMap expand;
      expand.set("shape", x->type().shape);
      TC_ASSIGN_OR_RETURN(indices, node_.emitInferred(OpKind::Expand, {line}, std::move(expand)));
    }
    Value *zero = withIndices ? node_.scalarConstant(0.0, DType::I64) : nullptr;
    for (int64_t k = 1; k < n; k *= 2) {
      TC_ASSIGN_OR_RETURN(Value * before, shifted(values, k, fill));
      if (!withIndices) {
        TC_ASSIGN_OR_RETURN(values, node_.emitInferred(OpKind::Mul, {values, before}));
        continue;
      }
      TC_ASSIGN_OR_RETURN(Value * beforeIndex, shifted(indices, k, -1.0));
      TC_ASSIGN_OR_RETURN(Value * nan, node_.emitInferred(OpKind::IsNan, {values}));
      TC_ASSIGN_OR_RETURN(Value * wins,
                          node_.emitInferred(kind == "max" ? OpKind::Ge : OpKind::Le,
                                             {values, before}));
      TC_ASSIGN_OR_RETURN(Value * take, node_.emitInferred(OpKind::LogicalOr, {nan, wins}));
      TC_ASSIGN_OR_RETURN(Value * first, node_.emitInferred(OpKind::Lt, {beforeIndex, zero}));
      TC_ASSIGN_OR_RETURN(take, node_.emitInferred(OpKind::LogicalOr, {take, first}));
      TC_ASSIGN_OR_RETURN(values, node_.emitInferred(OpKind::Where, {take, values, before}));
      TC_ASSIGN_OR_RETURN(indices,
                          node_.emitInferred(OpKind::Where, {take, indices, beforeIndex}));
    }
    if (!withIndices)
      return Item::ofTensor(values);
    Item list;
    list.kind = Item::Kind::List;
    list.list = {Item::ofTensor(values), Item::ofTensor(indices)};
    return list;
  }
  if (name == "iota") {
    // iota(n): the i64 vector 0, 1, ..., n-1 (n may be symbolic).
    TC_TRY(need(1));
    TC_ASSIGN_OR_RETURN(ir::Dim n, dimOf(args[0]));
    ir::AttrMap attrs;
    attrs.set("start", 0.0);
    attrs.set("step", 1.0);
    return Item::ofTensor(node_.emitTemp(OpKind::Arange, {}, ir::TensorType{DType::I64, {n}},
                                         std::move(attrs)));
  }
  if (name == "expand_to") {
    // expand_to(x, size): torch's expand (-1 keeps a dim; new dims lead).
    TC_TRY(need(2));
    TC_ASSIGN_OR_RETURN(Value * x, tensorOf(args[0]));
    if (args[1].kind != Item::Kind::List)
      return bug("expand_to wants a size list");
    const ir::Shape &from = x->type().shape;
    int64_t rank = static_cast<int64_t>(args[1].list.size());
    int64_t lead = rank - static_cast<int64_t>(from.size());
    if (lead < 0)
      return fail("expand to fewer dims than the tensor has");
    std::vector<ir::Dim> shape;
    for (int64_t i = 0; i < rank; ++i) {
      TC_ASSIGN_OR_RETURN(ir::Dim d, dimOf(args[1].list[i]));
      if (d.isStatic() && d.value() == -1) {
        if (i < lead)
          return fail("expand with -1 for a new leading dim");
        d = from[i - lead];
      }
      shape.push_back(d);
    }
    ir::AttrMap attrs;
    attrs.set("shape", ir::makeDimsAttr(shape));
    return emit(OpKind::Expand, {args[0]}, std::move(attrs));
  }
  if (name == "unsupported") {
    // unsupported("why"): this case of the op is not compiled (a clear Unsupported error).
    TC_TRY(need(1));
    return fail(args[0].text);
  }

  std::optional<OpKind> op = ir::findOp(name);
  if (!op)
    return bug("unknown function '" + name + "'");
  const ir::OpInfo &info = ir::opInfo(*op);
  ir::AttrMap attrs;
  for (const auto &[keyword, value] : keywords) {
    const ir::AttrSpec *spec = nullptr;
    for (const ir::AttrSpec &candidate : info.attributes)
      if (candidate.name == keyword)
        spec = &candidate;
    if (spec == nullptr)
      return bug(name + " has no attribute '" + keyword + "'");
    if (value.kind == Item::Kind::None)
      continue;
    TC_ASSIGN_OR_RETURN(ir::AttrValue attr, attribute(*spec, value));
    attrs.set(keyword, std::move(attr));
  }
  // A required bool attribute left out is false (keepdim).
  for (const ir::AttrSpec &spec : info.attributes)
    if (spec.type == ir::AttrType::Bool && !spec.optional && !keywords.count(spec.name))
      attrs.set(spec.name, false);
  // A list among the operands spreads into them (concat([a, b], dim=0)).
  std::vector<Item> operands;
  for (Item &arg : args) {
    if (arg.kind == Item::Kind::List)
      operands.insert(operands.end(), arg.list.begin(), arg.list.end());
    else
      operands.push_back(std::move(arg));
  }
  return emit(*op, std::move(operands), std::move(attrs));
}

} // namespace thunderc::frontend::decompose
