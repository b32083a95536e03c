"""Mail through the operator's SMTP server (`BOTYARD_SMTP_*`): one `Mailer` per process, built from the settings.

Mail is sent by jobs, never while a request waits: a slow or absent mail server delays an email, not an answer.
SMTP is not HTTP, so the egress guard does not apply; the server comes from the operator's settings alone, never
from anything a tenant or a visitor gives. Recipients are the chatbot owner's notification addresses.
"""

from botyard.mail.smtp import Mail, Mailer, MailError, MailRefused, mail_status

__all__ = ["Mail", "MailError", "MailRefused", "Mailer", "mail_status"]
