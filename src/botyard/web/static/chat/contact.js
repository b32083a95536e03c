// After office hours, asking for a person gets no promise: the chat shows a form for an email address and a message
// (the widget API says whether one is open: `GET .../contact`, asked after each answer and on reload). The message
// goes to the chatbot's team (their inbox, email and webhooks); one per form.

import { element, errorText, keepingScroll } from "./render.js";
import { word } from "./words.js";

let counter = 0;

function labelled(parent, tag, label, props) {
  const id = `contact-${++counter}`;
  const caption = element("label", parent);
  caption.htmlFor = id;
  caption.textContent = label;
  const control = element(tag, parent);
  Object.assign(control, { id, required: true, ...props });
  return control;
}

/** Shows the form at the end of `log` when the session at `path` has one open (and it is not shown already). */
export async function offerContact(log, path) {
  if (log.querySelector(".contact-form")) return;
  let state;
  try {
    const response = await fetch(`${path}/contact`);
    if (!response.ok) return;
    state = await response.json();
  } catch {
    return; // the form is an offer: a failed check leaves the chat as it is
  }
  if (!state.offered) return;
  keepingScroll(log, () => log.append(contactForm(path)));
}

function contactForm(path) {
  const form = document.createElement("form");
  form.className = "contact-form";
  form.noValidate = true; // the server checks the address and says what is wrong, in the alert below
  form.setAttribute("aria-label", word("contact_title"));
  element("p", form, "contact-title").textContent = word("contact_title");
  const email = labelled(form, "input", word("contact_email"), { type: "email", maxLength: 254, autocomplete: "email" });
  const message = labelled(form, "textarea", word("contact_message"), { rows: 3, maxLength: 4000, dir: "auto" });
  const send = element("button", form);
  send.type = "submit";
  send.textContent = word("contact_send");
  const status = element("p", form, "contact-status");
  status.setAttribute("role", "alert");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    send.disabled = true;
    status.textContent = "";
    try {
      const response = await fetch(`${path}/contact`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ email: email.value.trim(), message: message.value }),
      });
      if (!response.ok) throw new Error(await errorText(response));
      const thanks = document.createElement("p");
      thanks.className = "contact-thanks";
      thanks.setAttribute("role", "status");
      thanks.textContent = word("contact_thanks");
      form.replaceWith(thanks);
    } catch (error) {
      status.textContent = error instanceof Error && error.message ? error.message : word("connection_failed");
      send.disabled = false;
    }
  });
  return form;
}
