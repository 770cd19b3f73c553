/**
 * The provider interface ({@link dev.mailroom.provider.MailProvider}) and its adapters to SMTP
 * ({@code provider.smtp}), HTTP mail APIs ({@code provider.http}) and the sandbox.
 *
 * <p>Providers report, they do not decide: a send returns a
 * {@link dev.mailroom.provider.ProviderResponse} with what the remote side said, verbatim and bounded,
 * or what kind of fault stopped it, and where the point of no return was
 * ({@link dev.mailroom.provider.SendCheckpoint}). Whether that means retry, throttle, dead-letter or
 * pause is classified in {@code dev.mailroom.recoverability}, from mapping tables, never here.
 *
 * <p>May use: platform, contract (a job's unsubscribe and the headers it becomes).
 */
package dev.mailroom.provider;
