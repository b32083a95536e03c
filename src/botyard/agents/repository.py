from __future__ import annotations

from botyard.db.repository import Repository
from botyard.models import Agent


class AgentRepository(Repository[Agent]):
    model = Agent
