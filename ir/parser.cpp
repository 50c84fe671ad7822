// The text-IR parser: reads exactly what ir/printer.cpp writes (plus whitespace and `//`
// comments) back into a Graph. Recursive descent over characters; no separate token stream,
// because symbolic dims (`?max(s0,1)`) are handed raw to parseSymExpr.
#include "ir/parser.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>
#include <map>
#include <variant>

namespace thunderc::ir {
namespace {

bool isNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}
bool isDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

/// A position in the text, 1-based, for messages.
struct Location {
  int line = 1;
  int column = 1;
};

class Parser {
public:
  Parser(std::string_view text, const std::string &sourceName)
      : text_(text), sourceName_(sourceName) {}

  /// graph := 'graph' '@' name '(' inputs ')' '->' '(' types ')' symbols? '{' body '}'
  Expected<std::unique_ptr<Graph>> parse() {
    TC_TRY(expectKeyword("graph"));
    TC_TRY(expect("@"));
    TC_ASSIGN_OR_RETURN(std::string name, parseName("graph name"));
    graph_ = std::make_unique<Graph>(name);
    TC_TRY(parseInputs());
    TC_TRY(expect("->"));
    TC_ASSIGN_OR_RETURN(std::vector<TensorType> outputTypes, parseOutputTypes());
    if (peekKeyword("symbols"))
      TC_TRY(parseSymbols());
    TC_TRY(expect("{"));
    TC_TRY(parseBody(outputTypes));
    TC_TRY(expect("}"));
    skipTrivia();
    if (!atEnd())
      return fail("unexpected text after the graph");
    return std::move(graph_);
  }

private:
  // ---- characters, trivia and errors ----

  bool atEnd() const { return pos_ >= text_.size(); }
  char peekChar(size_t offset = 0) const {
    return pos_ + offset < text_.size() ? text_[pos_ + offset] : '\0';
  }
  void advance(size_t count = 1) {
    for (size_t i = 0; i < count && !atEnd(); ++i, ++pos_) {
      if (text_[pos_] == '\n') {
        ++location_.line;
        location_.column = 1;
      } else {
        ++location_.column;
      }
    }
  }

  /// Skips whitespace and `//` comments up to the next token.
  void skipTrivia() {
    while (!atEnd()) {
      if (std::isspace(static_cast<unsigned char>(peekChar()))) {
        advance();
      } else if (peekChar() == '/' && peekChar(1) == '/') {
        while (!atEnd() && peekChar() != '\n')
          advance();
      } else {
        return;
      }
    }
  }

  /// Skips trivia and returns where the next token starts.
  Location tokenStart() {
    skipTrivia();
    return location_;
  }
  /// The first character of the next token ('\0' at the end).
  char peekToken() {
    skipTrivia();
    return peekChar();
  }

  Error failAt(Location location, const std::string &what) const {
    return invalidInput(sourceName_ + ":" + std::to_string(location.line) + ":" +
                        std::to_string(location.column) + ": " + what);
  }
  /// An error at the next token.
  Error fail(const std::string &what) {
    skipTrivia();
    return failAt(location_, what);
  }

  /// Consumes `token` if it comes next.
  bool consume(std::string_view token) {
    skipTrivia();
    if (text_.substr(pos_, token.size()) != token)
      return false;
    advance(token.size());
    return true;
  }
  Status expect(std::string_view token) {
    if (consume(token))
      return Status::success();
    return fail("expected '" + std::string(token) + "'");
  }

  /// A run of name characters at the cursor, not consumed.
  std::string_view peekWord() {
    skipTrivia();
    size_t end = pos_;
    while (end < text_.size() && isNameChar(text_[end]))
      ++end;
    return text_.substr(pos_, end - pos_);
  }
  bool peekKeyword(std::string_view keyword) { return peekWord() == keyword; }
  Status expectKeyword(std::string_view keyword) {
    if (!peekKeyword(keyword))
      return fail("expected '" + std::string(keyword) + "'");
    advance(keyword.size());
    return Status::success();
  }

  /// name := [A-Za-z0-9_.]+ ; `what` names the expected thing in the error.
  Expected<std::string> parseName(const std::string &what) {
    std::string name(peekWord());
    if (name.empty())
      return fail("expected " + what);
    advance(name.size());
    return name;
  }

  // ---- literals ----

  /// A double-quoted string with \" \\ and \n escapes.
  Expected<std::string> parseString() {
    skipTrivia();
    if (peekChar() != '"')
      return fail("expected string");
    Location start = location_;
    advance();
    std::string value;
    while (!atEnd() && peekChar() != '"' && peekChar() != '\n') {
      char c = peekChar();
      advance();
      if (c != '\\') {
        value += c;
        continue;
      }
      char escaped = peekChar();
      if (escaped != '"' && escaped != '\\' && escaped != 'n')
        return failAt(location_, "unknown escape '\\" + std::string(1, escaped) + "'");
      value += escaped == 'n' ? '\n' : escaped;
      advance();
    }
    if (peekChar() != '"')
      return failAt(start, "unterminated string");
    advance();
    return value;
  }

  /// The text of a number: -?digits(.digits?)?([eE][+-]?digits)?, not consumed.
  std::string_view peekNumber() {
    skipTrivia();
    size_t end = pos_;
    auto digits = [&] {
      while (end < text_.size() && isDigit(text_[end]))
        ++end;
    };
    if (end < text_.size() && text_[end] == '-')
      ++end;
    size_t digitsStart = end;
    digits();
    if (end == digitsStart)
      return {};
    if (end < text_.size() && text_[end] == '.') {
      ++end;
      digits();
    }
    if (end < text_.size() && (text_[end] == 'e' || text_[end] == 'E')) {
      size_t exponent = end + 1;
      if (exponent < text_.size() && (text_[exponent] == '+' || text_[exponent] == '-'))
        ++exponent;
      if (exponent < text_.size() && isDigit(text_[exponent])) {
        end = exponent;
        digits();
      }
    }
    return text_.substr(pos_, end - pos_);
  }

  static bool isFloatText(std::string_view number) {
    return number.find_first_of(".eE") != std::string_view::npos;
  }

  Expected<int64_t> parseInteger() {
    std::string_view number = peekNumber();
    if (number.empty() || isFloatText(number))
      return fail("expected integer");
    int64_t value = 0;
    auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (error != std::errc() || end != number.data() + number.size())
      return fail("integer '" + std::string(number) + "' out of range");
    advance(number.size());
    return value;
  }

  /// A float literal: a number with '.' or an exponent, or inf, -inf, nan.
  Expected<double> parseFloatText(std::string_view number) {
    double value = 0;
    auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (error != std::errc() || end != number.data() + number.size())
      return fail("float '" + std::string(number) + "' out of range");
    advance(number.size());
    return value;
  }

  /// inf, -inf or nan at the cursor, if one is there.
  std::optional<double> consumeSpecialFloat() {
    bool negative = peekChar() == '-';
    std::string_view word = text_.substr(pos_ + (negative ? 1 : 0));
    word = word.substr(0, std::min(word.size(), size_t{4}));
    auto wordIs = [&](std::string_view name) {
      return word.substr(0, name.size()) == name &&
             (word.size() == name.size() || !isNameChar(word[name.size()]));
    };
    if (wordIs("inf")) {
      advance(negative ? 4 : 3);
      return negative ? -std::numeric_limits<double>::infinity()
                      : std::numeric_limits<double>::infinity();
    }
    if (!negative && wordIs("nan")) {
      advance(3);
      return std::numeric_limits<double>::quiet_NaN();
    }
    return std::nullopt;
  }

  // ---- types ----

  /// '?' then a symbolic atom (identifier or integer, optionally followed by a balanced
  /// parenthesized group as in max(...), or a parenthesized group), handed to parseSymExpr.
  Expected<Dim> parseSymbolicDim() {
    Location start = tokenStart();
    TC_TRY(expect("?"));
    size_t begin = pos_;
    while (!atEnd() && isNameChar(peekChar()) && peekChar() != '.')
      advance();
    if (peekChar() == '(')
      TC_TRY(skipBalancedParentheses(start));
    std::string_view atom = text_.substr(begin, pos_ - begin);
    if (atom.empty())
      return failAt(location_, "expected symbolic dim after '?'");
    Expected<SymExpr> expr = parseSymExpr(atom);
    if (!expr.ok())
      return failAt(start, expr.error().message());
    return Dim(*expr);
  }

  Status skipBalancedParentheses(Location start) {
    int depth = 0;
    do {
      if (atEnd() || peekChar() == '\n')
        return failAt(start, "unbalanced '(' in symbolic dim");
      depth += peekChar() == '(' ? 1 : peekChar() == ')' ? -1 : 0;
      advance();
    } while (depth > 0);
    return Status::success();
  }

  /// dim := integer | '?' symbolic-atom; a constant one must not be negative.
  Expected<Dim> parseDim() {
    Location start = tokenStart();
    Dim dim;
    if (peekChar() == '?') {
      TC_ASSIGN_OR_RETURN(dim, parseSymbolicDim());
    } else {
      TC_ASSIGN_OR_RETURN(dim, parseInteger());
    }
    if (dim.isStatic() && dim.value() < 0)
      return failAt(start, "negative dim " + std::to_string(dim.value()));
    return dim;
  }

  /// type := dtype '[' (dim (',' dim)*)? ']'
  Expected<TensorType> parseType() {
    Location start = tokenStart();
    std::string_view word = peekWord();
    if (word.empty())
      return fail("expected type");
    std::optional<DType> dtype = parseDType(word);
    if (!dtype)
      return failAt(start, "unknown dtype '" + std::string(word) + "'");
    advance(word.size());
    TensorType type{*dtype, {}};
    TC_TRY(expect("["));
    if (consume("]"))
      return type;
    do {
      TC_ASSIGN_OR_RETURN(Dim dim, parseDim());
      type.shape.push_back(std::move(dim));
    } while (consume(","));
    TC_TRY(expect("]"));
    return type;
  }

  /// types := type (',' type)*
  Expected<std::vector<TensorType>> parseTypeList() {
    std::vector<TensorType> types;
    do {
      TC_ASSIGN_OR_RETURN(TensorType type, parseType());
      types.push_back(std::move(type));
    } while (consume(","));
    return types;
  }

  // ---- attributes ----

  /// One list element as written: an integer, a float or a '?' dim.
  using ListEntry = std::variant<int64_t, double, Dim>;

  Expected<ListEntry> parseListEntry() {
    if (peekToken() == '?') {
      TC_ASSIGN_OR_RETURN(Dim dim, parseSymbolicDim());
      return ListEntry(dim);
    }
    if (std::optional<double> special = consumeSpecialFloat())
      return ListEntry(*special);
    std::string_view number = peekNumber();
    if (number.empty())
      return fail("expected list element");
    if (isFloatText(number)) {
      TC_ASSIGN_OR_RETURN(double value, parseFloatText(number));
      return ListEntry(value);
    }
    TC_ASSIGN_OR_RETURN(int64_t value, parseInteger());
    return ListEntry(value);
  }

  /// list := '[' (entry (',' entry)*)? ']'; any '?' entry makes it dims, any float entry
  /// floats, otherwise ints (so `[]` reads as ints).
  Expected<AttrValue> parseList() {
    Location start = tokenStart();
    TC_TRY(expect("["));
    std::vector<ListEntry> entries;
    if (!consume("]")) {
      do {
        TC_ASSIGN_OR_RETURN(ListEntry entry, parseListEntry());
        entries.push_back(std::move(entry));
      } while (consume(","));
      TC_TRY(expect("]"));
    }
    return listValue(entries, start);
  }

  template <typename T> static bool anyEntryIs(const std::vector<ListEntry> &entries) {
    return std::any_of(entries.begin(), entries.end(),
                       [](const ListEntry &entry) { return std::holds_alternative<T>(entry); });
  }

  Expected<AttrValue> listValue(const std::vector<ListEntry> &entries, Location start) {
    bool hasDim = anyEntryIs<Dim>(entries);
    bool hasFloat = anyEntryIs<double>(entries);
    if (hasDim && hasFloat)
      return failAt(start, "list mixes floats and symbolic dims");
    std::vector<int64_t> ints;
    std::vector<double> floats;
    std::vector<Dim> dims;
    for (const ListEntry &entry : entries) {
      if (const Dim *dim = std::get_if<Dim>(&entry)) {
        dims.push_back(*dim);
      } else if (const double *real = std::get_if<double>(&entry)) {
        floats.push_back(*real);
      } else {
        int64_t integer = std::get<int64_t>(entry);
        ints.push_back(integer);
        floats.push_back(static_cast<double>(integer));
        dims.push_back(Dim(integer));
      }
    }
    if (hasDim)
      return makeDimsAttr(dims);
    if (hasFloat)
      return AttrValue(floats);
    return AttrValue(ints);
  }

  /// value := int | float | true | false | string | list | '?' dim | dtype
  Expected<AttrValue> parseAttrValue() {
    skipTrivia();
    char c = peekChar();
    if (c == '"') {
      TC_ASSIGN_OR_RETURN(std::string text, parseString());
      return AttrValue(text);
    }
    if (c == '[')
      return parseList();
    if (c == '?') {
      TC_ASSIGN_OR_RETURN(Dim dim, parseSymbolicDim());
      return makeDimAttr(dim);
    }
    if (std::optional<double> special = consumeSpecialFloat())
      return AttrValue(*special);
    if (c == '-' || isDigit(c))
      return parseNumberValue();
    return parseWordValue();
  }

  Expected<AttrValue> parseNumberValue() {
    std::string_view number = peekNumber();
    if (number.empty())
      return fail("expected attribute value");
    if (isFloatText(number)) {
      TC_ASSIGN_OR_RETURN(double value, parseFloatText(number));
      return AttrValue(value);
    }
    TC_ASSIGN_OR_RETURN(int64_t value, parseInteger());
    return AttrValue(value);
  }

  /// true, false or a dtype name.
  Expected<AttrValue> parseWordValue() {
    std::string word(peekWord());
    if (word.empty())
      return fail("expected attribute value");
    std::optional<AttrValue> value;
    if (word == "true" || word == "false")
      value = AttrValue(word == "true");
    else if (std::optional<DType> dtype = parseDType(word))
      value = AttrValue(*dtype);
    if (!value)
      return fail("unknown attribute value '" + word + "'");
    advance(word.size());
    return *value;
  }

  /// attrs := '{' name '=' value (',' name '=' value)* '}'
  Expected<AttrMap> parseAttributes() {
    AttrMap attrs;
    TC_TRY(expect("{"));
    do {
      Location start = tokenStart();
      TC_ASSIGN_OR_RETURN(std::string name, parseName("attribute name"));
      if (attrs.has(name))
        return failAt(start, "duplicate attribute '" + name + "'");
      TC_TRY(expect("="));
      TC_ASSIGN_OR_RETURN(AttrValue value, parseAttrValue());
      attrs.set(name, std::move(value));
    } while (consume(","));
    TC_TRY(expect("}"));
    return attrs;
  }

  // ---- values ----

  /// '%' name, returning the name and where it starts.
  Expected<std::pair<std::string, Location>> parseValueName() {
    Location start = tokenStart();
    if (!consume("%"))
      return fail("expected value name");
    if (!isNameChar(peekChar()))
      return failAt(location_, "expected value name after '%'");
    TC_ASSIGN_OR_RETURN(std::string name, parseName("value name"));
    return std::make_pair(std::move(name), start);
  }

  /// A use of a previously defined value.
  Expected<Value *> parseValueUse() {
    TC_ASSIGN_OR_RETURN(auto nameAndLocation, parseValueName());
    auto it = values_.find(nameAndLocation.first);
    if (it == values_.end())
      return failAt(nameAndLocation.second,
                    "use of undefined value '%" + nameAndLocation.first + "'");
    return it->second;
  }

  Status define(const std::string &name, Location location, Value *value) {
    if (!values_.emplace(name, value).second)
      return failAt(location, "redefinition of value '%" + name + "'");
    return Status::success();
  }

  // ---- graph header ----

  /// inputs := '(' (input (',' input)*)? ')'
  Status parseInputs() {
    TC_TRY(expect("("));
    if (consume(")"))
      return Status::success();
    do {
      TC_TRY(parseInput());
    } while (consume(","));
    return expect(")");
  }

  /// input := '%' name ':' type ('{' ('param'|'buffer'|'constant') '=' string '}')?
  Status parseInput() {
    TC_ASSIGN_OR_RETURN(auto nameAndLocation, parseValueName());
    TC_TRY(expect(":"));
    TC_ASSIGN_OR_RETURN(TensorType type, parseType());
    InputKind kind = InputKind::User;
    std::string weightName;
    if (consume("{")) {
      TC_ASSIGN_OR_RETURN(kind, parseWeightKind());
      TC_TRY(expect("="));
      TC_ASSIGN_OR_RETURN(weightName, parseString());
      TC_TRY(expect("}"));
    }
    Value *input = graph_->addInput(nameAndLocation.first, std::move(type), kind, weightName);
    return define(nameAndLocation.first, nameAndLocation.second, input);
  }

  Expected<InputKind> parseWeightKind() {
    std::string word(peekWord());
    static const std::map<std::string, InputKind> kKinds = {
        {"param", InputKind::Parameter},
        {"buffer", InputKind::Buffer},
        {"constant", InputKind::Constant},
        {"state", InputKind::State}};
    auto it = kKinds.find(word);
    if (it == kKinds.end())
      return fail("expected 'param', 'buffer', 'constant' or 'state'");
    advance(word.size());
    return it->second;
  }

  /// '(' (type (',' type)*)? ')'
  Expected<std::vector<TensorType>> parseOutputTypes() {
    TC_TRY(expect("("));
    if (consume(")"))
      return std::vector<TensorType>{};
    TC_ASSIGN_OR_RETURN(std::vector<TensorType> types, parseTypeList());
    TC_TRY(expect(")"));
    return types;
  }

  /// symbols := 'symbols' '(' name ':' '[' int ',' (int | 'inf') ']' (',' ...)* ')'
  Status parseSymbols() {
    TC_TRY(expectKeyword("symbols"));
    TC_TRY(expect("("));
    do {
      Location start = tokenStart();
      TC_ASSIGN_OR_RETURN(std::string name, parseName("symbol name"));
      if (graph_->symbols().count(name) != 0)
        return failAt(start, "redefinition of symbol '" + name + "'");
      TC_TRY(expect(":"));
      TC_ASSIGN_OR_RETURN(SymbolRange range, parseSymbolRange());
      graph_->symbols()[name] = range;
    } while (consume(","));
    return expect(")");
  }

  Expected<SymbolRange> parseSymbolRange() {
    SymbolRange range;
    TC_TRY(expect("["));
    TC_ASSIGN_OR_RETURN(range.min, parseInteger());
    TC_TRY(expect(","));
    if (peekKeyword("inf")) {
      advance(3);
    } else {
      TC_ASSIGN_OR_RETURN(int64_t max, parseInteger());
      range.max = max;
    }
    TC_TRY(expect("]"));
    return range;
  }

  // ---- body ----

  /// body := node* 'return' (output (',' output)*)?
  /// output := value ('{' 'state' '=' string '}')?   (state outputs follow the user outputs)
  Status parseBody(const std::vector<TensorType> &outputTypes) {
    while (!peekKeyword("return")) {
      if (peekToken() == '\0' || peekToken() == '}')
        return fail("expected 'return'");
      TC_TRY(parseNode());
    }
    Location start = location_;
    TC_TRY(expectKeyword("return"));
    std::vector<Value *> outputs;
    std::vector<std::pair<Value *, std::string>> stateOutputs;
    if (peekToken() == '%') {
      do {
        Location outputStart = tokenStart();
        TC_ASSIGN_OR_RETURN(Value * output, parseValueUse());
        TC_TRY(checkOutputType(outputs.size() + stateOutputs.size(), *output, outputTypes,
                               outputStart));
        if (consume("{")) {
          TC_TRY(expectKeyword("state"));
          TC_TRY(expect("="));
          TC_ASSIGN_OR_RETURN(std::string state, parseString());
          TC_TRY(expect("}"));
          stateOutputs.emplace_back(output, std::move(state));
        } else if (!stateOutputs.empty()) {
          return failAt(outputStart, "a user output after a state output");
        } else {
          outputs.push_back(output);
        }
      } while (consume(","));
    }
    if (outputs.size() + stateOutputs.size() != outputTypes.size())
      return failAt(start, "graph declares " + std::to_string(outputTypes.size()) +
                               " result types but returns " +
                               std::to_string(outputs.size() + stateOutputs.size()) + " values");
    graph_->setOutputs(std::move(outputs));
    for (auto &[value, state] : stateOutputs)
      graph_->addStateOutput(value, std::move(state));
    return Status::success();
  }

  /// The header's result types are printed from the returned values, so they must agree.
  Status checkOutputType(size_t index, const Value &output,
                         const std::vector<TensorType> &outputTypes, Location location) {
    if (index >= outputTypes.size() || output.type() == outputTypes[index])
      return Status::success();
    return failAt(location, "returned value has type " + output.type().str() +
                                " but the graph declares " + outputTypes[index].str());
  }

  /// node := results '=' op '(' operands ')' attrs? ':' types ('loc' '(' string ')')?
  Status parseNode() {
    std::vector<std::pair<std::string, Location>> results;
    do {
      TC_ASSIGN_OR_RETURN(auto result, parseValueName());
      results.push_back(std::move(result));
    } while (consume(","));
    TC_TRY(expect("="));
    TC_ASSIGN_OR_RETURN(OpKind op, parseOpName());
    TC_ASSIGN_OR_RETURN(std::vector<Value *> operands, parseOperands());
    AttrMap attrs;
    if (peekToken() == '{') {
      TC_ASSIGN_OR_RETURN(attrs, parseAttributes());
    }
    TC_TRY(expect(":"));
    Location typesStart = tokenStart();
    TC_ASSIGN_OR_RETURN(std::vector<TensorType> types, parseTypeList());
    if (types.size() != results.size())
      return failAt(typesStart, std::to_string(results.size()) + " result names but " +
                                    std::to_string(types.size()) + " result types");
    std::string loc;
    if (peekKeyword("loc")) {
      TC_TRY(expectKeyword("loc"));
      TC_TRY(expect("("));
      TC_ASSIGN_OR_RETURN(loc, parseString());
      TC_TRY(expect(")"));
    }
    std::vector<TensorType> resultTypes = types;
    Node *node = graph_->appendNode(op, std::move(operands), std::move(types), std::move(attrs));
    node->source().loc = std::move(loc);
    if (peekKeyword("body"))
      TC_TRY(parseNestedBody(*node, resultTypes));
    for (size_t i = 0; i < results.size(); ++i) {
      Value *result = node->result(static_cast<int>(i));
      result->setName(results[i].first);
      TC_TRY(define(results[i].first, results[i].second, result));
    }
    return Status::success();
  }

  /// nested := 'body' '(' ('%' name ':' type (',' ...)*)? ')' '{' body '}'
  /// A fusion's nested graph: its own value names, no access to the enclosing graph's values.
  Status parseNestedBody(Node &node, const std::vector<TensorType> &resultTypes) {
    TC_TRY(expectKeyword("body"));
    std::unique_ptr<Graph> outer = std::move(graph_);
    std::map<std::string, Value *> outerValues = std::move(values_);
    graph_ = std::make_unique<Graph>(std::string(opName(node.op())));
    graph_->symbols() = outer->symbols();
    values_.clear();
    Status parsed = [&]() -> Status {
      TC_TRY(expect("("));
      if (!consume(")")) {
        do {
          TC_ASSIGN_OR_RETURN(auto nameAndLocation, parseValueName());
          TC_TRY(expect(":"));
          TC_ASSIGN_OR_RETURN(TensorType type, parseType());
          Value *input = graph_->addInput(nameAndLocation.first, std::move(type));
          TC_TRY(define(nameAndLocation.first, nameAndLocation.second, input));
        } while (consume(","));
        TC_TRY(expect(")"));
      }
      TC_TRY(expect("{"));
      TC_TRY(parseBody(resultTypes));
      return expect("}");
    }();
    node.setBody(std::move(graph_));
    graph_ = std::move(outer);
    values_ = std::move(outerValues);
    return parsed;
  }

  Expected<OpKind> parseOpName() {
    Location start = tokenStart();
    TC_ASSIGN_OR_RETURN(std::string name, parseName("op name"));
    std::optional<OpKind> op = findOp(name);
    if (!op)
      return failAt(start, "unknown op '" + name + "'");
    return *op;
  }

  /// '(' (value (',' value)*)? ')'
  Expected<std::vector<Value *>> parseOperands() {
    TC_TRY(expect("("));
    std::vector<Value *> operands;
    if (consume(")"))
      return operands;
    do {
      TC_ASSIGN_OR_RETURN(Value * operand, parseValueUse());
      operands.push_back(operand);
    } while (consume(","));
    TC_TRY(expect(")"));
    return operands;
  }

  std::string_view text_;
  std::string sourceName_;
  size_t pos_ = 0;
  Location location_;
  std::unique_ptr<Graph> graph_;
  std::map<std::string, Value *> values_;
};

} // namespace

Expected<std::unique_ptr<Graph>> parseGraph(std::string_view text, const std::string &sourceName) {
  return Parser(text, sourceName).parse();
}

} // namespace thunderc::ir
