// First run: the one-time setup link `botyard serve` prints (#setup=<token>) creates the first account and its
// key, shown here once. The token came in the URL fragment (never sent to a server) and was taken out of the address
// bar by the router before this page renders.
import { post, signIn } from "./api.js";
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
  const email = h("input", { type: "email", name: "email", autocomplete: "email", required: true });
  const button = h("button", { type: "submit", class: "primary" }, "Create account");
  const form = h("form", { class: "card narrow" }, field("Your email address", email), button);
  const result = h("div");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    await busy(button, note, async () => {
      const created = await post("/setup", { token: ctx.setupToken, email: email.value.trim() }, { key: "" });
      signIn(created.key);
      form.remove();
      showKey(result, created.key, ctx);
    });
  });
  ctx.main.append(
    h(
      "section",
      { class: "signin" },
      heading("Create your account"),
      h("p", { class: "lead" }, "The first account of this Botyard. You get an API key for the dashboard and the API."),
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
      h("p", {}, "Your API key, shown only this once. Keep it somewhere safe: it signs you in here and calls the API."),
      output,
      h("p", {}, copy, " ", go),
    ),
  );
  go.focus();
}
