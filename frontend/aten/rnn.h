// Import functions of frontend/aten/table.cpp's table for recurrent layers (LSTM, GRU and
// Elman RNNs) and their cells, as training IR holds them. Each is unrolled over its time steps
// into GEMMs and elementwise ops (frontend/aten/rnn.cpp); core ATen already holds that form.
#pragma once

#include "frontend/aten/node_importer.h"

namespace thunderc::frontend {

/// lstm.input(input, hx=[h0, c0], params, has_biases, num_layers, dropout, train,
/// bidirectional, batch_first) -> (output, h_n, c_n), with or without proj_size (a weight_hr
/// per layer and direction). The input must be 3-d with a static sequence length (Unsupported
/// otherwise: a symbolic length cannot be unrolled); dropout between layers in training mode
/// is refused (Unsupported).
Status importLstm(NodeImport &node);
/// gru.input(input, hx, params, ...) -> (output, h_n); the arguments as for importLstm.
Status importGru(NodeImport &node);
/// rnn_tanh.input / rnn_relu.input(input, hx, params, ...) -> (output, h_n).
Status importRnnTanh(NodeImport &node);
Status importRnnRelu(NodeImport &node);

/// lstm_cell(input, hx=[h, c], w_ih, w_hh, b_ih?, b_hh?) -> (h', c'): one step on a 2-d
/// [batch, features] input.
Status importLstmCell(NodeImport &node);
/// gru_cell / rnn_tanh_cell / rnn_relu_cell(input, hx, w_ih, w_hh, b_ih?, b_hh?) -> h'.
Status importGruCell(NodeImport &node);
Status importRnnTanhCell(NodeImport &node);
Status importRnnReluCell(NodeImport &node);

} // namespace thunderc::frontend
