"""Text embeddings: the interface, the bundled offline model, and an OpenAI-compatible endpoint.

`build_embedder(settings)` picks one (`minilm`, the default; `openai`; or None for `none`). The backends themselves
(`minilm`, `openai_compat`) are imported lazily, so importing this package does not load onnxruntime.
"""

from botyard.embedding.base import Embedder, Vectors, decode_matrix, decode_vector, encode_matrix, encode_vector
from botyard.embedding.errors import EmbeddingError, ModelIntegrityError
from botyard.embedding.factory import build_embedder, close_embedder

__all__ = [
    "Embedder",
    "EmbeddingError",
    "ModelIntegrityError",
    "Vectors",
    "build_embedder",
    "close_embedder",
    "decode_matrix",
    "decode_vector",
    "encode_matrix",
    "encode_vector",
]
