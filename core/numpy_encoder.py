"""A BERT sentence encoder in plain numpy: the default MiniLM without importing torch.

Importing torch, transformers and sentence-transformers costs 5-6 s of a CLI query's wall time on this
project's 2-core machine (the forward pass for one question is a few milliseconds). Mean-pooled BERT models
saved by sentence-transformers (Transformer → mean Pooling → Normalize, weights in model.safetensors, a fast
``tokenizer.json``) are small enough to run here instead: the same weights, the same tokenizer, the same
arithmetic in float32, so vectors agree with the torch path to about 1e-6 and are interchangeable in one
database (tests/test_numpy_encoder.py checks both, and that the weights' revision is the same).

Anything else (another architecture, CLS pooling, a Dense head) is not ``supported`` and loads with torch.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

SENTENCE_TRANSFORMERS_PREFIX = "0.model."
"""How sentence-transformers names the transformer's weights in its state_dict (for the same revision hash)."""

SINGLE_THREAD_TOKENS = 4096
"""Padded tokens up to which a batch runs on one BLAS thread: a question's matrices are so small that waking
OpenBLAS's threads costs more than the product (measured 180 ms vs 43 ms a question on a loaded 2-core box)."""

_PLAIN_MODULES = [
    "sentence_transformers.models.Transformer", "sentence_transformers.models.Pooling",
    "sentence_transformers.models.Normalize",
]


def supported(path: Path) -> bool:
    """Whether the folder is a mean-pooled, normalised BERT this module computes exactly."""
    try:
        modules = [m["type"].replace(".base.modules.", ".models.") for m in _read(path / "modules.json")]
        pooling = _read(path / "1_Pooling" / "config.json")
        config = _read(path / "config.json")
    except (OSError, ValueError, KeyError, TypeError):
        return False
    mean_only = pooling.get("pooling_mode_mean_tokens") and not any(
        v for k, v in pooling.items() if k.startswith("pooling_mode_") and k != "pooling_mode_mean_tokens")
    return (modules == _PLAIN_MODULES and bool(mean_only) and config.get("model_type") == "bert"
            and config.get("hidden_act") == "gelu" and config.get("position_embedding_type", "absolute") == "absolute"
            and (path / "model.safetensors").is_file() and (path / "tokenizer.json").is_file())


def model_dim(path: Path) -> int:
    """The embedding dimension of a ``supported`` folder, from its config (no weights read)."""
    return int(_read(path / "config.json")["hidden_size"])


def max_seq_length(path: Path) -> int:
    """Tokens the model reads (sentence-transformers' max_seq_length, else the position table's size)."""
    st_config = path / "sentence_bert_config.json"
    limit = _read(st_config).get("max_seq_length") if st_config.is_file() else None
    return int(limit or _read(path / "config.json")["max_position_embeddings"])


def _read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


class NumpyTokenizer:
    """The HF fast tokenizer's call signature, as Embedder uses it, over the ``tokenizers`` library."""

    def __init__(self, tokenizer_json: Path) -> None:
        from tokenizers import Tokenizer

        self._tok = Tokenizer.from_file(str(tokenizer_json))
        self._tok.no_truncation()
        self._tok.no_padding()

    def __call__(self, texts: str | Sequence[str], *, add_special_tokens: bool = True, truncation: bool = False,
                 return_offsets_mapping: bool = False) -> dict[str, Any]:
        del truncation  # Embedder counts whole texts; encode() truncates itself
        single = isinstance(texts, str)
        encs = self._tok.encode_batch([texts] if single else list(texts), add_special_tokens=add_special_tokens)
        out: dict[str, Any] = {"input_ids": [e.ids for e in encs]}
        if return_offsets_mapping:
            out["offset_mapping"] = [e.offsets for e in encs]
        return {k: v[0] for k, v in out.items()} if single else out

    def encode_batch(self, texts: Sequence[str]) -> list[list[int]]:
        return [e.ids for e in self._tok.encode_batch(list(texts), add_special_tokens=True)]


class NumpySentenceEncoder:
    """The subset of SentenceTransformer that core.models.Embedder calls, computed with numpy."""

    def __init__(self, path: Path) -> None:
        from safetensors.numpy import load_file

        config = _read(path / "config.json")
        self.max_seq_length = max_seq_length(path)
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.dim = model_dim(path)
        self.w = {k: np.ascontiguousarray(v, dtype=np.float32) for k, v in load_file(path / "model.safetensors").items()
                  if k != "embeddings.position_ids"}
        self.w = {k.removeprefix("bert."): v for k, v in self.w.items()}
        for i in range(self.layers):  # linear weights pre-transposed once: x @ W.T is x @ Wt
            for name in ("attention.self.query", "attention.self.key", "attention.self.value",
                         "attention.output.dense", "intermediate.dense", "output.dense"):
                key = f"encoder.layer.{i}.{name}.weight"
                self.w[key + ".T"] = np.ascontiguousarray(self.w[key].T)
        self.tokenizer = NumpyTokenizer(path / "tokenizer.json")
        from threadpoolctl import ThreadpoolController

        self._blas = ThreadpoolController()
        self._pad_id = int(config.get("pad_token_id", 0))

    def get_sentence_embedding_dimension(self) -> int:
        return self.dim

    def eval(self) -> NumpySentenceEncoder:
        return self

    def state_dict(self) -> dict[str, np.ndarray]:
        """Named as sentence-transformers names them, so Embedder.identity() hashes the same revision."""
        return {SENTENCE_TRANSFORMERS_PREFIX + k: v for k, v in self.w.items() if not k.endswith(".T")}

    def encode(self, texts: Sequence[str], *, batch_size: int = 32, normalize_embeddings: bool = True,
               convert_to_numpy: bool = True, show_progress_bar: bool = False) -> np.ndarray:
        del convert_to_numpy, show_progress_bar
        ids = self.tokenizer.encode_batch(texts)
        # sentence-transformers sorts by length so a batch pads little; the order is restored after
        order = sorted(range(len(ids)), key=lambda i: -len(ids[i]))
        out = np.empty((len(ids), self.dim), dtype=np.float32)
        for start in range(0, len(order), max(1, batch_size)):
            chunk = order[start:start + batch_size]
            batch = [ids[i] for i in chunk]
            if len(batch) * max(len(s) for s in batch) <= SINGLE_THREAD_TOKENS:
                with self._blas.limit(limits=1, user_api="blas"):
                    out[chunk] = self._forward(batch)
            else:
                out[chunk] = self._forward(batch)
        if normalize_embeddings:
            out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
        return out

    def _forward(self, batch: list[list[int]]) -> np.ndarray:
        limit = self.max_seq_length
        seqs = [s if len(s) <= limit else [*s[: limit - 1], s[-1]] for s in batch]  # keep [SEP] last, as HF does
        length = max(len(s) for s in seqs)
        input_ids = np.full((len(seqs), length), self._pad_id, dtype=np.int64)
        mask = np.zeros((len(seqs), length), dtype=np.float32)
        for row, s in enumerate(seqs):
            input_ids[row, : len(s)] = s
            mask[row, : len(s)] = 1.0
        w = self.w
        x = (w["embeddings.word_embeddings.weight"][input_ids] + w["embeddings.position_embeddings.weight"][:length]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = self._norm(x, "embeddings.LayerNorm")
        bias = ((1.0 - mask) * np.finfo(np.float32).min)[:, None, None, :]
        n, t, d = x.shape
        hd = d // self.heads
        x = x.reshape(n * t, d)  # linear layers as one 2-D product: BLAS runs stacked 3-D ones ~10x slower
        for i in range(self.layers):
            p = f"encoder.layer.{i}."

            def heads(name: str, h: np.ndarray = x, p: str = p) -> np.ndarray:
                y = h @ w[f"{p}attention.self.{name}.weight.T"] + w[f"{p}attention.self.{name}.bias"]
                return y.reshape(n, t, self.heads, hd).transpose(0, 2, 1, 3)

            q, k, v = heads("query"), heads("key"), heads("value")
            scores = np.matmul(q, k.transpose(0, 1, 3, 2)) / np.float32(math.sqrt(hd)) + bias
            scores -= scores.max(axis=-1, keepdims=True)
            probs = np.exp(scores)
            probs /= probs.sum(axis=-1, keepdims=True)
            ctx = np.matmul(probs, v).transpose(0, 2, 1, 3).reshape(n * t, d)
            attn = ctx @ w[f"{p}attention.output.dense.weight.T"] + w[f"{p}attention.output.dense.bias"]
            x = self._norm(attn + x, f"{p}attention.output.LayerNorm")
            inner = _gelu(x @ w[f"{p}intermediate.dense.weight.T"] + w[f"{p}intermediate.dense.bias"])
            out = inner @ w[f"{p}output.dense.weight.T"] + w[f"{p}output.dense.bias"]
            x = self._norm(out + x, f"{p}output.LayerNorm")
        x = x.reshape(n, t, d)
        summed = (x * mask[:, :, None]).sum(axis=1)
        return summed / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)

    def _norm(self, x: np.ndarray, name: str) -> np.ndarray:
        mean = x.mean(axis=-1, keepdims=True)
        var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
        return (x - mean) / np.sqrt(var + self.eps) * self.w[f"{name}.weight"] + self.w[f"{name}.bias"]


def _gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact GELU, x·Φ(x), with erf from scipy (already loaded by BM25)."""
    from scipy.special import erf

    return (x * 0.5 * (1.0 + erf(x / np.float32(math.sqrt(2.0))))).astype(np.float32, copy=False)
