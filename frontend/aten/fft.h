// Imports of the discrete Fourier transforms (torch.fft, their core ATen forms _fft_r2c,
// _fft_c2c, _fft_c2r, and torch.stft) and of the real ops audio front ends use with them
// (hann_window, unfold). Each DFT along one dim is a matmul with a constant matrix of twiddle
// factors that the importer computes in double precision: no FFT kernel, the GEMM paths of
// both targets do the work. Complex values are float32 pairs (frontend/aten/complex.h).
#pragma once

#include <cstdint>

#include "frontend/aten/node_importer.h"

namespace thunderc::frontend {

/// The largest DFT matrix the importer builds for one transformed dim; a larger one (a dim of
/// about 1,448 complex points or more) is refused, naming the dim and its size.
constexpr int64_t kMaxDftMatrixBytes = int64_t{16} << 20;

/// _fft_r2c(self, dim, normalization, onesided): a real-to-complex DFT along the last listed
/// dim (its first n/2+1 bins when onesided), complex-to-complex along the others.
Status importFftR2c(NodeImport &node);
/// _fft_c2c(self, dim, normalization, forward).
Status importFftC2c(NodeImport &node);
/// _fft_c2r(self, dim, normalization, last_dim_size): inverse complex-to-complex DFTs along
/// all listed dims but the last, then a Hermitian complex-to-real one of last_dim_size points.
Status importFftC2r(NodeImport &node);
/// fft_fft / fft_ifft(self, n, dim, norm) of a real or complex tensor.
Status importFftFft(NodeImport &node);
Status importFftIfft(NodeImport &node);
/// fft_rfft(self, n, dim, norm) of a real tensor; fft_irfft of a complex one.
Status importFftRfft(NodeImport &node);
Status importFftIrfft(NodeImport &node);
/// fft_fftn / fft_ifftn / fft_rfftn / fft_irfftn(self, s, dim, norm), and their 2-d forms.
Status importFftFftn(NodeImport &node);
Status importFftIfftn(NodeImport &node);
Status importFftRfftn(NodeImport &node);
Status importFftIrfftn(NodeImport &node);
/// fft_hfft(self, n, dim, norm): the Hermitian complex-to-real DFT of conj(self), a forward
/// transform; fft_hfftn / fft_hfft2(self, s, dim, norm): forward complex-to-complex DFTs along
/// all dims but the last, then that along the last.
Status importFftHfft(NodeImport &node);
Status importFftHfftn(NodeImport &node);
/// stft.default / stft.center of a 1-d or 2-d real signal: frames (unfold), window, a
/// real-to-complex DFT per frame, [.., freq, frame] order; center pads with pad_mode.
Status importStft(NodeImport &node);
/// hann_window.default / .periodic: a constant computed in double precision.
Status importHannWindow(NodeImport &node);
/// unfold(self, dimension, size, step): an index_select of the windows' positions along the
/// (static) dim, reshaped to [.., windows, .., size].
Status importUnfold(NodeImport &node);

} // namespace thunderc::frontend
