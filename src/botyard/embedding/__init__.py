"""Text embeddings: the interface, the bundled offline model, and an OpenAI-compatible endpoint."""

from botyard.embedding.base import Embedder, decode_vector, encode_vector

__all__ = ["Embedder", "decode_vector", "encode_vector"]
