from __future__ import annotations

from typing import Annotated, Literal, NotRequired

from pydantic import AfterValidator, BaseModel, EmailStr, Field, StringConstraints
from typing_extensions import TypedDict

from botyard.chat.feedback.schemas import Comment, Feedback
from botyard.contacts.schemas import Attributes as ContactAttributes
from botyard.contacts.service import MAX_NAME
from botyard.models.kinds import Rating
from botyard.schemas import Color, RequestModel
from botyard.widget.origins import normalise_host, normalise_origin

DEFAULTS: dict[str, object] = {
    "allowed_origins": [],
    "title": "",
    "primary_color": "#2563eb",
    "background_color": "#ffffff",
    "text_color": "#111827",
    "welcome_message": "Hi! How can I help you?",
    "suggested_questions": [],
    "placeholder": "Ask a question…",
    "image_hosts": [],
}
"""What a chatbot's widget shows until its owner changes it (an empty `allowed_origins`: any site may embed)."""

Origin = Annotated[str, StringConstraints(max_length=300), AfterValidator(normalise_origin)]
Host = Annotated[str, StringConstraints(max_length=255), AfterValidator(normalise_host)]
Question = Annotated[str, StringConstraints(min_length=1, max_length=200, strip_whitespace=True)]
ShortText = Annotated[str, StringConstraints(max_length=200, strip_whitespace=True)]
DeviceId = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_-]{8,64}$")]
MAX_CONTACT_CHARS = 4000
"""A message left after hours: a few paragraphs, not a document."""


class WidgetSettingsUpdate(RequestModel):
    """Any subset of the widget settings; the others keep their values."""

    allowed_origins: list[Origin] | None = Field(
        default=None,
        max_length=50,
        description="Websites that may embed the widget and call the widget API, as `scheme://host[:port]`. "
        "Empty: any website.",
    )
    title: ShortText | None = Field(default=None, description="Header of the chat; empty: the chatbot's name.")
    primary_color: Color | None = None
    background_color: Color | None = None
    text_color: Color | None = None
    welcome_message: Annotated[str, StringConstraints(max_length=2000)] | None = None
    suggested_questions: list[Question] | None = Field(default=None, max_length=6)
    placeholder: ShortText | None = None
    image_hosts: list[Host] | None = Field(
        default=None, max_length=50, description="Hosts whose images an answer may show (https or http URLs)."
    )


class WidgetLook(TypedDict):
    """What the widget shows, as the owner set it."""

    title: str
    primary_color: str
    background_color: str
    text_color: str
    welcome_message: str
    suggested_questions: list[str]
    placeholder: str
    image_hosts: list[str]


class WidgetSettings(WidgetLook):
    chatbot_uuid: str
    allowed_origins: list[str]
    modified_at: str | None


class WidgetConfig(WidgetLook):
    """What the widget and the chat page need to render (public: nothing of it is secret); `title` is the
    chatbot's name when the owner set none."""

    chatbot_uuid: str
    name: str
    show_citations: bool
    language: str
    """The language the chatbot speaks (`answer-settings`' `effective_language`), for the page's `lang`."""
    direction: Literal["ltr", "rtl"]
    """The language's writing direction: the widget's frame is right-to-left for Arabic, Hebrew, Persian, Urdu."""
    texts: dict[str, str]
    """The widget's own words in that language (labels, buttons, error notices), by name."""


class WidgetSessionCreate(RequestModel):
    device_id: DeviceId = Field(
        description="The widget's id for this browser (kept in its storage). Limits count by client address, not by it."
    )
    name: Annotated[str, StringConstraints(max_length=MAX_NAME, strip_whitespace=True)] = Field(
        default="", description="The visitor's name, as the site passed it in (`window.BotyardContact`)."
    )
    email: Annotated[str, StringConstraints(max_length=320, strip_whitespace=True)] = Field(
        default="", description="The visitor's email address, given or passed in: the contact is found by it."
    )
    page: Annotated[str, StringConstraints(max_length=2048, strip_whitespace=True)] = Field(
        default="", description="The page the widget is on (`location.href`), shown to the team."
    )
    attributes: ContactAttributes = Field(
        default_factory=dict, description="What else the site knows of them (company, plan): strings by name."
    )


class WidgetSession(BaseModel):
    session_uuid: str
    created_at: str


class WidgetMessageCreate(RequestModel):
    query: Annotated[str, StringConstraints(min_length=1, max_length=20_000)]
    device_id: DeviceId


class WidgetFeedbackCreate(RequestModel):
    rating: Rating = Field(description="The end user's verdict on the answer: `up` or `down`.")
    comment: Comment = Field(default="", description="Optional, at most 1000 characters (after trimming).")
    device_id: DeviceId


class WidgetCitation(TypedDict):
    title: str
    url: str | None
    type: str


class WidgetEntry(TypedDict):
    """One line of the conversation as the widget shows it."""

    uuid: str
    role: str
    text: str
    citations: dict[str, WidgetCitation]
    created_at: str
    feedback: Feedback | None
    """The end user's verdict on an assistant answer (null: none yet, or not an answer)."""
    operator_name: NotRequired[str]
    """An operator's message, or a live chat's start, by a person: their name."""


class WidgetContactCreate(RequestModel):
    """What a visitor leaves through the after-hours form."""

    email: EmailStr = Field(description="Where the team writes back.")
    message: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_CONTACT_CHARS)]


class WidgetContact(TypedDict):
    offered: bool
    """The form is open: the visitor asked for a person after office hours and has not written yet."""
    sent: bool
    """The visitor's message went through the last form."""
