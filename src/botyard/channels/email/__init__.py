"""The email channel: a mailbox read over IMAP, answered over SMTP, in threads, never in a loop.

A mailbox is read by one process at a time, as a Telegram bot is polled (`channels.polling`: the channel's lease),
by its listener (`listener`): over one IMAP connection (`imap`) that waits with `IDLE` where the server offers it
and looks again every `channel_mail_poll_seconds` where it does not; the last UID stored is the channel's
`poll_offset`, the mailbox's `UIDVALIDITY` its `poll_state`. Each mail is read (`reading`: who wrote, what it asks
without its quoted history and signature, what it carries attached, listed and never read), stored once under its
`Message-ID`, joined to its conversation (`threads`), or stored as ignored when it must not be answered (`loops`:
auto-replies, bounces, lists, robots, our own). A reply goes out over SMTP (`outgoing`) in the customer's thread,
its `Message-ID` kept as the reply's receipt. The mailbox is signed into when the channel is made (`connect`).
"""
