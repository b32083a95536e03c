// An invitation link (#invite=<token>, taken out of the address bar by the router): shows the email and the role it
// offers, and the person chooses a name and a password; the server signs them in with a session cookie.
import { post } from "./api.js";
import { busy, field, h, heading, notice } from "./ui.js";

export async function render(ctx) {
  const note = notice();
  const section = h("section", { class: "signin" }, heading("Join the team"));
  ctx.main.append(section);
  if (!ctx.inviteToken) {
    section.append(h("p", { class: "lead" }, "Open the invitation link you were sent (it works once)."));
    return;
  }
  let offer;
  try {
    offer = await post("/auth/invitation", { token: ctx.inviteToken }, { key: "", signal: ctx.signal });
  } catch (error) {
    section.append(h("p", { role: "alert", class: "alert" }, error.message));
    return;
  }
  const name = h("input", { type: "text", name: "name", autocomplete: "name", maxlength: "200", required: true });
  const password = h("input", {
    type: "password",
    name: "password",
    autocomplete: "new-password",
    required: true,
    minlength: "10",
  });
  const email = h("input", { type: "email", name: "email", autocomplete: "username", value: offer.email, readonly: true });
  const button = h("button", { type: "submit", class: "primary" }, "Join");
  const form = h(
    "form",
    { class: "card narrow" },
    field("Email", email),
    field("Your name", name),
    field("Choose a password", password, "10 characters or more."),
    button,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    await busy(button, note, async () => {
      const body = { token: ctx.inviteToken, name: name.value.trim(), password: password.value };
      await post("/auth/invitation/accept", body, { key: "" });
      note.ok("Welcome: you are signed in.");
      ctx.signedIn();
    });
  });
  section.append(
    h("p", { class: "lead" }, `You are invited as ${offer.role}.`),
    form,
    note.element,
  );
  name.focus();
}
