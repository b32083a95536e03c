"""The SQL of sources, their stored files and their chunks: `sources` is these tables' one owner."""

from botyard.sources.repository.chunks import ChunkRepository
from botyard.sources.repository.data_sources import DataSourceRepository
from botyard.sources.repository.files import SourceFileRepository
from botyard.sources.repository.index_reads import IndexReads

__all__ = ["ChunkRepository", "DataSourceRepository", "IndexReads", "SourceFileRepository"]
