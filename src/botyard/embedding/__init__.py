"""Text embeddings: the interface, the bundled offline model, and an OpenAI-compatible endpoint.

`build_embedder(settings)` picks one (`multilingual`, the default: MiniLM and USE-m3 as the two parts of one vector;
`minilm`; `openai`; or None for `none`). The backends themselves (`minilm`, `use`, `pair`, `openai_compat`) are
imported lazily, so importing this package loads no model.
"""

from botyard.embedding.base import (
    Embedder,
    Vectors,
    cosines,
    decode_matrix,
    decode_vector,
    encode_matrix,
    encode_vector,
    own_part,
    part_cosines,
    similarities,
    unit_parts,
)
from botyard.embedding.errors import EmbeddingError, ModelIntegrityError
from botyard.embedding.factory import build_embedder, close_embedder

__all__ = [
    "Embedder",
    "EmbeddingError",
    "ModelIntegrityError",
    "Vectors",
    "build_embedder",
    "close_embedder",
    "cosines",
    "decode_matrix",
    "decode_vector",
    "encode_matrix",
    "encode_vector",
    "own_part",
    "part_cosines",
    "similarities",
    "unit_parts",
]
