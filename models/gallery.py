"""The gallery: real architectures as users export them, at small sizes for CI, and a few of
them at their real sizes for benchmarks (`REAL`, `real(name, batch)`).

Hugging Face `transformers` models are built from their config classes with random weights
(nothing is downloaded), shrunk to a few layers of width 64; `torch.nn` building blocks are
used as they are. Each entry is a `zoo.ZooEntry`, so `export_zoo.py --gallery` exports it
exactly like a zoo model (train.pt2, core.pt2, inputs, eager and fp64 outputs, manifest).

A model's forward returns one tensor (the last hidden state, logits or feature map): the
wrappers below drop `transformers`' output dataclasses and caches, as a deployment would.
"""

from __future__ import annotations

from typing import Any, Callable

import torch
from torch import nn
from torch.nn import functional as F
from torch.export import Dim

import zoo

# Every size field a small config sets, where the config has it.
_SMALL = dict(
    hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
    num_key_value_heads=2, n_embd=64, n_layer=2, n_head=4, vocab_size=128,
    max_position_embeddings=64, n_positions=64, d_model=64, encoder_layers=2, decoder_layers=2,
    encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=128,
    decoder_ffn_dim=128, d_ff=128, num_layers=2, num_heads=4, d_kv=16, head_dim=16, dim=64,
    hidden_dim=128, n_layers=2, n_heads=4, use_cache=False, pad_token_id=0,
)


def _small(config_class: Any, **overrides: Any) -> Any:
    """The config built with `overrides` (None: leave that field at its default), then every
    other field of _SMALL the config has."""
    config = config_class(**{k: v for k, v in overrides.items() if v is not None})
    for key, value in _SMALL.items():
        if key not in overrides and hasattr(config, key):
            setattr(config, key, value)
    return config


class _Output(nn.Module):
    """Calls a transformers model with keyword inputs and returns one tensor of its output."""

    def __init__(self, model: nn.Module, field: str, keyword: str):
        super().__init__()
        self.model = model
        self.field = field
        self.keyword = keyword

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return getattr(self.model(**{self.keyword: x}), self.field)


def _hf(config_class: str, model_class: str, field: str = "last_hidden_state",
        keyword: str = "input_ids", **overrides: Any) -> Callable[[], nn.Module]:
    def build() -> nn.Module:
        import transformers

        config = _small(getattr(transformers, config_class), **overrides)
        return _Output(getattr(transformers, model_class)(config), field, keyword)

    return build


def _tokens(length: int = 8, batch: int = 1) -> Callable[..., tuple]:
    def make(g: torch.Generator, batch: int = batch, length: int = length) -> tuple:
        return (torch.randint(0, 128, (batch, length), generator=g, dtype=torch.int64),)

    return make


def _image(channels: int = 3, size: int = 32, batch: int = 1) -> Callable[..., tuple]:
    def make(g: torch.Generator, batch: int = batch) -> tuple:
        return (zoo._randn(g, batch, channels, size, size),)

    return make


# Dynamic dims of the gallery's dynamic entries, and the cases they run besides the example.
_BATCH = Dim("batch", min=1, max=8)
_SEQ = Dim("seq", min=2, max=64)
_TOKEN_DIMS = lambda: ({0: _BATCH, 1: _SEQ},)  # noqa: E731
_TOKEN_CASES = {"batch1_seq2": {"batch": 1, "length": 2}, "batch3_seq13": {"batch": 3, "length": 13},
                "batch1_seq64": {"batch": 1, "length": 64}}
_IMAGE_DIMS = lambda: ({0: _BATCH},)  # noqa: E731
_IMAGE_CASES = {"batch1": {"batch": 1}, "batch5": {"batch": 5}}


class UNet(nn.Module):
    """A two-level U-Net: conv blocks, max-pool down, transposed-conv up, skip concatenation."""

    def __init__(self, channels: int = 8):
        super().__init__()

        def block(c_in: int, c_out: int) -> nn.Module:
            return nn.Sequential(nn.Conv2d(c_in, c_out, 3, padding=1), nn.BatchNorm2d(c_out),
                                 nn.ReLU(), nn.Conv2d(c_out, c_out, 3, padding=1), nn.ReLU())

        self.down1 = block(3, channels)
        self.down2 = block(channels, 2 * channels)
        self.pool = nn.MaxPool2d(2)
        self.up = nn.ConvTranspose2d(2 * channels, channels, 2, stride=2)
        self.merge = block(2 * channels, channels)
        self.head = nn.Conv2d(channels, 2, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        skip = self.down1(x)
        deep = self.down2(self.pool(skip))
        return self.head(self.merge(torch.cat([self.up(deep), skip], dim=1)))


class Recurrent(nn.Module):
    """nn.LSTM or nn.GRU over a sequence, batch first, two layers."""

    def __init__(self, kind: str):
        super().__init__()
        self.rnn = getattr(nn, kind)(16, 32, num_layers=2, batch_first=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.rnn(x)[0]


class Seq2Seq(nn.Module):
    """nn.Transformer (encoder + decoder with a causal mask), d_model 32."""

    def __init__(self):
        super().__init__()
        self.model = nn.Transformer(d_model=32, nhead=4, num_encoder_layers=1,
                                    num_decoder_layers=1, dim_feedforward=64, batch_first=True)

    def forward(self, source: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        mask = nn.Transformer.generate_square_subsequent_mask(target.shape[1])
        # tgt_is_causal: without it nn.Transformer inspects the mask's values (data-dependent).
        return self.model(source, target, tgt_mask=mask, tgt_is_causal=True)


class VideoNet(nn.Module):
    """A tiny video classifier: two Conv3d + BatchNorm3d + ReLU blocks with 3-d max pooling,
    global 3-d average pooling and a linear head, on [N, 3, frames, H, W] clips."""

    def __init__(self, channels: int = 8, classes: int = 5):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv3d(3, channels, 3, padding=1), nn.BatchNorm3d(channels), nn.ReLU(),
            nn.MaxPool3d((1, 2, 2)),
            nn.Conv3d(channels, 2 * channels, 3, stride=(1, 2, 2), padding=1),
            nn.BatchNorm3d(2 * channels), nn.ReLU(),
            nn.MaxPool3d(2, ceil_mode=True),
            nn.AvgPool3d((1, 2, 2), stride=1, padding=(0, 1, 1), count_include_pad=False))
        self.pool = nn.AdaptiveAvgPool3d(1)
        self.head = nn.Linear(2 * channels, classes)

    def forward(self, clip: torch.Tensor) -> torch.Tensor:
        return self.head(torch.flatten(self.pool(self.features(clip)), 1))


class SpatialTransformer(nn.Module):
    """A spatial transformer network: a small CNN regresses a 2x3 affine transform (initialized
    near the identity) from the image, affine_grid + grid_sample warp the image with it, and a
    classifier reads the warped image; a bicubic, border-padded resampling of the warp joins it."""

    def __init__(self, classes: int = 10):
        super().__init__()
        self.localization = nn.Sequential(nn.Conv2d(1, 8, 5), nn.MaxPool2d(2), nn.ReLU(),
                                          nn.Conv2d(8, 8, 3), nn.AdaptiveAvgPool2d(2), nn.ReLU(),
                                          nn.Flatten(), nn.Linear(32, 6))
        with torch.no_grad():
            self.localization[-1].weight.mul_(0.1)
            self.localization[-1].bias.copy_(torch.tensor([1.0, 0, 0, 0, 1.0, 0]))
        self.classifier = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(),
                                        nn.MaxPool2d(2), nn.Flatten(), nn.Linear(8 * 8 * 8, classes))

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        theta = self.localization(image).view(-1, 2, 3)
        grid = F.affine_grid(theta, list(image.shape), align_corners=False)
        warped = F.grid_sample(image, grid, align_corners=False)
        refined = F.grid_sample(warped, grid, mode="bicubic", padding_mode="border",
                                align_corners=False)
        return self.classifier(warped + 0.5 * refined)


def _entry(name: str, build: Callable[[], nn.Module], inputs: Callable[..., tuple],
           seed: int, dynamic_shapes: Callable[[], Any] | None = None,
           cases: dict[str, dict[str, Any]] | None = None) -> zoo.ZooEntry:
    return zoo.ZooEntry(name, build, inputs, dynamic_shapes=dynamic_shapes, cases=cases or {},
                        seed=seed)


class Seq2SeqHF(nn.Module):
    """A transformers encoder-decoder (BART): source and target token ids -> decoder states."""

    def __init__(self):
        super().__init__()
        import transformers

        self.model = transformers.BartModel(_small(transformers.BartConfig))

    def forward(self, source: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=source, decoder_input_ids=target).last_hidden_state


class WhisperEncoder(nn.Module):
    """Whisper's audio encoder (two conv1d layers, then transformer layers) on mel features."""

    def __init__(self):
        super().__init__()
        import transformers

        config = _small(transformers.WhisperConfig, num_mel_bins=16, max_source_positions=16)
        self.encoder = transformers.WhisperModel(config).get_encoder()

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        return self.encoder(input_features=features).last_hidden_state


class DetrHead(nn.Module):
    """DETR object detection: a ResNet backbone (transformers' own, no timm), sine position
    embeddings, a transformer encoder-decoder over object queries, class and box heads; the
    output is the class logits and boxes side by side."""

    def __init__(self):
        super().__init__()
        import transformers

        backbone = transformers.ResNetConfig(hidden_sizes=[16, 32, 64, 128], depths=[1, 1, 1, 1],
                                             embedding_size=16, out_features=["stage4"])
        config = transformers.DetrConfig(
            use_timm_backbone=False, use_pretrained_backbone=False, backbone_config=backbone,
            d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=4,
            decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, num_queries=10,
            num_labels=5)
        self.model = transformers.DetrForObjectDetection(config)

    def forward(self, pixels: torch.Tensor) -> torch.Tensor:
        output = self.model(pixel_values=pixels)
        return torch.cat([output.logits, output.pred_boxes], -1)


GALLERY: list[zoo.ZooEntry] = [
    # Encoders
    _entry("hf_bert", _hf("BertConfig", "BertModel"), _tokens(), 101),
    _entry("hf_roberta", _hf("RobertaConfig", "RobertaModel"), _tokens(), 102),
    _entry("hf_distilbert", _hf("DistilBertConfig", "DistilBertModel"), _tokens(), 103),
    _entry("hf_t5_encoder", _hf("T5Config", "T5EncoderModel"), _tokens(), 104),
    _entry("hf_bart", Seq2SeqHF,
           lambda g: (torch.randint(0, 128, (1, 8), generator=g, dtype=torch.int64),
                      torch.randint(0, 128, (1, 5), generator=g, dtype=torch.int64)), 105),
    # Dynamic batch and sequence length (one bundle for every case).
    _entry("hf_bert_dynamic", _hf("BertConfig", "BertModel"), _tokens(batch=2), 106,
           _TOKEN_DIMS, _TOKEN_CASES),
    _entry("hf_t5_encoder_dynamic", _hf("T5Config", "T5EncoderModel"), _tokens(batch=2), 107,
           _TOKEN_DIMS, _TOKEN_CASES),
    # Fourier token mixing (torch.fft.fftn over sequence and hidden dims, real part).
    _entry("hf_fnet", _hf("FNetConfig", "FNetModel"), _tokens(), 108),
    # Decoder LLMs (no cache here: prefill of a whole prompt)
    _entry("hf_gpt2", _hf("GPT2Config", "GPT2Model"), _tokens(), 111),
    _entry("hf_llama", _hf("LlamaConfig", "LlamaModel"), _tokens(), 112),
    _entry("hf_mistral", _hf("MistralConfig", "MistralModel"), _tokens(), 113),
    _entry("hf_qwen2", _hf("Qwen2Config", "Qwen2Model"), _tokens(), 114),
    _entry("hf_phi3", _hf("Phi3Config", "Phi3Model"), _tokens(), 115),
    _entry("hf_gemma", _hf("GemmaConfig", "GemmaModel"), _tokens(), 116),
    _entry("hf_cohere", _hf("CohereConfig", "CohereModel"), _tokens(), 118),
    _entry("hf_glm4", _hf("Glm4Config", "Glm4Model"), _tokens(), 119),
    # Mixture-of-Experts (tokens routed to experts at run time: a grouped GEMM per layer)
    _entry("hf_mixtral", _hf("MixtralConfig", "MixtralModel"), _tokens(), 151),
    _entry("hf_qwen2_moe", _hf("Qwen2MoeConfig", "Qwen2MoeModel", num_experts=8,
                               moe_intermediate_size=64, shared_expert_intermediate_size=128),
           _tokens(), 152),
    _entry("hf_llama_dynamic", _hf("LlamaConfig", "LlamaModel"), _tokens(batch=2), 117,
           _TOKEN_DIMS, _TOKEN_CASES),
    # Vision
    _entry("hf_vit", _hf("ViTConfig", "ViTModel", keyword="pixel_values", image_size=32,
                         patch_size=8), _image(), 121),
    _entry("hf_vit_dynamic", _hf("ViTConfig", "ViTModel", keyword="pixel_values", image_size=32,
                                 patch_size=8), _image(batch=2), 127, _IMAGE_DIMS, _IMAGE_CASES),
    _entry("hf_mobilevit", _hf("MobileViTConfig", "MobileViTModel", keyword="pixel_values",
                               image_size=32, hidden_sizes=[32, 48, 64],
                               neck_hidden_sizes=[8, 16, 24, 32, 40, 48, 64],
                               num_hidden_layers=None, num_attention_heads=None,
                               hidden_size=None), _image(), 128),
    _entry("hf_detr", DetrHead, _image(size=64), 129),
    _entry("hf_clip_vision", _hf("CLIPVisionConfig", "CLIPVisionModel", keyword="pixel_values",
                                 image_size=32, patch_size=8), _image(), 122),
    _entry("hf_convnext", _hf("ConvNextConfig", "ConvNextModel", keyword="pixel_values",
                              hidden_sizes=[16, 32, 64, 128], depths=[1, 1, 1, 1],
                              num_hidden_layers=None), _image(), 123),
    _entry("hf_resnet", _hf("ResNetConfig", "ResNetModel", keyword="pixel_values",
                            hidden_sizes=[16, 32, 64, 128], depths=[1, 1, 1, 1],
                            embedding_size=16, num_hidden_layers=None), _image(), 124),
    _entry("hf_segformer", _hf("SegformerConfig", "SegformerModel", keyword="pixel_values",
                               hidden_sizes=[16, 32, 64, 128], depths=[1, 1, 1, 1],
                               num_attention_heads=[1, 2, 4, 8], decoder_hidden_size=64,
                               num_hidden_layers=None),
           _image(), 125),
    _entry("hf_swin", _hf("SwinConfig", "SwinModel", keyword="pixel_values", image_size=32,
                          patch_size=4, embed_dim=16, depths=[1, 1], num_heads=[2, 4],
                          window_size=4, num_hidden_layers=None, num_attention_heads=None),
           _image(), 126),
    # Speech
    _entry("hf_wav2vec2", _hf("Wav2Vec2Config", "Wav2Vec2Model", keyword="input_values",
                              conv_dim=[16, 16], conv_stride=[5, 2], conv_kernel=[10, 3],
                              num_feat_extract_layers=2,
                              num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4),
           lambda g: (zoo._randn(g, 1, 400),), 131),
    _entry("hf_whisper_encoder", WhisperEncoder, lambda g: (zoo._randn(g, 1, 16, 32),), 132),
    # torch.nn building blocks
    _entry("nn_unet", UNet, _image(size=16), 141),
    _entry("nn_lstm", lambda: Recurrent("LSTM"), lambda g: (zoo._randn(g, 1, 6, 16),), 142),
    _entry("nn_gru", lambda: Recurrent("GRU"), lambda g: (zoo._randn(g, 1, 6, 16),), 143),
    _entry("nn_transformer", Seq2Seq,
           lambda g: (zoo._randn(g, 1, 6, 32), zoo._randn(g, 1, 5, 32)), 144),
    _entry("nn_video3d", VideoNet, lambda g: (zoo._randn(g, 2, 3, 6, 16, 16),), 145),
    _entry("nn_spatial_transformer", SpatialTransformer,
           lambda g: (zoo._randn(g, 2, 1, 16, 16),), 146),
]


def get(name: str) -> zoo.ZooEntry:
    for entry in GALLERY:
        if entry.name == name:
            return entry
    raise KeyError(f"unknown gallery model {name!r}; known: {', '.join(e.name for e in GALLERY)}")


# --------------------------------------------------------------------------------------------
# Real sizes (benchmarks): published widths and depths from the config classes' defaults or the
# named checkpoint's config, random weights, static shapes at a given batch. The decoder LLM is
# 1B-shaped (TinyLlama-1.1B's widths) but truncated to two layers to fit a CPU benchmark.
# --------------------------------------------------------------------------------------------

_REAL_SEQ = 128


def _real_hf(config_class: str, model_class: str, field: str = "last_hidden_state",
             keyword: str = "input_ids", **fields: Any) -> Callable[[], nn.Module]:
    def build() -> nn.Module:
        import transformers

        config = getattr(transformers, config_class)(**fields)
        return _Output(getattr(transformers, model_class)(config), field, keyword)

    return build


class WhisperBaseEncoder(nn.Module):
    """whisper-base's audio encoder: 80 mel bins, 3000 frames (30 s), width 512, 6 layers."""

    def __init__(self):
        super().__init__()
        import transformers

        config = transformers.WhisperConfig(d_model=512, encoder_layers=6, decoder_layers=6,
                                            encoder_attention_heads=8, decoder_attention_heads=8,
                                            encoder_ffn_dim=2048, decoder_ffn_dim=2048,
                                            use_cache=False)
        self.encoder = transformers.WhisperModel(config).get_encoder()

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        return self.encoder(input_features=features).last_hidden_state


def _real_tokens(vocab: int) -> Callable[..., tuple]:
    def make(g: torch.Generator, batch: int = 1) -> tuple:
        return (torch.randint(0, vocab, (batch, _REAL_SEQ), generator=g, dtype=torch.int64),)

    return make


# name: (what it is, model builder, inputs(g, batch=...)); names are the small gallery's.
REAL: dict[str, tuple[str, Callable[[], nn.Module], Callable[..., tuple]]] = {
    "hf_bert": ("BERT-base (12 layers, width 768), seq 128",
                _real_hf("BertConfig", "BertModel"), _real_tokens(30522)),
    "hf_gpt2": ("GPT-2 small (12 layers, width 768), seq 128",
                _real_hf("GPT2Config", "GPT2Model", use_cache=False), _real_tokens(50257)),
    "hf_llama": ("Llama 1B-shaped (TinyLlama widths: 2048, MLP 5632, 32 heads, 4 KV heads, "
                 "vocab 32000), 2 layers, seq 128",
                 _real_hf("LlamaConfig", "LlamaModel", hidden_size=2048, intermediate_size=5632,
                          num_hidden_layers=2, num_attention_heads=32, num_key_value_heads=4,
                          vocab_size=32000, max_position_embeddings=2048, use_cache=False),
                 _real_tokens(32000)),
    "hf_vit": ("ViT-base/16, 224x224",
               _real_hf("ViTConfig", "ViTModel", keyword="pixel_values"),
               lambda g, batch=1: (zoo._randn(g, batch, 3, 224, 224),)),
    "hf_resnet": ("ResNet-50, 224x224",
                  _real_hf("ResNetConfig", "ResNetModel", keyword="pixel_values"),
                  lambda g, batch=1: (zoo._randn(g, batch, 3, 224, 224),)),
    "hf_convnext": ("ConvNeXt-tiny, 224x224",
                    _real_hf("ConvNextConfig", "ConvNextModel", keyword="pixel_values"),
                    lambda g, batch=1: (zoo._randn(g, batch, 3, 224, 224),)),
    "hf_whisper_encoder": ("Whisper-base encoder, 80 mels x 3000 frames", WhisperBaseEncoder,
                           lambda g, batch=1: (zoo._randn(g, batch, 80, 3000),)),
}


def real(name: str, batch: int = 1) -> zoo.ZooEntry:
    """The gallery model `name` at its real size (REAL), static shapes at `batch`."""
    if name not in REAL:
        raise KeyError(f"no real size for gallery model {name!r}; known: {', '.join(REAL)}")
    _, build, inputs = REAL[name]
    small = get(name)
    return _entry(name, build, lambda g, batch=batch: inputs(g, batch=batch), small.seed)
