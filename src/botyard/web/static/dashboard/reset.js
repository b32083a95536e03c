// A password reset link (#reset=<token>, taken out of the address bar by the router): the person chooses a new
// password; every other session of theirs ends, and this tab is signed in.
import { post } from "./api.js";
import { busy, field, h, heading, notice } from "./ui.js";

export function render(ctx) {
  const note = notice();
  const section = h("section", { class: "signin" }, heading("Choose a new password"));
  ctx.main.append(section);
  if (!ctx.resetToken) {
    section.append(h("p", { class: "lead" }, "Open the reset link you were given (it works once, for an hour)."));
    return;
  }
  const password = h("input", {
    type: "password",
    name: "password",
    autocomplete: "new-password",
    required: true,
    minlength: "10",
  });
  const button = h("button", { type: "submit", class: "primary" }, "Set the password");
  const form = h("form", { class: "card narrow" }, field("New password", password, "10 characters or more."), button);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    await busy(button, note, async () => {
      await post("/auth/password-reset", { token: ctx.resetToken, password: password.value }, { key: "" });
      note.ok("Password set: you are signed in.");
      ctx.signedIn();
    });
  });
  section.append(form, note.element);
  password.focus();
}
