// Sign in: the owner pastes an API key; it is checked with GET /chatbots and kept in sessionStorage only.
import { get, signIn } from "./api.js";
import { busy, field, h, heading, notice } from "./ui.js";

export function render(ctx) {
  const note = notice();
  const input = h("input", {
    type: "password",
    name: "key",
    autocomplete: "off",
    spellcheck: "false",
    required: true,
    placeholder: "by_…",
  });
  const button = h("button", { type: "submit", class: "primary" }, "Sign in");
  const form = h(
    "form",
    { class: "card narrow" },
    field("API key", input, "First time? Open the setup link botyard serve printed. Or: botyard key create --email you@example.com"),
    button,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const key = input.value.trim();
    if (!key) return note.error("Paste your API key first.");
    note.ok("Checking the key…");
    await busy(button, note, async () => {
      try {
        await get("/chatbots", { key, signal: ctx.signal });
      } catch (error) {
        if (error.status === 401) throw new Error("That key was not accepted. Check it and try again.");
        throw error;
      }
      signIn(key);
      note.ok("Signed in.");
      ctx.signedIn();
    });
  });
  ctx.main.append(
    h(
      "section",
      { class: "signin" },
      heading("Sign in to Botyard"),
      h("p", { class: "lead" }, "The key stays in this browser tab only, until you sign out or close the tab."),
      form,
      note.element,
    ),
  );
  if (ctx.flash) note.error(ctx.flash);
  input.focus();
}
