// The recurrent converters (aten/converters.h). A recurrent layer is
// unrolled over its static sequence length, per layer and direction:
//   1. one GEMM projects the input of every time step at once: gx = x @ W_ih^T + b_ih
//      ([T, B, gates * H]), the bulk of the arithmetic;
//   2. each step adds the recurrent GEMM h @ W_hh^T + b_hh to its row of gx and applies the
//      cell's gates (sigmoid/tanh/relu and elementwise products, which the optimizer fuses);
//   3. the steps' hidden states are concatenated into the output, a bidirectional layer's two
//      directions side by side, and feed the next layer.
// The gate order and the formulas are ATen's (aten/src/ATen/native/RNN.cpp): LSTM gates
// i, f, g, o; GRU gates r, z, n with h' = (h - n) * z + n.
#include "frontend/aten/converters.h"

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "ir/shape_inference.h"

namespace thunderc::frontend {
namespace {

enum class CellKind { Lstm, Gru, RnnTanh, RnnRelu };

const char *cellName(CellKind kind) {
  switch (kind) {
  case CellKind::Lstm:
    return "lstm";
  case CellKind::Gru:
    return "gru";
  case CellKind::RnnTanh:
    return "rnn_tanh";
  case CellKind::RnnRelu:
    return "rnn_relu";
  }
  return "";
}

/// The number of gates stacked in W_ih / W_hh.
int64_t gateCount(CellKind kind) {
  switch (kind) {
  case CellKind::Lstm:
    return 4;
  case CellKind::Gru:
    return 3;
  default:
    return 1;
  }
}

/// `value` as a message shows it ("0.5", not to_string's "0.500000").
std::string shortNumber(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

// ---- emission helpers ----

Expected<Value *> binary(NodeImport &node, OpKind op, Value *a, Value *b) {
  return node.emitInferred(op, {a, b});
}

Expected<Value *> unary(NodeImport &node, OpKind op, Value *a) {
  return node.emitInferred(op, {a});
}

/// x @ weight^T (+ bias).
Expected<Value *> linear(NodeImport &node, Value *x, Value *weight, Value *bias) {
  std::vector<Value *> operands{x, weight};
  if (bias)
    operands.push_back(bias);
  return node.emitInferred(OpKind::Linear, std::move(operands));
}

Expected<Value *> select(NodeImport &node, Value *x, int64_t dim, int64_t index) {
  AttrMap attrs;
  attrs.set("dim", dim);
  attrs.set("index", index);
  return node.emitInferred(OpKind::Select, {x}, std::move(attrs));
}

Expected<Value *> unsqueeze(NodeImport &node, Value *x, int64_t dim) {
  AttrMap attrs;
  attrs.set("dim", dim);
  return node.emitInferred(OpKind::Unsqueeze, {x}, std::move(attrs));
}

Expected<Value *> permute(NodeImport &node, Value *x, std::vector<int64_t> dims) {
  AttrMap attrs;
  attrs.set("dims", std::move(dims));
  return node.emitInferred(OpKind::Permute, {x}, std::move(attrs));
}

Expected<Value *> concat(NodeImport &node, std::vector<Value *> parts, int64_t dim) {
  if (parts.size() == 1)
    return parts[0];
  AttrMap attrs;
  attrs.set("dim", dim);
  return node.emitInferred(OpKind::Concat, std::move(parts), std::move(attrs));
}

/// `values` (same shape) stacked along a new leading dim.
Expected<Value *> stackLeading(NodeImport &node, const std::vector<Value *> &values) {
  std::vector<Value *> parts;
  for (Value *value : values) {
    TC_ASSIGN_OR_RETURN(Value * part, unsqueeze(node, value, 0));
    parts.push_back(part);
  }
  return concat(node, std::move(parts), 0);
}

/// Gate `index` of `gates`: the index-th of the equal chunks of size `size` along the last dim.
Expected<Value *> gate(NodeImport &node, Value *gates, int64_t index, int64_t size) {
  AttrMap attrs;
  attrs.set("dim", gates->type().rank() - 1);
  attrs.set("end", ir::makeDimAttr(ir::Dim((index + 1) * size)));
  attrs.set("start", index * size);
  attrs.set("step", int64_t{1});
  return node.emitInferred(OpKind::Slice, {gates}, std::move(attrs));
}

/// Makes `value` the exported output `index`; its type must be the one the exporter recorded.
Status bindResult(NodeImport &node, int index, Value *value) {
  TC_ASSIGN_OR_RETURN(ir::TensorType recorded, node.outputType(index));
  if (!(value->type() == recorded))
    return invalidInput("node '" + node.name() + "': output " + std::to_string(index) +
                        " comes out as " + value->type().str() + " but the exporter recorded " +
                        recorded.str());
  value->setName(node.outputName(index));
  node.bindOutput(index, value);
  return Status::success();
}

// ---- one cell step ----

/// The weights of one layer and direction (or of one cell); biases and w_hr may be null.
struct CellWeights {
  Value *inputWeight = nullptr;  ///< W_ih [gates * H, input features]
  Value *hiddenWeight = nullptr; ///< W_hh [gates * H, H_out]
  Value *inputBias = nullptr;    ///< b_ih [gates * H]
  Value *hiddenBias = nullptr;   ///< b_hh [gates * H]
  Value *projection = nullptr;   ///< W_hr [H_out, H] (LSTM with proj_size)
};

/// The recurrent state: h, and c for an LSTM.
struct CellState {
  Value *h = nullptr;
  Value *c = nullptr;
};

/// One step: `inputGates` is x_t @ W_ih^T + b_ih ([..., gates * H]); returns the next state.
Expected<CellState> cellStep(NodeImport &node, CellKind kind, const CellWeights &weights,
                             Value *inputGates, CellState state) {
  TC_ASSIGN_OR_RETURN(Value * hiddenGates,
                      linear(node, state.h, weights.hiddenWeight, weights.hiddenBias));
  int64_t size = weights.hiddenWeight->type().shape[0].value() / gateCount(kind);
  switch (kind) {
  case CellKind::RnnTanh:
  case CellKind::RnnRelu: {
    TC_ASSIGN_OR_RETURN(Value * sum, binary(node, OpKind::Add, inputGates, hiddenGates));
    TC_ASSIGN_OR_RETURN(Value * h,
                        unary(node, kind == CellKind::RnnTanh ? OpKind::Tanh : OpKind::Relu, sum));
    return CellState{h, nullptr};
  }
  case CellKind::Lstm: {
    TC_ASSIGN_OR_RETURN(Value * gates, binary(node, OpKind::Add, inputGates, hiddenGates));
    Value *activated[4];
    for (int64_t i = 0; i < 4; ++i) {
      TC_ASSIGN_OR_RETURN(Value * chunk, gate(node, gates, i, size));
      TC_ASSIGN_OR_RETURN(activated[i],
                          unary(node, i == 2 ? OpKind::Tanh : OpKind::Sigmoid, chunk));
    }
    TC_ASSIGN_OR_RETURN(Value * kept, binary(node, OpKind::Mul, activated[1], state.c));
    TC_ASSIGN_OR_RETURN(Value * added, binary(node, OpKind::Mul, activated[0], activated[2]));
    TC_ASSIGN_OR_RETURN(Value * c, binary(node, OpKind::Add, kept, added));
    TC_ASSIGN_OR_RETURN(Value * squashed, unary(node, OpKind::Tanh, c));
    TC_ASSIGN_OR_RETURN(Value * h, binary(node, OpKind::Mul, activated[3], squashed));
    if (weights.projection) {
      TC_ASSIGN_OR_RETURN(h, linear(node, h, weights.projection, nullptr));
    }
    return CellState{h, c};
  }
  case CellKind::Gru: {
    Value *input[3];
    Value *hidden[3];
    for (int64_t i = 0; i < 3; ++i) {
      TC_ASSIGN_OR_RETURN(input[i], gate(node, inputGates, i, size));
      TC_ASSIGN_OR_RETURN(hidden[i], gate(node, hiddenGates, i, size));
    }
    TC_ASSIGN_OR_RETURN(Value * resetSum, binary(node, OpKind::Add, input[0], hidden[0]));
    TC_ASSIGN_OR_RETURN(Value * reset, unary(node, OpKind::Sigmoid, resetSum));
    TC_ASSIGN_OR_RETURN(Value * updateSum, binary(node, OpKind::Add, input[1], hidden[1]));
    TC_ASSIGN_OR_RETURN(Value * update, unary(node, OpKind::Sigmoid, updateSum));
    TC_ASSIGN_OR_RETURN(Value * gatedHidden, binary(node, OpKind::Mul, hidden[2], reset));
    TC_ASSIGN_OR_RETURN(Value * newSum, binary(node, OpKind::Add, input[2], gatedHidden));
    TC_ASSIGN_OR_RETURN(Value * candidate, unary(node, OpKind::Tanh, newSum));
    TC_ASSIGN_OR_RETURN(Value * difference, binary(node, OpKind::Sub, state.h, candidate));
    TC_ASSIGN_OR_RETURN(Value * scaled, binary(node, OpKind::Mul, difference, update));
    TC_ASSIGN_OR_RETURN(Value * h, binary(node, OpKind::Add, scaled, candidate));
    return CellState{h, nullptr};
  }
  }
  return CellState{};
}

/// Checks one weight's shape against what the cell needs: [rows, cols].
Status checkWeight(NodeImport &node, const Value *weight, const char *what, int64_t rows,
                   const ir::Dim &cols) {
  const ir::TensorType &type = weight->type();
  if (type.rank() == 2 && type.shape[0] == ir::Dim(rows) && type.shape[1] == cols)
    return Status::success();
  return invalidInput("node '" + node.name() + "': " + what + " is " + type.str() + ", expected [" +
                      std::to_string(rows) + ", " + cols.str() + "]");
}

Status checkBias(NodeImport &node, const Value *bias, const char *what, int64_t size) {
  if (!bias || (bias->type().rank() == 1 && bias->type().shape[0] == ir::Dim(size)))
    return Status::success();
  return invalidInput("node '" + node.name() + "': " + what + " is " + bias->type().str() +
                      ", expected [" + std::to_string(size) + "]");
}

/// Checks the weights of one layer and direction against an input of `inputFeatures`: W_hh
/// has gates * H rows, W_ih as many, the biases as many elements, and W_hr (if any) projects
/// H onto W_hh's columns.
Status checkCellWeights(NodeImport &node, CellKind kind, const CellWeights &weights,
                                   const ir::Dim &inputFeatures) {
  const ir::TensorType &hidden = weights.hiddenWeight->type();
  if (hidden.rank() != 2 || !hidden.shape[0].isStatic() || !hidden.shape[1].isStatic() ||
      hidden.shape[0].value() % gateCount(kind) != 0)
    return invalidInput("node '" + node.name() + "': " + cellName(kind) + " weight_hh " +
                        hidden.str() + " is not [" + std::to_string(gateCount(kind)) +
                        " * hidden_size, hidden_size]");
  int64_t rows = hidden.shape[0].value();
  int64_t size = rows / gateCount(kind);
  int64_t outSize = hidden.shape[1].value();
  TC_TRY(checkWeight(node, weights.inputWeight, "weight_ih", rows, inputFeatures));
  TC_TRY(checkBias(node, weights.inputBias, "bias_ih", rows));
  TC_TRY(checkBias(node, weights.hiddenBias, "bias_hh", rows));
  if (weights.projection) {
    TC_TRY(checkWeight(node, weights.projection, "weight_hr", outSize, ir::Dim(size)));
  } else if (outSize != size) {
    return invalidInput("node '" + node.name() + "': weight_hh " + hidden.str() +
                        " is not square and no weight_hr projects the hidden state");
  }
  for (const Value *weight : {weights.inputWeight, weights.hiddenWeight, weights.inputBias,
                              weights.hiddenBias, weights.projection})
    if (weight && weight->type().dtype != hidden.dtype)
      return invalidInput("node '" + node.name() + "': the weights mix dtypes " +
                          std::string(ir::dtypeName(weight->type().dtype)) + " and " +
                          std::string(ir::dtypeName(hidden.dtype)));
  return Status::success();
}

// ---- whole layers ----

/// The arguments of lstm/gru/rnn_*.input.
struct RecurrentArgs {
  CellKind kind = CellKind::Lstm;
  bool hasBiases = true;
  int64_t numLayers = 1;
  bool bidirectional = false;
  bool batchFirst = false;
};

/// The weights of every layer and direction, from the flat `params` list: per layer and
/// direction w_ih, w_hh, then b_ih, b_hh when has_biases, then w_hr for a projected LSTM.
Expected<std::vector<CellWeights>> splitParams(NodeImport &node, const RecurrentArgs &args,
                                               const std::vector<Value *> &params) {
  int64_t cells = args.numLayers * (args.bidirectional ? 2 : 1);
  int64_t perCell = args.hasBiases ? 4 : 2;
  auto count = static_cast<int64_t>(params.size());
  bool projected = args.kind == CellKind::Lstm && count == cells * (perCell + 1);
  if (projected)
    ++perCell;
  if (count != cells * perCell)
    return invalidInput("node '" + node.name() + "': " + std::to_string(count) + " params for " +
                        std::to_string(cells) + " layer(s) x direction(s) of " +
                        std::to_string(perCell) + " tensors each");
  std::vector<CellWeights> weights;
  for (int64_t cell = 0; cell < cells; ++cell) {
    Value *const *p = &params[static_cast<size_t>(cell * perCell)];
    CellWeights w;
    w.inputWeight = p[0];
    w.hiddenWeight = p[1];
    if (args.hasBiases) {
      w.inputBias = p[2];
      w.hiddenBias = p[3];
    }
    if (projected)
      w.projection = p[perCell - 1];
    weights.push_back(w);
  }
  return weights;
}

/// One direction of one layer over the time-major sequence x [T, B, features]: the hoisted
/// input GEMM, then the steps in order (reversed for the backward direction). Returns the
/// hidden states in time order and leaves the final state in `state`.
Expected<std::vector<Value *>> runDirection(NodeImport &node, CellKind kind,
                                            const CellWeights &weights, Value *x, bool reverse,
                                            CellState &state) {
  TC_ASSIGN_OR_RETURN(Value * inputGates,
                      linear(node, x, weights.inputWeight, weights.inputBias));
  int64_t steps = x->type().shape[0].value();
  std::vector<Value *> outputs(static_cast<size_t>(steps));
  for (int64_t i = 0; i < steps; ++i) {
    int64_t t = reverse ? steps - 1 - i : i;
    TC_ASSIGN_OR_RETURN(Value * stepGates, select(node, inputGates, 0, t));
    TC_ASSIGN_OR_RETURN(state, cellStep(node, kind, weights, stepGates, state));
    outputs[static_cast<size_t>(t)] = state.h;
  }
  return outputs;
}

Status importRecurrentLayer(NodeImport &node, CellKind kind) {
  RecurrentArgs args;
  args.kind = kind;
  TC_ASSIGN_OR_RETURN(Value * input, node.tensor("input"));
  TC_ASSIGN_OR_RETURN(std::vector<Value *> params, node.tensorList("params"));
  TC_ASSIGN_OR_RETURN(args.hasBiases, node.boolArg("has_biases"));
  TC_ASSIGN_OR_RETURN(args.numLayers, node.intArg("num_layers"));
  TC_ASSIGN_OR_RETURN(double dropout, node.floatArg("dropout"));
  TC_ASSIGN_OR_RETURN(bool train, node.boolArg("train"));
  TC_ASSIGN_OR_RETURN(args.bidirectional, node.boolArg("bidirectional"));
  TC_ASSIGN_OR_RETURN(args.batchFirst, node.boolArg("batch_first"));
  std::vector<Value *> initial;
  if (kind == CellKind::Lstm) {
    TC_ASSIGN_OR_RETURN(initial, node.tensorList("hx"));
    if (initial.size() != 2)
      return invalidInput("node '" + node.name() + "': lstm hx holds " +
                          std::to_string(initial.size()) + " tensors, expected [h0, c0]");
  } else {
    TC_ASSIGN_OR_RETURN(Value * h0, node.tensor("hx"));
    initial.push_back(h0);
  }
  if (args.numLayers < 1)
    return invalidInput("node '" + node.name() + "': num_layers " +
                        std::to_string(args.numLayers) + " (must be at least 1)");
  if (train && dropout > 0 && args.numLayers > 1)
    return node.unsupportedFeature("dropout " + shortNumber(dropout) +
                                   " between layers in training mode; export in eval mode");
  const ir::TensorType &inputType = input->type();
  if (inputType.rank() != 3)
    return invalidInput("node '" + node.name() + "': " + cellName(kind) + " input " +
                        inputType.str() + " must be 3-d");
  const ir::Dim &length = inputType.shape[args.batchFirst ? 1 : 0];
  if (!length.isStatic())
    return node.unsupportedFeature(std::string(cellName(kind)) + " over the symbolic sequence " +
                                   "length " + length.str() + ": the sequence length must be " +
                                   "static to unroll the recurrence");
  if (length.value() == 0)
    return node.unsupportedFeature(std::string(cellName(kind)) + " over an empty sequence");
  TC_ASSIGN_OR_RETURN(std::vector<CellWeights> weights, splitParams(node, args, params));
  int64_t directions = args.bidirectional ? 2 : 1;
  for (Value *state : initial)
    if (state->type().rank() != 3 || state->type().shape[0] != ir::Dim(weights.size()))
      return invalidInput("node '" + node.name() + "': initial state " + state->type().str() +
                          " is not [num_layers * directions = " +
                          std::to_string(weights.size()) + ", batch, hidden]");

  // Time-major from here on: [T, B, features].
  Value *x = input;
  if (args.batchFirst) {
    TC_ASSIGN_OR_RETURN(x, permute(node, x, {1, 0, 2}));
  }
  std::vector<Value *> finalH;
  std::vector<Value *> finalC;
  for (int64_t layer = 0; layer < args.numLayers; ++layer) {
    std::vector<std::vector<Value *>> perDirection;
    for (int64_t direction = 0; direction < directions; ++direction) {
      int64_t cell = layer * directions + direction;
      const CellWeights &w = weights[static_cast<size_t>(cell)];
      TC_TRY(checkCellWeights(node, kind, w, x->type().shape[2]));
      CellState state;
      TC_ASSIGN_OR_RETURN(state.h, select(node, initial[0], 0, cell));
      if (kind == CellKind::Lstm) {
        TC_ASSIGN_OR_RETURN(state.c, select(node, initial[1], 0, cell));
      }
      TC_ASSIGN_OR_RETURN(std::vector<Value *> outputs,
                          runDirection(node, kind, w, x, direction == 1, state));
      perDirection.push_back(std::move(outputs));
      finalH.push_back(state.h);
      finalC.push_back(state.c);
    }
    std::vector<Value *> steps;
    for (size_t t = 0; t < perDirection[0].size(); ++t) {
      std::vector<Value *> sides;
      for (const std::vector<Value *> &outputs : perDirection)
        sides.push_back(outputs[t]);
      TC_ASSIGN_OR_RETURN(Value * step, concat(node, std::move(sides), 1));
      steps.push_back(step);
    }
    TC_ASSIGN_OR_RETURN(x, stackLeading(node, steps));
  }
  if (args.batchFirst) {
    TC_ASSIGN_OR_RETURN(x, permute(node, x, {1, 0, 2}));
  }
  TC_TRY(bindResult(node, 0, x));
  TC_ASSIGN_OR_RETURN(Value * hn, stackLeading(node, finalH));
  TC_TRY(bindResult(node, 1, hn));
  if (kind == CellKind::Lstm) {
    TC_ASSIGN_OR_RETURN(Value * cn, stackLeading(node, finalC));
    TC_TRY(bindResult(node, 2, cn));
  }
  return Status::success();
}

Status importCell(NodeImport &node, CellKind kind) {
  TC_ASSIGN_OR_RETURN(Value * input, node.tensor("input"));
  CellWeights w;
  TC_ASSIGN_OR_RETURN(w.inputWeight, node.tensor("w_ih"));
  TC_ASSIGN_OR_RETURN(w.hiddenWeight, node.tensor("w_hh"));
  TC_ASSIGN_OR_RETURN(w.inputBias, node.optionalTensor("b_ih"));
  TC_ASSIGN_OR_RETURN(w.hiddenBias, node.optionalTensor("b_hh"));
  CellState state;
  if (kind == CellKind::Lstm) {
    TC_ASSIGN_OR_RETURN(std::vector<Value *> hx, node.tensorList("hx"));
    if (hx.size() != 2)
      return invalidInput("node '" + node.name() + "': lstm_cell hx holds " +
                          std::to_string(hx.size()) + " tensors, expected [h, c]");
    state = {hx[0], hx[1]};
  } else {
    TC_ASSIGN_OR_RETURN(state.h, node.tensor("hx"));
  }
  if (input->type().rank() != 2)
    return invalidInput("node '" + node.name() + "': " + cellName(kind) + "_cell input " +
                        input->type().str() + " must be 2-d [batch, features]");
  TC_TRY(checkCellWeights(node, kind, w, input->type().shape[1]));
  TC_ASSIGN_OR_RETURN(Value * inputGates, linear(node, input, w.inputWeight, w.inputBias));
  TC_ASSIGN_OR_RETURN(CellState next, cellStep(node, kind, w, inputGates, state));
  TC_TRY(bindResult(node, 0, next.h));
  if (kind == CellKind::Lstm)
    return bindResult(node, 1, next.c);
  return Status::success();
}

} // namespace

/// lstm.input(input, hx=[h0, c0], params, has_biases, num_layers, dropout, train,
/// bidirectional, batch_first) -> (output, h_n, c_n), with or without proj_size (a weight_hr
/// per layer and direction). The input must be 3-d with a static sequence length (Unsupported
/// otherwise: a symbolic length cannot be unrolled); dropout between layers in training mode
/// is refused (Unsupported).
Status importLstm(NodeImport &node) { return importRecurrentLayer(node, CellKind::Lstm); }
/// gru.input(input, hx, params, ...) -> (output, h_n); the arguments as for importLstm.
Status importGru(NodeImport &node) { return importRecurrentLayer(node, CellKind::Gru); }
/// rnn_tanh.input / rnn_relu.input(input, hx, params, ...) -> (output, h_n).
Status importRnnTanh(NodeImport &node) { return importRecurrentLayer(node, CellKind::RnnTanh); }
Status importRnnRelu(NodeImport &node) { return importRecurrentLayer(node, CellKind::RnnRelu); }

/// lstm_cell(input, hx=[h, c], w_ih, w_hh, b_ih?, b_hh?) -> (h', c'): one step on a 2-d
/// [batch, features] input.
Status importLstmCell(NodeImport &node) { return importCell(node, CellKind::Lstm); }
/// gru_cell / rnn_tanh_cell / rnn_relu_cell(input, hx, w_ih, w_hh, b_ih?, b_hh?) -> h'.
Status importGruCell(NodeImport &node) { return importCell(node, CellKind::Gru); }
Status importRnnTanhCell(NodeImport &node) { return importCell(node, CellKind::RnnTanh); }
Status importRnnReluCell(NodeImport &node) { return importCell(node, CellKind::RnnRelu); }

namespace {

// clang-format off
constexpr Converter kConverters[] = {
    {"aten.lstm.input", importLstm},
    {"aten.gru.input", importGru},
    {"aten.rnn_tanh.input", importRnnTanh},
    {"aten.rnn_relu.input", importRnnRelu},
    {"aten.lstm_cell.default", importLstmCell},
    {"aten.gru_cell.default", importGruCell},
    {"aten.rnn_tanh_cell.default", importRnnTanhCell},
    {"aten.rnn_relu_cell.default", importRnnReluCell},
};
// clang-format on

} // namespace

std::span<const Converter> rnnConverters() { return kConverters; }

} // namespace thunderc::frontend
