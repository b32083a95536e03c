// The email part of the Channels page's "Add a channel" form: the mailbox read over IMAP (an app password where
// the mailbox has two-step sign-in), the address the channel answers as, and, optionally, the SMTP server its
// replies go through (else the service's mail server).
import { field, h, select } from "./ui.js";

const IMAP_SECURITY = [
  ["tls", "TLS (port 993)"],
  ["none", "None: plain IMAP (a server on this machine or network only)"],
];
const SMTP_SECURITY = [
  ["starttls", "STARTTLS (port 587)"],
  ["tls", "TLS (port 465)"],
  ["none", "None (a relay on this machine only)"],
];

const text = (placeholder, type = "text") =>
  h("input", { type, maxlength: "254", placeholder, spellcheck: "false", autocomplete: "off" });
const port = (placeholder) => h("input", { type: "number", min: "1", max: "65535", step: "1", placeholder });

/** The fieldset, and `credentials()`: what it says as the channel's credentials (null fields left out). */
export function emailPart() {
  const address = text("support@shop.example", "email");
  const imapHost = text("imap.gmail.com");
  const imapPort = port("993");
  const imapSecurity = select(IMAP_SECURITY, "tls");
  const imapUser = text("support@shop.example");
  const imapPassword = text("", "password");
  const smtpHost = text("smtp.gmail.com (empty: the service's mail server)");
  const smtpPort = port("587");
  const smtpSecurity = select(SMTP_SECURITY, "starttls");
  const smtpUser = text("support@shop.example");
  const smtpPassword = text("", "password");
  const fieldset = h(
    "fieldset",
    {},
    h("legend", {}, "Email"),
    h(
      "p",
      { class: "hint" },
      "A mailbox of the chatbot's own: it answers every mail that arrives in its INBOX from now on, in the " +
        "customer's thread. With two-step sign-in, make an app password for it (Gmail, Microsoft 365, Fastmail).",
    ),
    field("Address", address, "The address the channel answers as."),
    h(
      "div",
      { class: "row" },
      field("IMAP server", imapHost),
      field("IMAP port", imapPort),
      field("IMAP security", imapSecurity),
    ),
    h(
      "div",
      { class: "row" },
      field("IMAP username", imapUser),
      field("IMAP password", imapPassword, "Signed in with when you add the channel; never shown again."),
    ),
    h(
      "div",
      { class: "row" },
      field("SMTP server", smtpHost, "Where replies are sent through; empty: the service's mail server."),
      field("SMTP port", smtpPort),
      field("SMTP security", smtpSecurity),
    ),
    h("div", { class: "row" }, field("SMTP username", smtpUser), field("SMTP password", smtpPassword)),
  );
  const credentials = () => {
    const given = {
      address: address.value.trim(),
      imap_host: imapHost.value.trim(),
      imap_username: imapUser.value.trim(),
      imap_password: imapPassword.value,
    };
    const optional = {
      imap_port: imapPort.value ? Number(imapPort.value) : null,
      imap_security: imapSecurity.value,
      smtp_host: smtpHost.value.trim() || null,
      smtp_port: smtpHost.value.trim() && smtpPort.value ? Number(smtpPort.value) : null,
      smtp_security: smtpHost.value.trim() ? smtpSecurity.value : null,
      smtp_username: smtpHost.value.trim() ? smtpUser.value.trim() || null : null,
      smtp_password: smtpHost.value.trim() ? smtpPassword.value || null : null,
    };
    return { given, optional: Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== null)) };
  };
  const reset = () => {
    for (const input of [imapPassword, smtpPassword]) input.value = "";
  };
  return { fieldset, credentials, reset };
}
