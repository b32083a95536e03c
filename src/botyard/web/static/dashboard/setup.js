// First run: the one-time setup link `botyard serve` prints (#setup=<token>) creates the first account, its owner
// (the email and password given here, signed in by a session cookie) and its first API key, shown here once for
// programs. The token came in the URL fragment (never sent to a server) and was taken out of the address bar by the
// router before this page renders.
import { post } from "./api.js";
import { busy, field, h, heading, notice } from "./ui.js";

export function render(ctx) {
  const note = notice();
  if (!ctx.setupToken) {
    ctx.main.append(
      h(
        "section",
        { class: "signin" },
        heading("Create your account"),
        h("p", { class: "lead" }, "Open the setup link that botyard serve printed when it started (it works once)."),
        h("p", {}, h("a", { href: "#/signin" }, "Sign in with a key instead")),
      ),
    );
    return;
  }
  const email = h("input", { type: "email", name: "email", autocomplete: "username", required: true });
  const name = h("input", { type: "text", name: "name", autocomplete: "name", maxlength: "200" });
  const password = h("input", {
    type: "password",
    name: "password",
    autocomplete: "new-password",
    required: true,
    minlength: "10",
  });
  const button = h("button", { type: "submit", class: "primary" }, "Create account");
  const form = h(
    "form",
    { class: "card narrow" },
    field("Your email address", email),
    field("Your name", name),
    field("Choose a password", password, "10 characters or more."),
    button,
  );
  const result = h("div");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    await busy(button, note, async () => {
      const body = { token: ctx.setupToken, email: email.value.trim(), name: name.value.trim(), password: password.value };
      const created = await post("/setup", body, { key: "" });
      form.remove();
      showKey(result, created.key, ctx);
    });
  });
  ctx.main.append(
    h(
      "section",
      { class: "signin" },
      heading("Create your account"),
      h("p", { class: "lead" }, "The first account of this Botyard: you become its owner, and get an API key for programs."),
      form,
      result,
      note.element,
    ),
  );
  email.focus();
}

function showKey(container, key, ctx) {
  const output = h("input", { type: "text", readonly: true, value: key, "aria-label": "Your API key" });
  const copy = h("button", { type: "button" }, "Copy key");
  copy.addEventListener("click", async () => {
    output.select();
    try {
      await navigator.clipboard.writeText(key);
      copy.textContent = "Copied";
    } catch {
      copy.textContent = "Select and copy it";
    }
  });
  const go = h("button", { type: "button", class: "primary" }, "Continue to the dashboard");
  go.addEventListener("click", () => ctx.signedIn());
  container.append(
    h(
      "div",
      { class: "card narrow", role: "status" },
      h("p", {}, "You are signed in. Your API key for programs, shown only this once: keep it somewhere safe."),
      output,
      h("p", {}, copy, " ", go),
    ),
  );
  go.focus();
}
