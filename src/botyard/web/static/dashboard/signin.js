// Sign in: a person with their email and password (the server sets an HttpOnly session cookie), or with the
// single sign-on provider when the service has one (a link to its start: the server does the rest and comes back
// signed in, or with `#sso=<reason>`, whose message GET /auth/oidc gives), or, for programs and tests, an API key
// pasted here (checked with GET /chatbots and kept in sessionStorage only).
import { get, post, signIn } from "./api.js";
import { busy, field, h, heading, notice } from "./ui.js";

/** The "Sign in with <provider>" button when the service offers single sign-on, and why the last one was refused. */
async function offerSso(ctx, place, note) {
  let offer;
  try {
    offer = await get("/auth/oidc", { key: "", signal: ctx.signal });
  } catch {
    return; // the password form still works
  }
  if (ctx.ssoRefusal) note.error(offer.refusals[ctx.ssoRefusal] ?? "Single sign-on did not work: please try again.");
  if (!offer.enabled) return;
  place.append(
    h("a", { class: "button primary", href: offer.start }, `Sign in with ${offer.name}`),
    h("p", { class: "hint" }, "Or with your email and password:"),
  );
  place.hidden = false;
}

export function render(ctx) {
  const note = notice();
  const sso = h("div", { class: "sso narrow", hidden: true });
  const email = h("input", { type: "email", name: "email", autocomplete: "username", required: true });
  const password = h("input", { type: "password", name: "password", autocomplete: "current-password", required: true });
  const button = h("button", { type: "submit", class: "primary" }, "Sign in");
  const form = h("form", { class: "card narrow" }, field("Email", email), field("Password", password), button);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    await busy(button, note, async () => {
      await post("/auth/sign-in", { email: email.value.trim(), password: password.value }, { key: "" });
      password.value = "";
      note.ok("Signed in.");
      ctx.signedIn();
    });
  });

  const input = h("input", {
    type: "password",
    name: "key",
    autocomplete: "off",
    spellcheck: "false",
    required: true,
    placeholder: "by_…",
  });
  const useKey = h("button", { type: "submit" }, "Use the key");
  const keyForm = h(
    "form",
    { class: "card narrow" },
    field("API key", input, "Kept in this browser tab only, until you sign out or close the tab."),
    useKey,
  );
  keyForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const key = input.value.trim();
    if (!key) return note.error("Paste your API key first.");
    note.ok("Checking the key…");
    await busy(useKey, note, async () => {
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
      h("p", { class: "lead" }, "First time? Open the setup link botyard serve printed, or the invitation you were sent."),
      sso,
      form,
      note.element,
      h("p", { class: "hint" }, "Forgot your password? Ask an owner or admin of your account for a reset link."),
      h(
        "details",
        { class: "key-signin" },
        h("summary", {}, "Sign in with an API key instead"),
        keyForm,
      ),
    ),
  );
  if (ctx.flash) note.error(ctx.flash);
  email.focus();
  offerSso(ctx, sso, note);
}
