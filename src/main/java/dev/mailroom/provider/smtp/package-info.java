/**
 * The SMTP provider (Angus Mail): a stable Message-ID from the idempotency key, and the checkpoint
 * before the final "." of DATA that marks the send's point of no return.
 */
package dev.mailroom.provider.smtp;
