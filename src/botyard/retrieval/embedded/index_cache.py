"""A process's chatbot indexes, bounded by the chunks they hold: the least recently used goes first."""

from __future__ import annotations

from collections import OrderedDict

from botyard import metrics
from botyard.retrieval.embedded.index import ChatbotIndex


class IndexCache:
    def __init__(self, max_chunks: int) -> None:
        self.max_chunks = max_chunks
        self._indexes: OrderedDict[str, ChatbotIndex] = OrderedDict()

    def __contains__(self, chatbot_uuid: object) -> bool:
        return chatbot_uuid in self._indexes

    def get(self, chatbot_uuid: str) -> ChatbotIndex | None:
        return self._indexes.get(chatbot_uuid)

    def at(self, chatbot_uuid: str, version: int) -> ChatbotIndex | None:
        """The chatbot's index if it is at `version` or newer (read before another request caught up, a newer one
        holds at least what ours does), as the most recently used."""
        index = self._indexes.get(chatbot_uuid)
        if index is None or index.version < version:
            return None
        self._indexes.move_to_end(chatbot_uuid)
        return index

    def store(self, chatbot_uuid: str, index: ChatbotIndex) -> None:
        self._indexes[chatbot_uuid] = index
        self._indexes.move_to_end(chatbot_uuid)
        total = self.chunks
        # The newest index always stays, even alone over the bound: the request that built it is about to use it.
        while total > self.max_chunks and len(self._indexes) > 1:
            _, evicted = self._indexes.popitem(last=False)
            total -= evicted.size
        metrics.indexes_held(len(self._indexes), total)

    def replace(self, chatbot_uuid: str, index: ChatbotIndex) -> bool:
        """`index` in place of the chatbot's, if one is held (a snapshot just saved serves instead of its build)."""
        if chatbot_uuid not in self._indexes:
            return False
        self._indexes[chatbot_uuid] = index
        return True

    def pop(self, chatbot_uuid: str) -> ChatbotIndex | None:
        index = self._indexes.pop(chatbot_uuid, None)
        if index is not None:
            metrics.indexes_held(len(self._indexes), self.chunks)
        return index

    @property
    def chunks(self) -> int:
        return sum(index.size for index in self._indexes.values())
