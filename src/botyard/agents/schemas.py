"""Agent request bodies and response shapes (tool functions are in `agents/function_schemas.py`)."""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import Field, StringConstraints, field_validator, model_validator
from typing_extensions import TypedDict

from botyard.agents.fields import Bias, Choices, Flag, Lenient, ModelName, ShortText, Unit
from botyard.agents.function_schemas import ToolFunction
from botyard.models.kinds import AgentType
from botyard.schemas import Color, Name, Text, Uuid

VariableType = Literal["string", "number", "boolean"]


class TagInput(Lenient):
    """A tag a background agent assigns to a conversation whose recent messages meet `criteria`."""

    name: Name
    criteria: Text = ""
    color: Color = Field(description="#RRGGBB")


class DefaultValueInput(Lenient):
    content: Text = ""
    static: Flag = Field(default=False, description="1: `content` is fixed and never overwritten by the model.")


class VariableInput(Lenient):
    """A value the model fills from the conversation, usable in the agent's prompt."""

    name: Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")]
    description: Text = ""
    type: VariableType = "string"
    example: Text = ""
    default_value: DefaultValueInput = Field(default_factory=DefaultValueInput)


class HumanEscalationSettingsUpdate(Lenient):
    """A partial update of a human-escalation agent's settings: keys left out keep their value."""

    human_requested_message: ShortText | None = None
    live_chat_start_announcement: ShortText | None = None
    live_chat_end_announcement: ShortText | None = None
    monitored_messages: list[ShortText] | None = Field(default=None, description="Phrases that notify operators.")
    notifications_enabled: Flag | None = None
    sound_enabled: Flag | None = None


def _resolve_stickiness(data: dict[str, Any]) -> dict[str, Any]:
    """`stickness` is the public spelling; `stickiness` is accepted for it (the public spelling wins)."""
    data = dict(data)
    alias = data.pop("stickiness", None)
    if data.get("stickness") is None and alias is not None:
        data["stickness"] = alias
    return data


class AgentSettings(Lenient):
    """What create and update share. The settings may also come nested in `meta`; flat keys win over nested ones."""

    description: Text | None = None
    prompt: Text | None = None
    model: ModelName | None = Field(default=None, description="A name from GET /api/v1/agent/models.")
    temperature: Unit | None = None
    bias: Bias | None = Field(default=None, description="-1..1; favours (or disfavours) the agent in routing.")
    stickness: Unit | None = Field(default=None, description="0..1; also accepted as `stickiness`.")
    default_message: Text | None = Field(default=None, description="The reply of pre-canned and spam-defense agents.")
    choices: Choices | None = Field(
        default=None,
        description="Pre-canned agents only (Botyard's own): up to 10 different texts of 1 to 80 characters offered "
        "with `default_message`, as buttons where a channel shows them (else numbered lines); a choice pressed is "
        "the visitor's next message. `[]` removes them; refused as a whole (422 `validation_error`, type "
        "`choices_invalid`).",
    )
    tags: list[TagInput] | None = Field(default=None, description="Background agents only.")
    use_all_sources: Flag | None = Field(default=None, description="User-facing agents only.")
    data_source_uuids: list[Uuid] | None = Field(
        default=None, description="Sources of the same chatbot the agent answers from, in order (replaces the list)."
    )
    variables: list[VariableInput] | None = Field(default=None, description="Replaces the variables when given.")
    human_escalation_settings: HumanEscalationSettingsUpdate | None = Field(
        default=None, description="Human-escalation agents only; merged into the current settings."
    )

    @model_validator(mode="before")
    @classmethod
    def _flatten_meta(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        flat = _resolve_stickiness({key: value for key, value in data.items() if key != "meta"})
        nested = data.get("meta")
        if isinstance(nested, dict):
            return {**_resolve_stickiness(nested), **{k: v for k, v in flat.items() if v is not None}}
        return flat

    @field_validator("variables")
    @classmethod
    def _unique_variable_names(cls, variables: list[VariableInput] | None) -> list[VariableInput] | None:
        names = [variable.name for variable in variables or []]
        if len(names) != len(set(names)):
            raise ValueError("variable names must be unique")
        return variables


class AgentCreate(AgentSettings):
    name: Name
    type: AgentType


class AgentUpdate(AgentSettings):
    name: Name | None = None
    enabled: Flag | None = None


# Responses.


class Tag(TypedDict):
    name: str
    criteria: str
    color: str


class AgentMeta(TypedDict):
    """Every agent carries `model` and `temperature`; the other keys appear on the types they apply to (`bias` and
    `stickness` once set)."""

    model: str
    temperature: float
    use_all_sources: NotRequired[bool]
    bias: NotRequired[float]
    stickness: NotRequired[float]
    default_message: NotRequired[str]
    choices: NotRequired[list[str]]
    """Pre-canned agents, once set (Botyard's own key)."""
    tags: NotRequired[list[Tag]]


class DefaultValue(TypedDict):
    content: str
    static: int


class Variable(TypedDict):
    name: str
    description: str
    type: str
    example: str
    default_value: DefaultValue


class HumanEscalationSettings(TypedDict):
    human_requested_message: str
    live_chat_start_announcement: str
    live_chat_end_announcement: str
    monitored_messages: list[str]
    notifications_enabled: int
    sound_enabled: int


class AgentBase(TypedDict):
    """The keys every form of an agent shares."""

    uuid: str
    name: str
    type: str
    description: str
    prompt: str
    created_at: str
    modified_at: str
    data_source_uuids: list[str]
    meta: AgentMeta
    tool_functions: list[ToolFunction]
    human_escalation_settings: NotRequired[HumanEscalationSettings]


class AgentListed(AgentBase):
    """An agent as the list shows it: no `variables`, `enabled` as 0/1."""

    enabled: int


class Agent(AgentBase):
    """An agent as create and fetch show it: with `variables`, `enabled` as 0/1."""

    enabled: int
    variables: list[Variable]


class AgentUpdated(AgentBase):
    """An agent as the update answers it: with `variables`, `enabled` as a boolean (the hosted service's form)."""

    enabled: bool
    variables: list[Variable]


class ModelList(TypedDict):
    models: list[str]


class ModelCosts(TypedDict):
    model_costs: dict[str, int]
