from __future__ import annotations

from fastapi import APIRouter

from botyard.agents import functions, service, wire
from botyard.agents.function_schemas import ToolFunction, ToolFunctionCreate, ToolFunctionUpdate
from botyard.agents.schemas import Agent, AgentCreate, AgentListed, AgentUpdate, AgentUpdated, ModelCosts, ModelList
from botyard.deps import DbSession, Egress
from botyard.errors import ErrorCode, error_responses
from botyard.identity.access import Audited, made, requires
from botyard.identity.caller import CurrentAccount
from botyard.models import AuditAction, AuditObject, Permission
from botyard.schemas import Success
from botyard.sources.service import check_link

router = APIRouter(tags=["agents"])

_ONE_OF_TYPE = error_responses({ErrorCode.AGENT_TYPE_LIMIT: "the chatbot has its one agent of this type already."})
_NAME_TAKEN = error_responses({ErrorCode.CONFLICT: "the agent has a tool function of this name already."})


@router.get("/chatbot/{uuid}/agents", response_model=list[AgentListed], dependencies=[requires(Permission.READ)])
async def list_agents(uuid: str, db: DbSession, account: CurrentAccount) -> list[AgentListed]:
    """List a chatbot's agents, oldest first (without their variables)."""
    return await wire.listed(db, await service.list_of_chatbot(db, account, uuid))


@router.post(
    "/chatbot/{uuid}/agent/create",
    response_model=Agent,
    responses=_ONE_OF_TYPE,
    dependencies=[requires(Permission.KNOWLEDGE, made(AuditObject.AGENT))],
)
async def create_agent(uuid: str, body: AgentCreate, db: DbSession, account: CurrentAccount) -> Agent:
    """Create an agent (always disabled); settings may be flat or nested in `meta`."""
    return await wire.one(db, await service.create(db, account, uuid, body))


# The two fixed paths come before `/agent/{uuid}`, which would otherwise take them.
@router.get("/agent/models", response_model=ModelList, dependencies=[requires(Permission.READ)])
async def list_models(_account: CurrentAccount) -> ModelList:
    """List the model names an agent may use."""
    return {"models": service.model_names()}


@router.get("/agent/model-costs", response_model=ModelCosts, dependencies=[requires(Permission.READ)])
async def list_model_costs(_account: CurrentAccount) -> ModelCosts:
    """The cost in credits of one answer by each model."""
    return {"model_costs": service.model_costs()}


@router.get("/agent/{uuid}", response_model=Agent, dependencies=[requires(Permission.READ)])
async def get_agent(uuid: str, db: DbSession, account: CurrentAccount) -> Agent:
    """Fetch one agent with its variables (a Botyard extension: the hosted API has no such path)."""
    return await wire.one(db, await service.get_owned(db, account, uuid))


@router.post(
    "/agent/{uuid}/update",
    response_model=AgentUpdated,
    dependencies=[requires(Permission.KNOWLEDGE, Audited(AuditObject.AGENT, AuditAction.UPDATED))],
)
async def update_agent(
    uuid: str, db: DbSession, account: CurrentAccount, body: AgentUpdate | None = None
) -> AgentUpdated:
    """Update an agent; fields left out keep their value. `enabled` is answered as a boolean here."""
    return await wire.updated(db, await service.update(db, account, uuid, body or AgentUpdate()))


@router.delete(
    "/agent/{uuid}/delete",
    response_model=Success,
    dependencies=[requires(Permission.KNOWLEDGE, Audited(AuditObject.AGENT, AuditAction.DELETED))],
)
async def delete_agent(uuid: str, db: DbSession, account: CurrentAccount) -> Success:
    """Delete an agent with its tool functions."""
    await service.delete(db, account, uuid)
    return Success()


@router.post(
    "/agent/{uuid}/function/create",
    response_model=ToolFunction,
    responses=_NAME_TAKEN,
    dependencies=[requires(Permission.KNOWLEDGE, made(AuditObject.TOOL))],
)
async def create_function(
    uuid: str, body: ToolFunctionCreate, db: DbSession, account: CurrentAccount, egress: Egress
) -> ToolFunction:
    """Give a user-facing or background agent an HTTP call it may make; the model fills only `parameters`. A URL the
    egress policy refuses (a private address, another scheme or port) is refused here, as a URL source's is."""
    await check_link(egress, body.external_url, field="external_url")  # before any database work (DNS may wait)
    return wire.function_out(await functions.create(db, account, uuid, body))


@router.post(
    "/function/{uuid}/update",
    response_model=ToolFunction,
    responses=_NAME_TAKEN,
    dependencies=[requires(Permission.KNOWLEDGE, Audited(AuditObject.TOOL, AuditAction.UPDATED))],
)
async def update_function(
    uuid: str, db: DbSession, account: CurrentAccount, egress: Egress, body: ToolFunctionUpdate | None = None
) -> ToolFunction:
    """Update a tool function; fields left out keep their value. A new URL is checked as at creation."""
    if body is not None and body.external_url is not None:
        await check_link(egress, body.external_url, field="external_url")
    return wire.function_out(await functions.update(db, account, uuid, body or ToolFunctionUpdate()))


@router.post(
    "/function/{uuid}/delete",
    response_model=Success,
    dependencies=[requires(Permission.KNOWLEDGE, Audited(AuditObject.TOOL, AuditAction.DELETED))],
)
async def delete_function(uuid: str, db: DbSession, account: CurrentAccount) -> Success:
    """Delete a tool function."""
    await functions.delete(db, account, uuid)
    return Success()
