// checkPickle: a protocol-2 pickle machine over an arena of small values (no recursion, no
// reference cycles), with libtorch's opcode set and the storage/tensor checks of pt2/pickle_check.h.
#include "frontend/pt2/pickle_check.h"

#include <cstring>
#include <limits>
#include <map>
#include <optional>

namespace thunderc::frontend {
namespace {

enum class Kind : uint8_t { None, Bool, Int, Float, String, Tuple, List, Dict, Global, Storage,
                            Tensor, Object };

struct Value {
  Kind kind = Kind::None;
  uint32_t depth = 0;             ///< containers below this one
  int64_t integer = 0;            ///< Int, Bool; Storage: index into storages
  std::string text;               ///< String; Global: "module name"
  std::vector<uint32_t> items;    ///< Tuple, List (Dict: keys and values alternating)
};

// Bytes per element of the storage classes libtorch's unpickler resolves ("torch.FloatStorage").
std::optional<uint64_t> storageItemSize(const std::string &name) {
  static const std::map<std::string, uint64_t, std::less<>> kSizes = {
      {"ByteStorage", 1},          {"CharStorage", 1},          {"ShortStorage", 2},
      {"IntStorage", 4},           {"LongStorage", 8},          {"HalfStorage", 2},
      {"FloatStorage", 4},         {"DoubleStorage", 8},        {"ComplexHalfStorage", 4},
      {"ComplexFloatStorage", 8},  {"ComplexDoubleStorage", 16}, {"BoolStorage", 1},
      {"BFloat16Storage", 2},      {"QInt8Storage", 1},         {"QUInt8Storage", 1},
      {"QInt32Storage", 4},        {"QUInt4x2Storage", 1},      {"QUInt2x4Storage", 1},
      {"Float8_e5m2Storage", 1},   {"Float8_e4m3fnStorage", 1}, {"Float8_e5m2fnuzStorage", 1},
      {"Float8_e4m3fnuzStorage", 1}, {"UInt16Storage", 2},      {"UInt32Storage", 4},
      {"UInt64Storage", 8},        {"Float8_e8m0fnuStorage", 1}};
  auto it = kSizes.find(name);
  if (it == kSizes.end())
    return std::nullopt;
  return it->second;
}

template <typename T> Status statusOf(Expected<T> result) {
  if (result.ok())
    return Status::success();
  return std::move(result).error();
}

class Machine {
public:
  Machine(std::span<const uint8_t> bytes, const PickleLimits &limits,
          const std::function<int64_t(const std::string &)> &storageBytes)
      : bytes_(bytes), limits_(limits), storageBytes_(storageBytes) {}

  Expected<PickleSummary> run() {
    if (bytes_.size() < 2 || bytes_[0] != 0x80)
      return bad(0, "does not start with the PROTO opcode");
    if (bytes_[1] != 2)
      return bad(1, "is pickle protocol " + std::to_string(bytes_[1]) +
                        "; libtorch reads protocol 2 only");
    pos_ = 2;
    // Every opcode makes at most one value; reserve for small pickles (most of them) at once.
    values_.reserve(std::min<size_t>(bytes_.size() / 2 + 16, 4096));
    memo_.reserve(std::min<size_t>(bytes_.size() / 4 + 16, 4096));
    stack_.reserve(64);
    while (true) {
      if (pos_ >= bytes_.size())
        return bad(pos_, "ends without a STOP opcode");
      const size_t at = pos_;
      const uint8_t opcode = bytes_[pos_++];
      if (opcode == '.') {
        if (stack_.size() != 1)
          return bad(at, "stops with " + std::to_string(stack_.size()) +
                             " values on the stack; expected 1");
        return summary_;
      }
      if (Status status = step(opcode, at); !status.ok())
        return status.error();
    }
  }

private:
  Error bad(size_t at, const std::string &what) const {
    return invalidInput("pickle byte " + std::to_string(at) + ": " + what);
  }

  bool has(size_t count) const { return count <= bytes_.size() - pos_; }

  template <typename T> Expected<T> readLittle(size_t at) {
    if (!has(sizeof(T)))
      return bad(at, "the opcode's argument runs past the end (" +
                         std::to_string(bytes_.size()) + " bytes)");
    T value;
    std::memcpy(&value, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }

  uint32_t push(Value value) {
    values_.push_back(std::move(value));
    const uint32_t index = static_cast<uint32_t>(values_.size() - 1);
    stack_.push_back(index);
    return index;
  }

  Expected<uint32_t> pop(size_t at) {
    if (stack_.empty())
      return bad(at, "pops from an empty stack");
    const uint32_t index = stack_.back();
    stack_.pop_back();
    return index;
  }

  // A container gains `item`: its depth grows and is bounded.
  Status adopt(uint32_t container, uint32_t item, size_t at) {
    const uint32_t depth = values_[item].depth + 1;
    if (depth > values_[container].depth)
      values_[container].depth = depth;
    if (values_[container].depth > limits_.maxDepth)
      return bad(at, "nests containers deeper than " + std::to_string(limits_.maxDepth) +
                         " levels");
    values_[container].items.push_back(item);
    return Status::success();
  }

  Expected<uint32_t> makeContainer(Kind kind, size_t from, size_t at) {
    Value container;
    container.kind = kind;
    values_.push_back(std::move(container));
    const uint32_t index = static_cast<uint32_t>(values_.size() - 1);
    for (size_t i = from; i < stack_.size(); ++i)
      TC_TRY(adopt(index, stack_[i], at));
    stack_.resize(from);
    stack_.push_back(index);
    return index;
  }

  Expected<size_t> popMark(size_t at) {
    if (marks_.empty())
      return bad(at, "closes a MARK that was never opened");
    const size_t mark = marks_.back();
    marks_.pop_back();
    if (mark > stack_.size())
      return bad(at, "closes a MARK below the values still on the stack");
    return mark;
  }

  Expected<std::string> readLine(size_t at) {
    const size_t limit = std::min(bytes_.size(), pos_ + size_t(4096));
    for (size_t i = pos_; i < limit; ++i) {
      if (bytes_[i] != '\n')
        continue;
      std::string line(reinterpret_cast<const char *>(bytes_.data() + pos_), i - pos_);
      pos_ = i + 1;
      return line;
    }
    return bad(at, "a GLOBAL name has no end of line within 4096 bytes");
  }

  // libtorch grows its memo table to the index it is given: an index far beyond the values
  // made so far is refused (the pickler numbers them from 0 as it stores them).
  Status memoPut(uint64_t id, size_t at) {
    if (stack_.empty())
      return bad(at, "memoizes from an empty stack");
    if (id > values_.size() + 16)
      return bad(at, "memo index " + std::to_string(id) + " is far beyond what was stored");
    if (id >= memo_.size())
      memo_.resize(id + 1, kUnset);
    memo_[id] = stack_.back();
    return Status::success();
  }

  Status memoGet(uint64_t id, size_t at) {
    if (id >= memo_.size() || memo_[id] == kUnset)
      return bad(at, "reads memo entry " + std::to_string(id) + ", which was never stored");
    stack_.push_back(memo_[id]);
    return Status::success();
  }

  const Value &value(uint32_t index) const { return values_[index]; }

  Expected<int64_t> intItem(uint32_t tuple, size_t item, const char *what, size_t at) {
    const Value &t = value(tuple);
    if (item >= t.items.size() || value(t.items[item]).kind != Kind::Int)
      return bad(at, std::string("the tensor's ") + what + " is not an integer");
    return value(t.items[item]).integer;
  }

  Expected<std::vector<int64_t>> intTuple(uint32_t tuple, size_t item, const char *what,
                                          size_t at) {
    const Value &t = value(tuple);
    if (item >= t.items.size() || value(t.items[item]).kind != Kind::Tuple)
      return bad(at, std::string("the tensor's ") + what + " is not a tuple of integers");
    std::vector<int64_t> list;
    for (uint32_t element : value(t.items[item]).items) {
      if (value(element).kind != Kind::Int)
        return bad(at, std::string("the tensor's ") + what + " is not a tuple of integers");
      list.push_back(value(element).integer);
    }
    return list;
  }

  // ('storage', torch.<T>Storage, key, location, numel) -> a Storage value.
  Status persistentLoad(size_t at) {
    TC_ASSIGN_OR_RETURN(uint32_t id, pop(at));
    const Value &tuple = value(id);
    auto item = [&](size_t i) -> const Value * {
      return tuple.kind == Kind::Tuple && i < tuple.items.size() ? &value(tuple.items[i])
                                                                 : nullptr;
    };
    const Value *tag = item(0), *type = item(1), *key = item(2), *location = item(3),
                *numel = item(4);
    if (!tag || tag->kind != Kind::String || tag->text != "storage" || !type ||
        type->kind != Kind::Global || !key || key->kind != Kind::String || !location ||
        location->kind != Kind::String || !numel || numel->kind != Kind::Int)
      return bad(at, "a persistent id is not ('storage', torch.<T>Storage, key, location, "
                     "numel)");
    const std::string typeName = type->text.substr(type->text.find(' ') + 1);
    std::optional<uint64_t> itemSize =
        type->text.rfind("torch ", 0) == 0 ? storageItemSize(typeName) : std::nullopt;
    if (!itemSize)
      return bad(at, "storage type '" + type->text + "' is not one libtorch reads");
    PickleStorage storage{key->text, typeName, *itemSize, numel->integer, at};
    if (storage.numel < 0)
      return bad(at, "storage '" + key->text + "' has " + std::to_string(storage.numel) +
                         " elements");
    const uint64_t needed = static_cast<uint64_t>(storage.numel) * *itemSize;
    if (storage.numel > 0) {
      const int64_t record = storageBytes_(key->text);
      if (record < 0)
        return bad(at, "storage '" + key->text + "' has no record in the archive");
      if (static_cast<uint64_t>(storage.numel) > std::numeric_limits<uint64_t>::max() / 16 ||
          needed > static_cast<uint64_t>(record))
        return bad(at, "storage '" + key->text + "' (" + typeName + ", " +
                           std::to_string(storage.numel) + " elements) needs " +
                           std::to_string(needed) + " bytes, its record has " +
                           std::to_string(record));
    }
    summary_.storages.push_back(storage);
    Value result;
    result.kind = Kind::Storage;
    result.integer = static_cast<int64_t>(summary_.storages.size() - 1);
    push(std::move(result));
    return Status::success();
  }

  // torch._utils._rebuild_tensor_v2(storage, offset, size, stride, ...): the tensor's
  // elements must lie inside the storage.
  Status rebuildTensor(uint32_t args, size_t at) {
    const Value &tuple = value(args);
    if (tuple.kind != Kind::Tuple || tuple.items.size() < 4 ||
        value(tuple.items[0]).kind != Kind::Storage)
      return bad(at, "a tensor is rebuilt from something that is not (storage, offset, size, "
                     "stride, ...)");
    const PickleStorage &storage =
        summary_.storages[static_cast<size_t>(value(tuple.items[0]).integer)];
    TC_ASSIGN_OR_RETURN(int64_t offset, intItem(args, 1, "storage offset", at));
    TC_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, intTuple(args, 2, "size", at));
    TC_ASSIGN_OR_RETURN(std::vector<int64_t> strides, intTuple(args, 3, "stride", at));
    if (sizes.size() != strides.size())
      return bad(at, "a tensor has " + std::to_string(sizes.size()) + " sizes and " +
                         std::to_string(strides.size()) + " strides");
    if (offset < 0)
      return bad(at, "a tensor has the negative storage offset " + std::to_string(offset));
    // The last element's index, in 128 bits so that no product overflows.
    __int128 last = offset;
    bool empty = false;
    for (size_t d = 0; d < sizes.size(); ++d) {
      if (sizes[d] < 0 || strides[d] < 0)
        return bad(at, "a tensor has a negative size or stride in dim " + std::to_string(d));
      if (sizes[d] == 0)
        empty = true;
      else
        last += static_cast<__int128>(sizes[d] - 1) * strides[d];
      if (last > std::numeric_limits<int64_t>::max())
        return bad(at, "a tensor's extent overflows");
    }
    if (!empty && last >= storage.numel)
      return bad(at, "a tensor reaches element " + std::to_string(static_cast<int64_t>(last)) +
                         " of storage '" + storage.key + "', which has " +
                         std::to_string(storage.numel));
    ++summary_.tensors;
    Value tensor;
    tensor.kind = Kind::Tensor;
    push(std::move(tensor));
    return Status::success();
  }

  // REDUCE and BUILD: libtorch calls the global below the argument.
  Status call(size_t at) {
    TC_ASSIGN_OR_RETURN(uint32_t args, pop(at));
    TC_ASSIGN_OR_RETURN(uint32_t callee, pop(at));
    const Value &function = value(callee);
    if (function.kind == Kind::Global &&
        (function.text == "torch._utils _rebuild_tensor_v2" ||
         function.text == "torch._utils _rebuild_qtensor"))
      return rebuildTensor(args, at);
    if (function.kind == Kind::Global) {
      Value object;
      object.kind = Kind::Object;
      object.depth = std::max(function.depth, value(args).depth) + 1;
      if (object.depth > limits_.maxDepth)
        return bad(at, "nests containers deeper than " + std::to_string(limits_.maxDepth) +
                           " levels");
      push(std::move(object));
      return Status::success();
    }
    return bad(at, "calls something that is not a GLOBAL class or function");
  }

  Status step(uint8_t opcode, size_t at) {
    switch (opcode) {
    case ']': { Value v; v.kind = Kind::List; push(std::move(v)); return Status::success(); }
    case '}': { Value v; v.kind = Kind::Dict; push(std::move(v)); return Status::success(); }
    case ')': { Value v; v.kind = Kind::Tuple; push(std::move(v)); return Status::success(); }
    case 'N': push(Value{}); return Status::success();
    case 0x88:
    case 0x89: {
      Value v;
      v.kind = Kind::Bool;
      v.integer = opcode == 0x88;
      push(std::move(v));
      return Status::success();
    }
    case 'K': case 'M': case 'J': {
      Value v;
      v.kind = Kind::Int;
      if (opcode == 'K') {
        TC_ASSIGN_OR_RETURN(uint8_t x, readLittle<uint8_t>(at));
        v.integer = x;
      } else if (opcode == 'M') {
        TC_ASSIGN_OR_RETURN(uint16_t x, readLittle<uint16_t>(at));
        v.integer = x;
      } else {
        TC_ASSIGN_OR_RETURN(int32_t x, readLittle<int32_t>(at));
        v.integer = x;
      }
      push(std::move(v));
      return Status::success();
    }
    case 0x8a: { // LONG1: libtorch reads 8-byte ones only
      TC_ASSIGN_OR_RETURN(uint8_t length, readLittle<uint8_t>(at));
      if (length != 8)
        return bad(at, "a LONG1 of " + std::to_string(length) + " bytes (libtorch reads 8)");
      TC_ASSIGN_OR_RETURN(int64_t x, readLittle<int64_t>(at));
      Value v;
      v.kind = Kind::Int;
      v.integer = x;
      push(std::move(v));
      return Status::success();
    }
    case 'G': {
      TC_TRY(readLittle<uint64_t>(at));
      Value v;
      v.kind = Kind::Float;
      push(std::move(v));
      return Status::success();
    }
    case 'X': {
      TC_ASSIGN_OR_RETURN(uint32_t length, readLittle<uint32_t>(at));
      if (!has(length) || length > limits_.maxStringBytes)
        return bad(at, "a string of " + std::to_string(length) + " bytes runs past the end (" +
                           std::to_string(bytes_.size()) + " bytes)");
      Value v;
      v.kind = Kind::String;
      // Only short strings matter (storage tags, keys, locations); keep at most 256 bytes.
      v.text.assign(reinterpret_cast<const char *>(bytes_.data() + pos_),
                    std::min<size_t>(length, 256));
      pos_ += length;
      push(std::move(v));
      return Status::success();
    }
    case '(':
      if (marks_.size() >= limits_.maxDepth)
        return bad(at, "opens more than " + std::to_string(limits_.maxDepth) + " MARKs");
      marks_.push_back(stack_.size());
      return Status::success();
    case 't': {
      TC_ASSIGN_OR_RETURN(size_t mark, popMark(at));
      return statusOf(makeContainer(Kind::Tuple, mark, at));
    }
    case 0x85: case 0x86: case 0x87: {
      const size_t count = opcode - 0x84u;
      if (stack_.size() < count)
        return bad(at, "makes a tuple of " + std::to_string(count) + " from " +
                           std::to_string(stack_.size()) + " values");
      return statusOf(makeContainer(Kind::Tuple, stack_.size() - count, at));
    }
    case 'l': {
      TC_ASSIGN_OR_RETURN(size_t mark, popMark(at));
      return statusOf(makeContainer(Kind::List, mark, at));
    }
    case 'd': {
      TC_ASSIGN_OR_RETURN(size_t mark, popMark(at));
      if ((stack_.size() - mark) % 2 != 0)
        return bad(at, "a DICT has a key without a value");
      return statusOf(makeContainer(Kind::Dict, mark, at));
    }
    case 'e': { // APPENDS: libtorch keeps the mark (readList pops it)
      TC_ASSIGN_OR_RETURN(size_t mark, popMark(at));
      if (mark == 0)
        return bad(at, "APPENDS has no list below its MARK");
      const uint32_t list = stack_[mark - 1];
      if (value(list).kind != Kind::List)
        return bad(at, "APPENDS to something that is not a list");
      for (size_t i = mark; i < stack_.size(); ++i)
        TC_TRY(adopt(list, stack_[i], at));
      stack_.resize(mark);
      return Status::success();
    }
    case 'u': {
      TC_ASSIGN_OR_RETURN(size_t mark, popMark(at));
      if (mark == 0 || value(stack_[mark - 1]).kind != Kind::Dict)
        return bad(at, "SETITEMS on something that is not a dict");
      if ((stack_.size() - mark) % 2 != 0)
        return bad(at, "SETITEMS has a key without a value");
      const uint32_t dict = stack_[mark - 1];
      for (size_t i = mark; i < stack_.size(); ++i)
        TC_TRY(adopt(dict, stack_[i], at));
      stack_.resize(mark);
      return Status::success();
    }
    case 's': {
      if (stack_.size() < 3 || value(stack_[stack_.size() - 3]).kind != Kind::Dict)
        return bad(at, "SETITEM on something that is not a dict");
      const uint32_t dict = stack_[stack_.size() - 3];
      TC_TRY(adopt(dict, stack_[stack_.size() - 2], at));
      TC_TRY(adopt(dict, stack_[stack_.size() - 1], at));
      stack_.resize(stack_.size() - 2);
      return Status::success();
    }
    case 'q': {
      TC_ASSIGN_OR_RETURN(uint8_t id, readLittle<uint8_t>(at));
      return memoPut(id, at);
    }
    case 'r': {
      TC_ASSIGN_OR_RETURN(uint32_t id, readLittle<uint32_t>(at));
      return memoPut(id, at);
    }
    case 'h': {
      TC_ASSIGN_OR_RETURN(uint8_t id, readLittle<uint8_t>(at));
      return memoGet(id, at);
    }
    case 'j': {
      TC_ASSIGN_OR_RETURN(uint32_t id, readLittle<uint32_t>(at));
      return memoGet(id, at);
    }
    case 'c': {
      TC_ASSIGN_OR_RETURN(std::string module, readLine(at));
      TC_ASSIGN_OR_RETURN(std::string name, readLine(at));
      Value v;
      v.kind = Kind::Global;
      v.text = module + " " + name;
      push(std::move(v));
      return Status::success();
    }
    case 0x81: // NEWOBJ: libtorch drops the (empty) argument tuple
      return statusOf(pop(at));
    case 'R':
    case 'b':
      return call(at);
    case 'Q':
      return persistentLoad(at);
    default:
      return bad(at, "opcode 0x" + hex(opcode) + " is not one libtorch's unpickler reads");
    }
  }

  static std::string hex(uint8_t byte) {
    static const char *digits = "0123456789abcdef";
    return {digits[byte >> 4], digits[byte & 15]};
  }

  std::span<const uint8_t> bytes_;
  const PickleLimits &limits_;
  const std::function<int64_t(const std::string &)> &storageBytes_;
  size_t pos_ = 0;
  std::vector<Value> values_;
  std::vector<uint32_t> stack_;
  std::vector<size_t> marks_;
  static constexpr uint32_t kUnset = UINT32_MAX;
  std::vector<uint32_t> memo_; ///< value index per memo id, kUnset where none was stored
  PickleSummary summary_;
};

} // namespace

Expected<PickleSummary> checkPickle(std::span<const uint8_t> bytes, const PickleLimits &limits,
                                    const std::function<int64_t(const std::string &)> &storageBytes) {
  return Machine(bytes, limits, storageBytes).run();
}

} // namespace thunderc::frontend
